import Foundation
import SpeechClient
import Testing

@testable import TranscribeServer

@Suite struct VoskMessageTests {
  @Test func readsEveryConfigurationField() throws {
    let message = try VoskMessage(
      text: #"{"config": {"sample_rate": 8000.0, "words": false, "max_alternatives": 2, "#
        + #""phrase_list": ["go forward", "stop"]}}"#)
    var expected = VoskStreamConfiguration()
    expected.sampleRate = 8_000
    expected.words = false
    expected.maxAlternatives = 2
    expected.phraseList = ["go forward", "stop"]
    #expect(message == .config(expected))
  }

  @Test func readsTheEndAsVoskSpellsIt() throws {
    #expect(try VoskMessage(text: #"{"eof" : 1}"#) == .eof)
  }

  @Test func rejectsWhatItCannotUse() {
    #expect(throws: WebSocketSessionError.invalidJSON) {
      try VoskMessage(text: "config please")
    }
    #expect(throws: WebSocketSessionError.unknownConfigurationField("model")) {
      try VoskMessage(text: #"{"config": {"model": "en"}}"#)
    }
    #expect(throws: WebSocketSessionError.unsupportedMessage(#"{"reset": 1}"#)) {
      try VoskMessage(text: #"{"reset": 1}"#)
    }
    #expect(throws: WebSocketSessionError.self) {
      try VoskMessage(text: #"{"config": {"max_alternatives": 1.5}}"#)
    }
    #expect(throws: WebSocketSessionError.self) {
      try VoskMessage(text: #"{"config": {"phrase_list": [1, 2]}}"#)
    }
  }

  @Test func aPhraseListPastItsCapsIsRefusedNamingTheLimit() throws {
    func config(_ phrases: [String]) -> String {
      let items = phrases.map { "\"\($0)\"" }.joined(separator: ",")
      return #"{"config": {"phrase_list": ["# + items + "]}}"
    }
    let most = ServerConfiguration().maxPhrases
    let longest = ServerConfiguration().maxPhraseLength
    #expect((most, longest) == (10_000, 200))
    // At the caps: accepted.
    let full = Array(repeating: "go forward", count: most)
    #expect(try VoskMessage(text: config(full)) == .config(configuration(phrases: full)))
    let long = [String(repeating: "a", count: longest)]
    #expect(try VoskMessage(text: config(long)) == .config(configuration(phrases: long)))
    // One past either: refused with 1007, naming the limit.
    let tooMany = #expect(throws: WebSocketSessionError.self) {
      try VoskMessage(text: config(full + ["stop"]))
    }
    #expect(tooMany?.closeCode == 1007)
    #expect(
      tooMany?.message
        == "invalid configuration value for 'phrase_list': holds 10001 phrases; at most 10000 "
        + "are allowed")
    let tooLong = #expect(throws: WebSocketSessionError.self) {
      try VoskMessage(text: config(["stop", String(repeating: "a", count: longest + 1)]))
    }
    #expect(tooLong?.closeCode == 1007)
    #expect(
      tooLong?.message
        == "invalid configuration value for 'phrase_list': phrase 2 has 201 characters; at most "
        + "200 are allowed")
  }

  private func configuration(phrases: [String]) -> VoskStreamConfiguration {
    var configuration = VoskStreamConfiguration()
    configuration.phraseList = phrases
    return configuration
  }

  @Test func closeCodesFollowTheKindOfProblem() {
    #expect(WebSocketSessionError.session(.busy).closeCode == 1013)
    #expect(WebSocketSessionError.oddLengthFrame(bytes: 3).closeCode == 1007)
    #expect(WebSocketSessionError.session(.messageTooLarge(bytes: 2, limit: 1)).closeCode == 1009)
    #expect(WebSocketSessionError.session(.idle(.seconds(30))).closeCode == 1008)
    #expect(WebSocketSessionError.session(.recognitionFailed("x")).closeCode == 1011)
    #expect(WebSocketSessionError.session(.shuttingDown).closeCode == 1001)
    #expect(WebSocketSessionError.session(.idle(.seconds(30))).message.contains("30 s"))
  }

  @Test func aResultListsWordsTextAndAlternativesAsVoskDoes() throws {
    let words = [
      TranscriptionSegment(
        substring: "go", timestamp: 0.5, duration: 0.25, confidence: 0.5,
        alternativeSubstrings: ["no"]),
      TranscriptionSegment(substring: "forward", timestamp: 0.75, duration: 0.5, confidence: 1),
    ]
    var configuration = VoskStreamConfiguration()
    configuration.maxAlternatives = 2
    let json = VoskReply.result(words).json(configuration: configuration)
    let object = try #require(
      try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any])
    #expect(object["text"] as? String == "go forward")
    let result = try #require(object["result"] as? [[String: Any]])
    #expect(result.first?["word"] as? String == "go")
    #expect(result.first?["start"] as? Double == 0.5)
    #expect(result.first?["end"] as? Double == 0.75)
    #expect(result.first?["conf"] as? Double == 0.5)
    let alternatives = try #require(object["alternatives"] as? [[String: Any]])
    #expect(alternatives.map { $0["text"] as? String } == ["go forward", "no forward"])
    #expect(VoskReply.partial("go").json(configuration: configuration) == #"{"partial":"go"}"#)
  }
}
