import Foundation
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature
import Testing

@testable import transcribe

@Suite struct TranscriptRendererTests {
  let clear = "\r\u{1B}[2K"

  func segment(
    _ word: String, _ start: Double, duration: Double = 0.5, ends: Bool = false
  ) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: word, timestamp: start, duration: duration, confidence: 0.9, endsUtterance: ends)
  }

  func state(
    _ segments: [TranscriptionSegment], isFinal: Bool = false,
    request: SpeechRecognitionRequest = SpeechRecognitionRequest(),
    progress: RecognitionProgress? = nil, status: SpeechRecognition.Status = .recording
  ) -> SpeechRecognition.State {
    var state = SpeechRecognition.State(request: request)
    state.isRecording = !isFinal
    state.status = status
    state.result = SpeechRecognitionResult(
      bestTranscription: Transcription(segments: segments), isFinal: isFinal, progress: progress)
    return state
  }

  func text(_ output: [TranscriptRenderer.Output]) -> String {
    output.map { if case .stdout(let text) = $0 { text } else { "" } }.joined()
  }

  func errorText(_ output: [TranscriptRenderer.Output]) -> String {
    output.map { if case .stderr(let text) = $0 { text } else { "" } }.joined()
  }

  @Test func pipeGetsOnlyFinishedUtterancesOncePerLine() {
    var renderer = TranscriptRenderer(format: .text, stdoutIsTerminal: false)
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

  @Test func lowSampleRateIsWarnedOnceOnStandardErrorWithoutTouchingTheTranscript() {
    var renderer = TranscriptRenderer(format: .text, stdoutIsTerminal: false)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/tmp/8k.wav")))
    let progress = RecognitionProgress(
      audioDuration: 0, totalAudioDuration: 3, recordedSampleRate: 8000)
    let first = renderer.render(state([], request: file, progress: progress))
    #expect(errorText(first).components(separatedBy: "\n").count == 2)
    #expect(errorText(first).contains("8000 Hz; accuracy suffers below 16 kHz"))
    #expect(text(first) == "")
    let later = renderer.render(
      state([segment("go", 0, ends: true)], request: file, progress: progress))
    #expect(!errorText(later).contains("warning"))
    #expect(text(later) == "go\n")

    var normal = TranscriptRenderer(format: .text, stdoutIsTerminal: false)
    let rate16k = RecognitionProgress(
      audioDuration: 0, totalAudioDuration: 3, recordedSampleRate: 16000)
    #expect(
      !errorText(normal.render(state([], request: file, progress: rate16k))).contains("warning"))
  }

  @Test func skippedStatesLoseNoUtterance() {
    var renderer = TranscriptRenderer(format: .text, stdoutIsTerminal: false)
    // Two utterances finished between the states the renderer saw.
    let words = [
      segment("one", 0, ends: true), segment("two", 1, ends: true), segment("three", 2),
    ]
    #expect(text(renderer.render(state(words))) == "one\ntwo\n")
  }

  @Test func terminalRewritesTheLiveLineAndKeepsFinishedLines() {
    var renderer = TranscriptRenderer(format: .text, stdoutIsTerminal: true)
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

  @Test func aFilesProgressLeadsTheLiveRowOnATerminal() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: true, stderrIsTerminal: true)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let output = renderer.render(
      state(
        [segment("go", 0)], request: file,
        progress: .init(audioDuration: 15, totalAudioDuration: 60)))
    #expect(text(output) == clear + "[25%] go")
    #expect(errorText(output) == "")
    let done = renderer.render(
      state(
        [segment("go", 0, ends: true)], isFinal: true, request: file,
        progress: .init(audioDuration: 60, totalAudioDuration: 60)))
    #expect(text(done) == clear + "go\n")
    #expect(text(renderer.finish()) == "")
  }

  @Test func intoAPipeAFilesProgressIsARowOnStandardErrorErasedAtTheEnd() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: false, stderrIsTerminal: true)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let first = renderer.render(
      state([], request: file, progress: .init(audioDuration: 6, totalAudioDuration: 60)))
    #expect(errorText(first) == clear + "transcribing… 10%")
    #expect(text(first) == "")
    // The same percent is not drawn again.
    let same = renderer.render(
      state([], request: file, progress: .init(audioDuration: 6.1, totalAudioDuration: 60)))
    #expect(same.isEmpty)
    let line = renderer.render(
      state(
        [segment("go", 0, ends: true)], request: file,
        progress: .init(audioDuration: 30, totalAudioDuration: 60)))
    #expect(text(line) == "go\n")
    #expect(errorText(line) == clear + "transcribing… 50%")
    #expect(errorText(renderer.finish()) == clear)
  }

  @Test func aBatchIntoAPipeHasOneProgressRowFromItsFirstFileToItsEndErasedOnce() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: false, stderrIsTerminal: true)
    let a = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let b = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/b.wav")))
    func batch(_ finished: Int, _ decoded: Double) -> FileBatchProgress {
      FileBatchProgress(
        finishedFiles: finished, fileCount: 2, decodedAudio: decoded, totalAudio: 80)
    }
    renderer.startFile(label: "/a.wav")
    // The file's own percent (10 of its 20 s) is not shown: the batch's is (20 of 80 s).
    let first = renderer.render(
      state([], request: a, progress: .init(audioDuration: 10, totalAudioDuration: 20)),
      batch: batch(0, 20))
    #expect(errorText(first) == clear + "transcribing… 0/2 files, 25%")
    let done = renderer.render(
      state(
        [segment("go", 0, ends: true)], isFinal: true, request: a,
        progress: .init(audioDuration: 20, totalAudioDuration: 20)),
      batch: batch(1, 40))
    #expect(text(done) == "go\n")
    #expect(errorText(done) == clear + "transcribing… 1/2 files, 50%")
    // Between the files the row stays: nothing erases it.
    #expect(renderer.finishFile().isEmpty)
    renderer.startFile(label: "/b.wav")
    let second = renderer.render(
      state([segment("ten", 0, ends: true)], request: b), batch: batch(1, 60))
    #expect(text(second) == "ten\n")
    #expect(errorText(second) == clear + "transcribing… 1/2 files, 75%")
    let last = renderer.render(
      state([segment("ten", 0, ends: true)], isFinal: true, request: b), batch: batch(2, 80))
    #expect(errorText(last) == clear + "transcribing… 2/2 files, 100%")
    #expect(renderer.finishFile().isEmpty)
    #expect(renderer.finish() == [.stderr(clear)])
  }

  @Test func aBatchWhoseLengthIsNotKnownYetCountsFilesOnly() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: false, stderrIsTerminal: true)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let output = renderer.render(
      state([], request: file),
      batch: FileBatchProgress(finishedFiles: 0, fileCount: 3, decodedAudio: 5, totalAudio: nil))
    #expect(errorText(output) == clear + "transcribing… 0/3 files")
  }

  @Test func aBatchIntoAPipeWithStandardErrorNotATerminalHasNoProgressRow() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: false, stderrIsTerminal: false)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let progress = FileBatchProgress(
      finishedFiles: 0, fileCount: 2, decodedAudio: 5, totalAudio: 10)
    let output = renderer.render(
      state([segment("go", 0, ends: true)], request: file), batch: progress)
    #expect(output == [.stdout("go\n")])
    #expect(renderer.finishFile().isEmpty)
    #expect(renderer.finish().isEmpty)
  }

  @Test func aBatchOnATerminalLeadsTheLiveRowWithTheBatchProgress() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: true, stderrIsTerminal: true)
    let file = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let output = renderer.render(
      state(
        [segment("go", 0)], request: file,
        progress: .init(audioDuration: 15, totalAudioDuration: 60)),
      batch: FileBatchProgress(finishedFiles: 1, fileCount: 4, decodedAudio: 50, totalAudio: 100))
    #expect(text(output) == clear + "[1/4 files, 50%] go")
    #expect(errorText(output) == "")
  }

  @Test func aWarningOnStandardErrorErasesTheProgressRowFirstAndTheNextStateDrawsItAgain() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: false, stderrIsTerminal: true)
    let a = SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/a.wav")))
    let batch = FileBatchProgress(
      finishedFiles: 1, fileCount: 2, decodedAudio: 10, totalAudio: 20)
    _ = renderer.render(state([], request: a), batch: batch)
    renderer.startFile(label: "/b.wav")
    let warned = renderer.render(
      state(
        [], request: a,
        progress: .init(audioDuration: 1, totalAudioDuration: 10, recordedSampleRate: 8000)),
      batch: batch)
    #expect(
      errorText(warned)
        == clear + TranscriptRenderer.lowSampleRateWarning(8000) + clear
        + "transcribing… 1/2 files, 50%")
  }

  @Test func aStopIsAnnouncedOnceOnStandardErrorAboveTheLiveRow() {
    var renderer = TranscriptRenderer(
      format: .text, stdoutIsTerminal: true, stderrIsTerminal: true)
    _ = renderer.render(state([segment("go", 0)]))
    let stopping = renderer.render(state([segment("go", 0)], status: .finishing))
    #expect(
      stopping == [
        .stdout(clear), .stderr(clear + "Stopping… (Ctrl-C quits at once)\n"),
        .stdout("go"),
      ])
    #expect(renderer.render(state([segment("go", 0)], status: .finishing)).isEmpty)
  }

  @Test func terminalLiveLineKeepsTheNewestWordsWithinTheWidth() {
    var renderer = TranscriptRenderer(format: .text, stdoutIsTerminal: true, width: 20)
    let words = (0..<10).map { segment("word\($0)", Double($0)) }
    let line = text(renderer.render(state(words)))
    #expect(line.hasSuffix("word9"))
    #expect(line.dropFirst(clear.count).count <= 19)
  }

  @Test func srtHasNumberedCuesWithCommaMilliseconds() {
    var renderer = TranscriptRenderer(format: .srt, stdoutIsTerminal: true)
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

  @Test func longUtterancesSplitIntoCuesOfAtMostSevenSecondsAndTwoLinesOf42() {
    // 30 words, one every 0.6 s: 18 s and about 200 characters in one utterance.
    let words = (0..<30).map { index in
      segment("word\(index)", Double(index) * 0.6, ends: index == 29)
    }
    var renderer = TranscriptRenderer(format: .srt, stdoutIsTerminal: false)
    let cues = text(renderer.render(state(words))).split(separator: "\n\n")
    #expect(cues.count > 2)
    var spoken: [String] = []
    for (index, cue) in cues.enumerated() {
      let lines = cue.split(separator: "\n").map(String.init)
      #expect(lines[0] == "\(index + 1)")
      let times = lines[1].split(separator: " --> ").map(seconds)
      #expect(times[1] - times[0] <= 7)
      let textLines = lines.dropFirst(2)
      #expect(textLines.count <= 2)
      #expect(textLines.allSatisfy { $0.count <= 42 })
      spoken += textLines.flatMap { $0.split(separator: " ").map(String.init) }
    }
    #expect(spoken == words.map(\.substring))
  }

  func seconds(_ timestamp: Substring) -> Double {
    let parts = timestamp.split(whereSeparator: { ":,.".contains($0) }).compactMap { Double($0) }
    return parts[0] * 3600 + parts[1] * 60 + parts[2] + parts[3] / 1000
  }

  @Test func vttStartsWithAHeaderAndUsesDots() {
    var renderer = TranscriptRenderer(format: .vtt, stdoutIsTerminal: false)
    let out = text(renderer.render(state([segment("hello", 0.5, ends: true)])))
    #expect(out == "WEBVTT\n\n00:00:00.500 --> 00:00:01.000\nhello\n\n")
  }

  @Test func jsonEndsWithOneFinalLine() {
    var renderer = TranscriptRenderer(format: .json, stdoutIsTerminal: false, label: "a.wav")
    let finished = state([segment("go", 0, ends: true), segment("on", 1)], isFinal: true)
    let lines = text(renderer.render(finished)).split(separator: "\n")
    #expect(lines.count == 3)
    #expect(lines[0].contains(#""type":"utterance""#))
    #expect(lines[0].contains(#""file":"a.wav""#))
    #expect(lines[2].contains(#""type":"final""#))
    #expect(lines[2].contains(#""transcript":"go on""#))
    #expect(text(renderer.render(finished)) == "")
  }

  @Test func jsonTimesAreRoundedToMilliseconds() {
    var renderer = TranscriptRenderer(format: .json, stdoutIsTerminal: false)
    let words = [segment("go", 9.3, duration: 0.48000000000000001, ends: true)]
    let line = text(renderer.render(state(words)))
    #expect(line.contains(#""end":9.78"#), "\(line)")
    #expect(!line.contains("0000000"), "\(line)")
  }
}
