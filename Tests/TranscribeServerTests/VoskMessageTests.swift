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
    #expect(throws: WebSocketSessionError.malformedJSON("not valid JSON")) {
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

  @Test func closeCodesFollowTheKindOfProblem() {
    #expect(WebSocketSessionError.capacity.closeCode == 1013)
    #expect(WebSocketSessionError.oddLengthFrame(bytes: 3).closeCode == 1007)
    #expect(WebSocketSessionError.frameTooLarge(bytes: 2, limit: 1).closeCode == 1009)
    #expect(WebSocketSessionError.idle(.seconds(30)).closeCode == 1008)
    #expect(WebSocketSessionError.recognitionFailed("x").closeCode == 1011)
    #expect(WebSocketSessionError.shuttingDown.closeCode == 1001)
    #expect(WebSocketSessionError.idle(.seconds(30)).message.contains("30 s"))
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
