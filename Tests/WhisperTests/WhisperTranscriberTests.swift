import Foundation
import Testing

@testable import Whisper

@Suite struct WhisperTranscriberTests {
  @Test func theEncoderWindowFitsTheUtteranceUpToTheFullWindow() {
    // 50 frames a second and 64 more; 30 s and more take the full window (0).
    #expect(WhisperTranscriber.audioContext(samples: 16_000) == 114)
    #expect(WhisperTranscriber.audioContext(samples: 16_001) == 115)
    #expect(WhisperTranscriber.audioContext(samples: 3 * 16_000 + 3_200) == 224)
    #expect(WhisperTranscriber.audioContext(samples: 28 * 16_000) == 1_464)
    #expect(WhisperTranscriber.audioContext(samples: 29 * 16_000) == 0)
    #expect(WhisperTranscriber.audioContext(samples: 40 * 16_000) == 0)
  }

  @Test func thePromptIsTheConfiguredTextThenThePhrases() {
    #expect(WhisperTranscriber.prompt(nil, phrases: []) == nil)
    #expect(WhisperTranscriber.prompt("  ", phrases: [" "]) == nil)
    #expect(WhisperTranscriber.prompt("Minutes.", phrases: []) == "Minutes.")
    #expect(
      WhisperTranscriber.prompt("Minutes.", phrases: ["Saoirse", "Kallax"])
        == "Minutes., Saoirse, Kallax")
    #expect(WhisperTranscriber.prompt(nil, phrases: ["Saoirse"]) == "Saoirse")
  }

  @Test func aTextDecodedWithThePhrasesIsKeptOnlyWhenItReadsAsTheSameSpeech() {
    let names = ["Kallax", "Siobhan", "Tchaikovsky", "Miele", "Bose", "Aoife Ni Bhriain"]
    func keeps(_ favoured: String, over plain: String) -> Bool {
      WhisperTranscriber.keepsFavoured(favoured, over: plain, phrases: names)
    }
    // Names in place of misheard words: kept.
    #expect(
      keeps(
        "Turn on the Kallax lamp in Siobhan's room.",
        over: "Turn on the Calix lamp in Shivan's room."))
    #expect(keeps("Call Tchaikovsky.", over: "Call Chai Kovsky."))
    #expect(keeps("Call Aoife Ni Bhriain.", over: "Call Ethan Hybrid Ivan."))
    #expect(keeps("Ask the boss about it.", over: "Ask the boss about it."))
    // What Whisper base wrote with 33 names as its prompt (Benchmarks/whisper, "Hotwords"): a
    // list where a sentence was said, words that are no name, and loops.
    #expect(!keeps("Terna, Vakosy, Light", over: "turn up the cozy lights"))
    #expect(!keeps("Kokemi, Ofer, The Kids", over: "Cook amiho for the kids."))
    #expect(
      !keeps(
        "Niobhan, Haibercrain, Niobhan, Haibercrain, Niobhan, Haibercrain",
        over: "and you'll find my Ukraine."))
    #expect(!keeps("Tart, Miele, Dish, Washer, Tart, Miele", over: "Start the meal dishwasher."))
    // A name for an ordinary word is kept only if the name is a phrase: the prompt cannot
    // bring in another.
    #expect(!keeps("Ask the Bosch about it.", over: "Ask the boss about it."))
    // Nothing kept over nothing, or over a longer text.
    #expect(!keeps("", over: "Ask the boss about it."))
    #expect(!keeps("Bose.", over: "Ask the boss about it."))
  }

  @Test func aRunOfUpToFourWordsTwiceInARowIsARepetition() {
    let words = WhisperTranscriber.words(of:)
    #expect(WhisperTranscriber.repeatsItself(words("the the")))
    #expect(WhisperTranscriber.repeatsItself(words("a b c d, a b c d")))
    #expect(!WhisperTranscriber.repeatsItself(words("Muchas gracias, hasta luego.")))
    #expect(!WhisperTranscriber.repeatsItself(words("one two one three")))
    #expect(
      WhisperTranscriber.words(of: "Ask Siobhan's dog, please!") == [
        "ask", "siobhan's", "dog", "please",
      ])
  }
}
