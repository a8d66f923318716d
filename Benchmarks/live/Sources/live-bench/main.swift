// live-bench: drives SpeechClientLive for Benchmarks/live/run.sh.
//
//   live-bench FILE...            transcribe each file; print its final text, one line per file
//                                 (.raw files are read as 16 kHz mono s16le); the files are
//                                 decoded as one batch on the decoder pool, in parallel
//   live-bench --jobs N FILE...   the same with N decoders (default: the number of cores)
//   live-bench --grammar G FILE   the same with a JSGF grammar
//   live-bench --engine moonshine FILE...
//                                 the same with Moonshine (default: pocketsphinx)
//   live-bench --latency SERVER WAV [ENGINE]
//                                 play WAV into the PulseAudio server's default sink with paplay
//                                 while transcribing its default source with ENGINE (default
//                                 pocketsphinx); print, per word, how long after the word was
//                                 spoken the word's place first showed a word, and per utterance
//                                 how long after it ended its final words came. Where words and
//                                 utterances end is measured by pocketsphinx decoding the file
//                                 (Moonshine's word times are estimates).
import Foundation
import SpeechClient
import SpeechClientLive

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("live-bench: \(message)\n".utf8))
  exit(1)
}

func transcribe(
  _ url: URL, engine: SpeechRecognitionRequest.Engine
) async throws
  -> [SpeechRecognitionResult]
{
  let source: SpeechRecognitionRequest.AudioSource =
    url.pathExtension == "raw" ? .rawFile(url) : .file(url)
  var results: [SpeechRecognitionResult] = []
  for try await result in await SpeechClient.live().startTask(
    SpeechRecognitionRequest(source: source, engine: engine, shouldReportPartialResults: false))
  {
    results.append(result)
  }
  return results
}

func seconds(_ duration: Duration) -> Double {
  Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

func format(_ value: Double) -> String { String(format: "%.2f", value) }

/// A word as the references write it: lower case, no punctuation, "10" as "ten".
func spoken(_ word: String) -> String {
  let letters = String(word.lowercased().filter { $0.isLetter || $0.isNumber || $0 == "'" })
  return letters == "10" ? "ten" : letters
}

func latency(
  server: String, wav: URL, engine: SpeechRecognitionRequest.EngineName
) async throws {
  // Where the words and utterances end in the file, from decoding the file itself: without
  // partial results, every result but the last is the end of an utterance.
  let reference = try await transcribe(wav, engine: .pocketsphinx())
  guard let words = reference.last?.bestTranscription.segments, !words.isEmpty else {
    fail("no words in \(wav.path)")
  }
  var utteranceEnds: [(wordCount: Int, end: Double)] = []
  for result in reference.dropLast() {
    let segments = result.bestTranscription.segments
    if let last = segments.last, segments.count > (utteranceEnds.last?.wordCount ?? 0) {
      utteranceEnds.append((segments.count, last.timestamp + last.duration))
    }
  }
  let speechEnd = words.last.map { $0.timestamp + $0.duration } ?? 0

  let client = SpeechClient.live(LiveSpeechConfiguration(server: server))
  let stream = await client.startTask(SpeechRecognitionRequest(engine: engine.defaultEngine))
  try await Task.sleep(for: .seconds(2))  // let the model load before the speech starts

  let player = Process()
  player.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
  player.arguments = [wav.path]
  player.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": server]) {
    $1
  }
  let clock = ContinuousClock()
  try player.run()
  let start = clock.now

  var firstSeen: [Int: Double] = [:]
  var utteranceSeen: [Int: Double] = [:]
  let deadline = Task {
    try await Task.sleep(for: .seconds(speechEnd + 4))
    await client.finishTask()
  }
  for try await result in stream {
    let now = seconds(clock.now - start)
    // A word is shown once its place holds it, written as the reference writes it ("10" and
    // "Ten." are "ten"): a partial result may guess a word before it is spoken, which counts.
    let segments = result.bestTranscription.segments
    for (index, word) in words.enumerated() where firstSeen[index] == nil {
      if index < segments.count, spoken(segments[index].substring) == spoken(word.substring) {
        firstSeen[index] = now
      }
    }
    // An utterance's final words are in once the transcript holds that many finished ones.
    let finished = result.bestTranscription.finishedUtterances.count
    for index in utteranceEnds.indices where utteranceSeen[index] == nil && index < finished {
      utteranceSeen[index] = now
    }
  }
  deadline.cancel()
  player.waitUntilExit()

  for (index, word) in words.enumerated() {
    let spokenBy = word.timestamp + word.duration
    let shown = firstSeen[index].map { format($0 - spokenBy) } ?? "never"
    print("word\t\(word.substring)\tends \(format(spokenBy)) s\tshown \(shown) s after")
  }
  for (index, utterance) in utteranceEnds.enumerated() {
    let final = utteranceSeen[index].map { format($0 - utterance.end) } ?? "never"
    print("utterance\t\(index + 1)\tends \(format(utterance.end)) s\tfinal \(final) s after")
  }
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--latency" {
  guard (3...4).contains(arguments.count),
    let engine = SpeechRecognitionRequest.EngineName(
      rawValue: arguments.count == 4 ? arguments[3] : "pocketsphinx")
  else { fail("usage: live-bench --latency SERVER WAV [moonshine|pocketsphinx]") }
  try await latency(server: arguments[1], wav: URL(fileURLWithPath: arguments[2]), engine: engine)
  exit(0)
}
var engine = SpeechRecognitionRequest.Engine.pocketsphinx()
var configuration = LiveSpeechConfiguration()
while let option = arguments.first, option.hasPrefix("--") {
  guard arguments.count >= 2 else {
    fail("usage: live-bench [--jobs N] [--grammar G] [--engine E] FILE...")
  }
  switch option {
  case "--grammar": engine = .pocketsphinx(.grammar(URL(fileURLWithPath: arguments[1])))
  case "--engine":
    guard let name = SpeechRecognitionRequest.EngineName(rawValue: arguments[1]) else {
      fail("--engine is moonshine or pocketsphinx")
    }
    engine = name.defaultEngine
  case "--jobs":
    guard let jobs = Int(arguments[1]), jobs > 0 else { fail("--jobs needs a positive number") }
    configuration.jobs = jobs
  default: fail("unknown option \(option)")
  }
  arguments.removeFirst(2)
}
guard !arguments.isEmpty else {
  fail("usage: live-bench [--jobs N] [--grammar G] [--engine E] FILE...")
}
let requests = arguments.map { path in
  let url = URL(fileURLWithPath: path)
  return SpeechRecognitionRequest(
    source: url.pathExtension == "raw" ? .rawFile(url) : .file(url), engine: engine,
    shouldReportPartialResults: false)
}
let batch = FileRecognitionBatch(requests, configuration: configuration)
for (index, (path, request)) in zip(arguments, requests).enumerated() {
  do {
    var last: SpeechRecognitionResult?
    for try await result in await batch.client(at: index).startTask(request) { last = result }
    print(last?.bestTranscription.formattedString ?? "")
  } catch {
    fail("\(path): \(error)")
  }
}
