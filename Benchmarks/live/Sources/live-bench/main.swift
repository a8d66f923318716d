// live-bench: drives SpeechClientLive for Benchmarks/live/run.sh.
//
//   live-bench FILE...            transcribe each file; print its final text, one line per file
//                                 (.raw files are read as 16 kHz mono s16le)
//   live-bench --grammar G FILE   the same with a JSGF grammar
//   live-bench --latency SERVER WAV
//                                 play WAV into the PulseAudio server's default sink with paplay
//                                 while transcribing its default source; print, per word, how
//                                 long after the word was spoken it first appeared, and how long
//                                 after the speech ended the final words came
import Foundation
import SpeechClient
import SpeechClientLive

func fail(_ message: String) -> Never {
  FileHandle.standardError.write(Data("live-bench: \(message)\n".utf8))
  exit(1)
}

func transcribe(_ url: URL, model: SpeechRecognitionRequest.Model) async throws
  -> SpeechRecognitionResult?
{
  let source: SpeechRecognitionRequest.AudioSource =
    url.pathExtension == "raw" ? .rawFile(url) : .file(url)
  var last: SpeechRecognitionResult?
  for try await result in await SpeechClient.live().startTask(
    SpeechRecognitionRequest(source: source, model: model, shouldReportPartialResults: false))
  {
    last = result
  }
  return last
}

func latency(server: String, wav: URL) async throws {
  // Where each word ends in the file, from decoding the file itself.
  guard let reference = try await transcribe(wav, model: .default) else { fail("no words") }
  let words = reference.bestTranscription.segments
  guard let speechEnd = words.last.map({ $0.timestamp + $0.duration }) else { fail("no words") }

  let client = SpeechClient.live(LiveSpeechConfiguration(server: server))
  let stream = await client.startTask(SpeechRecognitionRequest())
  try await Task.sleep(for: .seconds(1))  // let the model load before the speech starts

  let player = Process()
  player.executableURL = URL(fileURLWithPath: "/usr/bin/paplay")
  player.arguments = [wav.path]
  player.environment = ProcessInfo.processInfo.environment.merging(["PULSE_SERVER": server]) {
    $1
  }
  let clock = ContinuousClock()
  try player.run()
  let start = clock.now

  var firstSeen: [Int: Duration] = [:]
  var finalAt: Duration?
  let deadline = Task {
    try await Task.sleep(for: .seconds(speechEnd + 4))
    await client.finishTask()
  }
  for try await result in stream {
    let now = clock.now - start
    let segments = result.bestTranscription.segments
    for (index, word) in words.enumerated() where firstSeen[index] == nil {
      if index < segments.count, segments[index].substring == word.substring {
        firstSeen[index] = now
      }
    }
    let isUtteranceEnd =
      !segments.isEmpty && segments.allSatisfy { $0.confidence > 0 } && !result.isFinal
    if finalAt == nil, isUtteranceEnd, segments.count >= words.count { finalAt = now }
  }
  deadline.cancel()
  player.waitUntilExit()

  func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
  }
  for (index, word) in words.enumerated() {
    let spokenBy = word.timestamp + word.duration
    let shown = firstSeen[index].map { String(format: "%.2f", seconds($0) - spokenBy) } ?? "never"
    print("word\t\(word.substring)\tend \(String(format: "%.2f", spokenBy)) s\tshown after \(shown) s")
  }
  let final = finalAt.map { String(format: "%.2f", seconds($0) - speechEnd) } ?? "never"
  print("final\tspeech end \(String(format: "%.2f", speechEnd)) s\tfinal words after \(final) s")
}

var arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == "--latency" {
  guard arguments.count == 3 else { fail("usage: live-bench --latency SERVER WAV") }
  try await latency(server: arguments[1], wav: URL(fileURLWithPath: arguments[2]))
  exit(0)
}
var model = SpeechRecognitionRequest.Model.default
if arguments.first == "--grammar" {
  guard arguments.count >= 2 else { fail("usage: live-bench --grammar GRAMMAR FILE...") }
  model = .grammar(URL(fileURLWithPath: arguments[1]))
  arguments.removeFirst(2)
}
guard !arguments.isEmpty else { fail("usage: live-bench [--grammar G] FILE...") }
for path in arguments {
  do {
    let result = try await transcribe(URL(fileURLWithPath: path), model: model)
    print(result?.bestTranscription.formattedString ?? "")
  } catch {
    fail("\(path): \(error)")
  }
}
