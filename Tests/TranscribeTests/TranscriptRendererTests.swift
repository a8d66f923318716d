import SpeechClient
import SpeechRecognitionFeature
import Testing

@testable import transcribe

@Suite struct TranscriptRendererTests {
  func segment(_ word: String, _ start: Double, ends: Bool = false) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: word, timestamp: start, duration: 0.5, confidence: 0.9, endsUtterance: ends)
  }

  func state(
    _ segments: [TranscriptionSegment], isFinal: Bool = false
  )
    -> SpeechRecognition.State
  {
    var state = SpeechRecognition.State()
    state.isRecording = !isFinal
    state.result = SpeechRecognitionResult(
      bestTranscription: Transcription(
        formattedString: segments.map(\.substring).joined(separator: " "), segments: segments),
      isFinal: isFinal)
    state.transcribedText = state.result!.bestTranscription.formattedString
    return state
  }

  func text(_ output: [TranscriptRenderer.Output]) -> String {
    output.map { if case .stdout(let text) = $0 { text } else { "" } }.joined()
  }

  @Test func pipeGetsOnlyFinishedUtterancesOncePerLine() {
    var renderer = TranscriptRenderer(format: .text, isTerminal: false)
    #expect(text(renderer.render(state([segment("go", 0)]))) == "")
    #expect(
      text(renderer.render(state([segment("go", 0), segment("forward", 0.5, ends: true)])))
        == "go forward\n")
    let more = [segment("go", 0), segment("forward", 0.5, ends: true), segment("ten", 2)]
    #expect(text(renderer.render(state(more))) == "")
    #expect(
      text(renderer.render(state(more + [segment("meters", 2.5)], isFinal: true)))
        == "ten meters\n")
    #expect(text(renderer.finish()) == "")
  }

  @Test func terminalRewritesTheLiveLineAndKeepsFinishedLines() {
    var renderer = TranscriptRenderer(format: .text, isTerminal: true)
    let clear = "\r\u{1B}[2K"
    #expect(text(renderer.render(state([segment("go", 0)]))) == clear + "go")
    #expect(
      text(renderer.render(state([segment("go", 0), segment("forward", 0.5)])))
        == clear + "go forward")
    #expect(
      text(renderer.render(state([segment("go", 0), segment("forward", 0.5, ends: true)])))
        == clear + "go forward\n")
    #expect(
      text(
        renderer.render(
          state([segment("go", 0), segment("forward", 0.5, ends: true), segment("ten", 2)])))
        == clear + "ten")
    #expect(text(renderer.finish()) == "\n")
  }

  @Test func sharingTheRowWithProgressWritesOnlyFinishedLinesAfterErasingIt() {
    var renderer = TranscriptRenderer(format: .text, isTerminal: true, sharesTheRow: true)
    #expect(text(renderer.render(state([segment("go", 0)]))) == "")
    #expect(
      text(renderer.render(state([segment("go", 0), segment("on", 0.5, ends: true)])))
        == "\r\u{1B}[2Kgo on\n")
    #expect(text(renderer.finish()) == "")
  }

  @Test func terminalLiveLineKeepsTheNewestWordsWithinTheWidth() {
    var renderer = TranscriptRenderer(format: .text, isTerminal: true, width: 20)
    let words = (0..<10).map { segment("word\($0)", Double($0)) }
    let line = text(renderer.render(state(words)))
    #expect(line.hasSuffix("word9"))
    #expect(line.dropFirst(5).count <= 19)
  }

  @Test func srtHasNumberedCuesWithCommaMilliseconds() {
    var renderer = TranscriptRenderer(format: .srt, isTerminal: true)
    let out = text(
      renderer.render(
        state(
          [segment("go", 1.25), segment("forward", 1.75, ends: true), segment("ten", 62)],
          isFinal: true)))
    #expect(
      out == """
        1
        00:00:01,250 --> 00:00:02,250
        go forward

        2
        00:01:02,000 --> 00:01:02,500
        ten


        """)
  }

  @Test func vttStartsWithAHeaderAndUsesDots() {
    var renderer = TranscriptRenderer(format: .vtt, isTerminal: false)
    let out = text(renderer.render(state([segment("hello", 0.5, ends: true)])))
    #expect(out == "WEBVTT\n\n00:00:00.500 --> 00:00:01.000\nhello\n\n")
  }

  @Test func jsonEndsWithOneFinalLine() {
    var renderer = TranscriptRenderer(format: .json, isTerminal: false, label: "a.wav")
    let finished = state([segment("go", 0, ends: true), segment("on", 1)], isFinal: true)
    let lines = text(renderer.render(finished)).split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0].contains(#""type":"utterance""#))
    #expect(lines[0].contains(#""file":"a.wav""#))
    #expect(lines[2].contains(#""type":"final""#))
    #expect(lines[2].contains(#""transcript":"go on""#))
    #expect(text(renderer.render(finished)) == "")
  }
}
