// A day of dictation in memory: 8 hours of synthetic utterances through the `Dictation` reducer
// (with a keyboard that types instantly) and `transcribe dictate`'s renderer (the executable's
// own `DictationRenderer.swift`, linked into this target), as fast as they go. Prints the
// process's resident memory (VmRSS) at every hour of audio; the figure that matters is the
// growth from hour 1 to hour 8 (issue 50's target: at most 5 MiB).
//
//   swift run -c release --package-path Benchmarks DictationMemoryBenchmarks [hours]
//     [--pause-every MINUTES] [--keep-all] [--keep-transcript]
//
// Speech: 2.5 words per second without a break, utterances of 8 words, a partial result for
// every word (so 9,000 results and 1,125 typed utterances an hour). By default one speech
// session runs for the whole time (a dictation never paused); `--pause-every M` pauses and
// resumes it every M minutes of audio, as a hotkey would. The speech session's transcript keeps
// what `transcribe dictate` asks the live client for (`Dictation.keptUtterances`, through
// `SpeechRecognitionRequest.keptUtterances`). For comparison, `--keep-all` keeps every entry (as
// before issue 50: `keptEntries` unbounded) and every utterance of the transcript,
// `--keep-transcript` every utterance of the transcript only (as before `keptUtterances`).

import Architecture
import Dependencies
import DictationFeature
import Foundation
import KeyboardClient
import SpeechClient
import SpeechRecognitionFeature

enum Synthetic {
  static let wordsPerSecond = 2.5
  static let wordsPerUtterance = 8
  static let vocabulary = SpeechClient.loremWords

  static func word(_ index: Int) -> TranscriptionSegment {
    let text = vocabulary[index % vocabulary.count]
    let last = (index + 1) % wordsPerUtterance == 0
    return TranscriptionSegment(
      substring: last ? text + "." : text, timestamp: Double(index) / wordsPerSecond,
      duration: 0.3, confidence: 0.9, endsUtterance: last)
  }
}

/// The speech sessions' streams, handed to the benchmark as the store starts each.
final class Sessions: @unchecked Sendable {
  private let lock = NSLock()
  private var continuations:
    [AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation] =
      []

  func start() -> AsyncThrowingStream<SpeechRecognitionResult, any Error> {
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    lock.withLock { continuations.append(continuation) }
    return stream
  }

  var current: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation? {
    lock.withLock { continuations.last }
  }

  func finishCurrent() {
    lock.withLock { continuations.last?.finish() }
  }
}

func residentMebibytes() -> Double {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }),
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
  else { return 0 }
  return kilobytes / 1024
}

/// Waits (letting the store's effects run) until `condition` holds.
@MainActor
func settle(_ condition: () -> Bool) async {
  while !condition() { await Task.yield() }
}

@MainActor
func run(hours: Int, pauseEveryMinutes: Double?, keepAll: Bool, keepTranscript: Bool) async {
  let sessions = Sessions()
  var initialState = Dictation.State(
    speech: SpeechRecognition.State(request: SpeechRecognitionRequest(source: .microphone)))
  if keepAll { initialState.keptEntries = .max }
  let store = Store(initialState: initialState) {
    Dictation()
  } withDependencies: {
    $0.speechClient = SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { _ in sessions.start() },
      finishTask: { sessions.finishCurrent() })
    $0.keyboardClient = KeyboardClient(type: { _ in }, erase: { _ in }, finish: {})
  }
  var renderer = DictationRenderer(
    isTerminal: false, stderrIsTerminal: false, keyboardWritesStandardOutput: false)
  var rendered = 0
  func render() {
    for output in renderer.render(store.state) {
      if case .stdout(let text) = output { rendered &+= text.utf8.count }
    }
  }

  store.send(.start)
  await settle { store.state.speech.status == .recording }
  let wordsPerHour = Int(3600 * Synthetic.wordsPerSecond)
  let pauseEvery = pauseEveryMinutes.map { Int($0 * 60 * Synthetic.wordsPerSecond) }
  // As the live client builds the results of `transcribe dictate`'s request.
  let keptUtterances = keepAll || keepTranscript ? nil : Dictation.keptUtterances
  var builder = TranscriptionBuilder(keepingLast: keptUtterances)
  var typed = 0
  let start = ContinuousClock.now
  print("hour  RSS (MiB)  entries  reported  utterances typed   wall")
  for index in 0..<(hours * wordsPerHour) {
    let segment = Synthetic.word(index)
    if segment.endsUtterance {
      builder.appendUtterance(builder.partialSegments + [segment])
      builder.partialSegments = []
    } else {
      builder.partialSegments.append(segment)
    }
    let count = index + 1
    let transcription = builder.transcription
    sessions.current?.yield(
      SpeechRecognitionResult(bestTranscription: transcription, isFinal: false))
    await settle { store.state.speech.result?.bestTranscription == transcription }
    if segment.endsUtterance {
      typed += 1
      // Typed: the keyboard answers at once, the reducer marks it.
      await settle { !store.state.entries.contains { $0.status == .waiting } }
    }
    render()
    if let pauseEvery, count % pauseEvery == 0 {
      store.send(.pause)
      await settle { store.state.speech.status == .idle }
      render()
      builder = TranscriptionBuilder(keepingLast: keptUtterances)
      store.send(.resume)
      await settle { store.state.speech.status == .recording }
    }
    if count % wordsPerHour == 0 {
      let wall = ContinuousClock.now - start
      print(
        String(
          format: "%4d  %9.1f  %7d  %8d  %16d  %5.0f s", count / wordsPerHour,
          residentMebibytes(), store.state.entries.count, renderer.reported.count, typed,
          Double(wall.components.seconds)))
    }
  }
  store.send(.stop)
  await settle { store.state.isFinished }
  print("rendered \(rendered) bytes")
}

let arguments = Array(CommandLine.arguments.dropFirst())
let hours = arguments.first.flatMap(Int.init) ?? 8
let pauseEvery = arguments.firstIndex(of: "--pause-every").flatMap {
  arguments.indices.contains($0 + 1) ? Double(arguments[$0 + 1]) : nil
}
print(
  "\(hours) h of dictation, 2.5 words/s, 8-word utterances, a result per word"
    + (pauseEvery.map { ", paused and resumed every \($0) min" } ?? ", one speech session")
    + (arguments.contains("--keep-all")
      ? ", every entry and utterance kept"
      : arguments.contains("--keep-transcript") ? ", every utterance kept" : ""))
await run(
  hours: hours, pauseEveryMinutes: pauseEvery, keepAll: arguments.contains("--keep-all"),
  keepTranscript: arguments.contains("--keep-transcript"))
