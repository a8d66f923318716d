import DictationFeature
import SpeechRecognitionFeature
import Testing

@testable import transcribe

@Suite struct DictationRendererTests {
  /// A state holding the entries `ids`, each typed as "Word N.".
  func state(_ ids: ClosedRange<Int>) -> Dictation.State {
    var state = Dictation.State(speech: SpeechRecognition.State())
    state.entries = ids.map {
      Dictation.Entry(id: $0, heard: "Word \($0).", text: " Word \($0).", status: .typed)
    }
    return state
  }

  /// Into a pipe each typed entry is written once; what is remembered of entries follows the
  /// state, which keeps only the recent ones, so it does not grow with the day.
  @Test func whatIsReportedIsWrittenOnceAndForgottenWithTheState() {
    var renderer = DictationRenderer(
      isTerminal: false, stderrIsTerminal: false, keyboardWritesStandardOutput: false)
    var written = ""
    for last in 0..<1_000 {
      for output in renderer.render(state(max(0, last - 9)...last)) {
        if case .stdout(let text) = output { written += text }
      }
      #expect(renderer.reported.count <= 10)
    }
    #expect(written == (0..<1_000).map { " Word \($0)." }.joined())
    #expect(renderer.reported.keys.sorted() == Array(990...999))
  }
}
