// The cost of a long session: a synthetic speech client delivers a whole input's results as fast
// as it can, through the `SpeechRecognition` store, to a consumer that reads each state the way
// `transcribe`'s renderer does (the new finished utterances and the partial words). Reported per
// second of audio, for a 1-minute and a 2-hour input, with the process's peak memory; and, for
// contrast, the cost of results that copy the whole transcript (the model before shared
// utterances).
//
//   swift run -c release --package-path Benchmarks SessionBenchmarks [minutes...]

import Architecture
import Dependencies
import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// Speech at 2.5 words per second, utterances of 8 words, a partial result for every word.
enum Synthetic {
  static let wordsPerSecond = 2.5
  static let wordsPerUtterance = 8
  static let vocabulary = SpeechClient.loremWords

  static func word(_ index: Int) -> TranscriptionSegment {
    TranscriptionSegment(
      substring: vocabulary[index % vocabulary.count],
      timestamp: Double(index) / wordsPerSecond, duration: 0.3, confidence: 0.9)
  }

  /// A client that delivers `minutes` of audio's results at once.
  static func client(minutes: Double) -> SpeechClient {
    let total = minutes * 60
    let wordCount = Int(total * wordsPerSecond)
    return SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { _ in
        AsyncThrowingStream(bufferingPolicy: .unbounded) { continuation in
          Task.detached {
            var builder = TranscriptionBuilder()
            for index in 0..<wordCount {
              builder.partialSegments.append(word(index))
              if builder.partialSegments.count == wordsPerUtterance {
                builder.appendUtterance(builder.partialSegments)
              }
              continuation.yield(
                SpeechRecognitionResult(
                  bestTranscription: builder.transcription, isFinal: false,
                  progress: RecognitionProgress(
                    audioDuration: Double(index) / wordsPerSecond, totalAudioDuration: total)))
              // Let the consumer keep up, as a decoder slower than the host does; every result
              // reaches the store (the live client bounds its buffer; this measures each result).
              if index % 64 == 0 { await Task.yield() }
            }
            builder.appendUtterance(builder.partialSegments)
            continuation.yield(
              SpeechRecognitionResult(bestTranscription: builder.transcription, isFinal: true))
            continuation.finish()
          }
        }
      },
      finishTask: {}
    )
  }
}

/// Reads states the way the renderer does; returns the characters it "wrote".
@MainActor
func runSession(minutes: Double) async -> (characters: Int, states: Int) {
  let store = Store(
    initialState: SpeechRecognition.State(
      request: SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: "/synthetic"))))
  ) {
    SpeechRecognition()
  } withDependencies: {
    $0.speechClient = Synthetic.client(minutes: minutes)
  }
  let states = store.states
  store.send(.recordButtonTapped)
  var written = 0
  var characters = 0
  var count = 0
  for await state in states {
    count += 1
    if let result = state.result {
      let utterances = result.bestTranscription.finishedUtterances
      while written < utterances.count {
        characters += utterances[written].map(\.substring).joined(separator: " ").count + 1
        written += 1
      }
      characters +=
        result.bestTranscription.partialSegments.map(\.substring)
        .joined(separator: " ").count
    }
    if state.outcome != nil { break }
  }
  return (characters, count)
}

/// The old model: every result carried a copy of all segments and the whole text.
func runCopying(minutes: Double) -> Int {
  let wordCount = Int(minutes * 60 * Synthetic.wordsPerSecond)
  var segments: [TranscriptionSegment] = []
  var checksum = 0
  for index in 0..<wordCount {
    segments.append(Synthetic.word(index))
    let copy = segments
    let text = copy.map(\.substring).joined(separator: " ")
    checksum &+= text.utf8.count
  }
  return checksum
}

func peakResidentMegabytes() -> Double {
  guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8),
    let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
    let kilobytes = Double(line.split(separator: " ").dropFirst().first ?? "")
  else { return 0 }
  return kilobytes / 1024
}

func cpuSeconds() -> Double {
  var usage = rusage()
  getrusage(RUSAGE_SELF.rawValue, &usage)
  return Double(usage.ru_utime.tv_sec) + Double(usage.ru_utime.tv_usec) / 1e6
    + Double(usage.ru_stime.tv_sec) + Double(usage.ru_stime.tv_usec) / 1e6
}

let arguments = CommandLine.arguments.dropFirst()
let mode = arguments.first == "--copying" ? "copying" : "shared"
let minutesList =
  arguments.compactMap(Double.init).isEmpty ? [1, 120] : arguments.compactMap(Double.init)

print("mode: \(mode)   (2.5 words/s, 8-word utterances, one result per word)")
for minutes in minutesList {
  let cpuBefore = cpuSeconds()
  let start = ContinuousClock.now
  let detail: String
  if mode == "copying" {
    detail = "checksum \(runCopying(minutes: minutes))"
  } else {
    let (characters, states) = await runSession(minutes: minutes)
    detail = "\(states) states, \(characters) characters rendered"
  }
  let wall = ContinuousClock.now - start
  let cpu = cpuSeconds() - cpuBefore
  let audioSeconds = minutes * 60
  let wallSeconds =
    Double(wall.components.seconds) + Double(wall.components.attoseconds) / 1e18
  print(
    String(
      format: "%7.1f min of audio: %8.3f s wall, %8.3f s CPU, %7.1f µs CPU per audio second, "
        + "peak RSS %6.1f MB; %@",
      minutes, wallSeconds, cpu, cpu / audioSeconds * 1e6, peakResidentMegabytes(), detail))
}
