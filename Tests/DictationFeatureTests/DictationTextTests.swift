import DictationFeature
import Testing

/// Spacing, capitals, fragments and commands, as a person types them.
struct DictationTextTests {
  /// Types `utterances` one after another, as dictation does (learning names from each before
  /// typing it), and returns the text on screen.
  func typed(_ utterances: [String], names: DictationText.Names = .init()) -> String {
    var screen = ""
    var names = names
    for utterance in utterances {
      names.learn(from: utterance)
      let keystrokes = DictationText.keystrokes(
        for: utterance, after: DictationText.Context(tail: screen), names: names)
      screen.removeLast(keystrokes.erase)
      screen += keystrokes.text
    }
    return screen
  }

  @Test func utterancesAreSpacedAndSentencesCapitalised() {
    #expect(typed(["Hello there.", "How are you?"]) == "Hello there. How are you?")
    #expect(typed(["hello there", "how are you"]) == "Hello there how are you")
    #expect(typed(["Good morning,", "Everyone."]) == "Good morning, everyone.")
    #expect(typed(["Wait!", "what"]) == "Wait! What")
    // No space before punctuation; "I" and acronyms keep their capitals.
    #expect(typed(["It works", ", mostly."]) == "It works, mostly.")
    #expect(typed(["Then", "I think so."]) == "Then I think so.")
    #expect(typed(["Ask", "NASA about it."]) == "Ask NASA about it.")
    #expect(typed(["Call Mr.", "Smith."]) == "Call Mr. Smith.")
    #expect(typed(["Bring fruit, e.g.", "apples."]) == "Bring fruit, e.g. apples.")
    #expect(typed(["She said \"Stop.\"", "then left."]) == "She said \"Stop.\" Then left.")
  }

  @Test func aFragmentCutByAPauseIsJoinedToWhatFollows() {
    #expect(typed(["Turn on the.", "Kitchen lights."]) == "Turn on the kitchen lights.")
    #expect(
      typed(["He might even have been made.", "Amiable himself."])
        == "He might even have been made. Amiable himself.")
    #expect(typed(["Say hello to your.", "Mother."]) == "Say hello to your mother.")
    // Verbs and particles end sentences.
    #expect(typed(["Richer than he was.", "He knew."]) == "Richer than he was. He knew.")
    #expect(typed(["Come in.", "Sit down."]) == "Come in. Sit down.")
    // A sentence that ends in a hold word and punctuation other than a full stop is kept.
    #expect(typed(["Is that the?", "Yes."]) == "Is that the? Yes.")
  }

  @Test func aNameKeepsItsCapitalWhenTheUserGaveItAsAHotword() {
    // The model capitalises every utterance's first word: that capital alone says nothing.
    #expect(typed(["Good morning,", "Dave."]) == "Good morning, dave.")
    let names = DictationText.Names(hotwords: ["Dave", "living room", "Aoife Ni Bhriain"])
    #expect(names.given == ["dave", "aoife", "ni", "bhriain"])
    #expect(typed(["Good morning,", "Dave."], names: names) == "Good morning, Dave.")
    #expect(typed(["Ask", "Aoife about it."], names: names) == "Ask Aoife about it.")
    // Hotwords in lower case are no names.
    #expect(
      typed(["Turn on the", "Living room lamp."], names: names) == "Turn on the living room lamp.")
    // A fragment's full stop is still taken back before a name.
    #expect(typed(["Say hello to the.", "Dave."], names: names) == "Say hello to the Dave.")
  }

  @Test func aNameKeepsItsCapitalWhenTheModelWroteItWithOneInsideASentence() {
    #expect(
      typed(["I met Dave yesterday.", "Good morning,", "Dave."])
        == "I met Dave yesterday. Good morning, Dave.")
    // Later in the same utterance counts too.
    #expect(typed(["Well,", "Dave, are you there, Dave?"]) == "Well, Dave, are you there, Dave?")
    // After a title.
    #expect(typed(["Call Mr. Smith.", "Tell", "Smith."]) == "Call Mr. Smith. Tell Smith.")
    // First in an utterance, or first in a sentence, the model's capital says nothing.
    #expect(typed(["Will it rain?", "Yes.", "Ask", "Will."]) == "Will it rain? Yes. Ask will.")
    #expect(typed(["Go. Will it rain?", "Ask", "Will."]) == "Go. Will it rain? Ask will.")
    // Written in lower case inside a sentence later, it is no name any more.
    #expect(
      typed(["Ask Will now.", "It will rain.", "Tell", "Will."])
        == "Ask Will now. It will rain. Tell will.")
  }

  @Test func theModelsNamesAreBounded() {
    var names = DictationText.Names()
    names.limit = 3
    names.learn(from: "I met Ann, Bob, Cy and Dee.")
    #expect(names.learned == ["bob", "cy", "dee"])
    names.learn(from: "Then Bob left.")
    #expect(names.learned == ["cy", "dee", "bob"])
    #expect(names.contains("Bob,") && !names.contains("Ann"))
  }

  @Test func lineCommandsAreFoundAnywhereAndScratchThatOnlyAlone() {
    #expect(
      DictationText.pieces(of: "Dear John, new line, thanks for the call.", commands: true)
        == [.words("Dear John,"), .command(.newLine), .words("thanks for the call.")])
    #expect(
      DictationText.pieces(of: "New paragraph.", commands: true) == [.command(.newParagraph)])
    #expect(DictationText.pieces(of: "Scratch that.", commands: true) == [.command(.scratchThat)])
    #expect(
      DictationText.pieces(of: "I said scratch that twice.", commands: true)
        == [.words("I said scratch that twice.")])
    #expect(
      DictationText.pieces(of: "New line.", commands: false) == [.words("New line.")])
    #expect(DictationText.pieces(of: "  ", commands: true) == [])
  }

  @Test func aNewLineStartsASentenceWithoutASpace() {
    let after = DictationText.Context(tail: "Dear John,\n")
    #expect(
      DictationText.keystrokes(for: "thanks for the call.", after: after).text
        == "Thanks for the call.")
    #expect(DictationText.keystrokes(for: "Hello.", after: .start) == (0, "Hello."))
  }
}
