import DictationFeature
import Testing

/// Spacing, capitals, fragments and commands, as a person types them.
struct DictationTextTests {
  /// Types `utterances` one after another, as dictation does, and returns the text on screen.
  func typed(_ utterances: [String]) -> String {
    var screen = ""
    for utterance in utterances {
      let keystrokes = DictationText.keystrokes(
        for: utterance, after: DictationText.Context(tail: screen))
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
