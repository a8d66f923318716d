import SpeechClient
import Testing

/// The one shape every source of hotwords takes: lists, files, prompts, limits.
struct HotwordsTests {
  @Test func aCommaSeparatedListIsTrimmedWithoutBlanksOrRepeats() {
    #expect(
      Hotwords.phrases(inList: " Kallax,  Siobhan , ,Nanoleaf,kallax, Aoife  Ni Bhriain ")
        == ["Kallax", "Siobhan", "Nanoleaf", "Aoife Ni Bhriain"])
  }

  @Test func aFileHasOnePhrasePerLineAndComments() {
    #expect(
      Hotwords.phrases(inFile: "# lamps\nKallax\n\n  Velux skylight \r\n# people\nSiobhan\n")
        == ["Kallax", "Velux skylight", "Siobhan"])
  }

  @Test func aPromptGivesItsNames() {
    #expect(
      Hotwords.phrases(
        inPrompt: "The Kallax lamp is in Siobhan's room. Call Aoife Ni Bhriain, then play "
          + "\"Tchaikovsky Nocturnes\" on the iPhone.")
        == ["Kallax", "Siobhan", "Call", "Aoife Ni Bhriain", "Tchaikovsky Nocturnes", "iPhone"])
    // Common sentence starters and ordinary words are not names.
    #expect(Hotwords.phrases(inPrompt: "Please transcribe this. It is about the weather.") == [])
    #expect(Hotwords.phrases(inPrompt: "") == [])
    // A glossary as Whisper users write it.
    #expect(
      Hotwords.phrases(inPrompt: "Kallax, Nanoleaf, Saoirse, R2D2.")
        == ["Kallax", "Nanoleaf", "Saoirse", "R2D2"])
  }

  @Test func listsMergeWithTheLaterBoostWinning() {
    let server = Hotwords(["Kallax", "Siobhan"], boost: 4)
    #expect(
      server.merged(with: Hotwords(["siobhan", "Velux"]))
        == Hotwords(["Kallax", "Siobhan", "Velux"], boost: 4))
    #expect(server.merged(with: Hotwords([], boost: 7)).boost == 7)
  }

  @Test func theLimitsAreCountLengthAndBoost() {
    #expect(Hotwords((1...Hotwords.maximumCount).map { "n\($0)" }).problem == nil)
    #expect(
      Hotwords((0...Hotwords.maximumCount).map { "n\($0)" }).problem
        == .tooMany(Hotwords.maximumCount + 1, limit: Hotwords.maximumCount))
    let long = String(repeating: "a", count: Hotwords.maximumLength + 1)
    #expect(
      Hotwords(["ok", long]).problem
        == .tooLong(phrase: 2, characters: long.count, limit: Hotwords.maximumLength))
    #expect(Hotwords(["ok"], boost: 21).problem == .boostOutOfRange(21))
    #expect(Hotwords(["ok"], boost: .nan).problem != nil)
    #expect(
      "\(Hotwords.Problem.tooMany(1001, limit: 1000))"
        == "holds 1001 phrases; at most 1000 are allowed")
  }
}
