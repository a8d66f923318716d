import Foundation
import SpeechClient
import Testing

@testable import SpeechClientLive

/// All of this target's suites, one test at a time.
///
/// The live-path tests measure time (no server reported within 2 s, words a second after they
/// were spoken), which they cannot keep while other tests decode files at full speed on the same
/// two cores.
@Suite(.serialized) enum LiveTests {}

/// pocketsphinx-testdata's files.
enum TestData {
  static let directory = URL(fileURLWithPath: "/usr/share/pocketsphinx/test/data")
  static let goForward = directory.appendingPathComponent("goforward.raw")
  static let cards = directory.appendingPathComponent("cards")
  static let isInstalled = FileManager.default.fileExists(atPath: goForward.path)
}

/// What a task delivered: its results and the error that ended it, if any.
struct Outcome {
  var results: [SpeechRecognitionResult] = []
  var error: (any Error)?
  var failure: SpeechClient.Failure? { error as? SpeechClient.Failure }
  var last: SpeechRecognitionResult? { results.last }
  var text: String? { last?.bestTranscription.formattedString }
}

/// Reads a stream to its end.
func collect(
  _ stream: AsyncThrowingStream<SpeechRecognitionResult, any Error>
) async -> Outcome {
  var outcome = Outcome()
  do {
    for try await result in stream { outcome.results.append(result) }
  } catch {
    outcome.error = error
  }
  return outcome
}

/// Starts a task, runs `during` while collecting the results, then finishes the task, also when
/// `during` throws (a task left running would keep recording forever), and returns the results.
func listen(
  _ client: SpeechClient,
  _ request: SpeechRecognitionRequest = SpeechRecognitionRequest(),
  during: () async throws -> Void
) async throws -> Outcome {
  let stream = await client.startTask(request)
  let listening = Task { await collect(stream) }
  do {
    try await during()
  } catch {
    await client.finishTask()
    _ = await listening.value
    throw error
  }
  await client.finishTask()
  return await listening.value
}

/// Transcribes a file with a fresh live client.
func transcribe(
  _ source: SpeechRecognitionRequest.AudioSource,
  model: SpeechRecognitionRequest.Model = .default,
  configuration: LiveSpeechConfiguration = .init()
) async -> Outcome {
  let client = SpeechClient.live(configuration)
  return await collect(
    await client.startTask(SpeechRecognitionRequest(source: source, model: model)))
}

/// A temporary directory removed when the value is released.
final class TemporaryDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory
      .appendingPathComponent("speechclientlive-\(UUID().uuidString.prefix(8))")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Runs a command and returns its standard output; throws if it fails.
@discardableResult
func run(
  _ executable: String, _ arguments: [String], environment: [String: String]? = nil
) throws -> String {
  let process = Process()
  process.executableURL = URL(fileURLWithPath: executable)
  process.arguments = arguments
  if let environment {
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
  }
  let output = Pipe()
  let errors = Pipe()
  process.standardOutput = output
  process.standardError = errors
  try process.run()
  let data = output.fileHandleForReading.readDataToEndOfFile()
  let errorData = errors.fileHandleForReading.readDataToEndOfFile()
  process.waitUntilExit()
  guard process.terminationStatus == 0 else {
    throw CommandFailed(
      command: ([executable] + arguments).joined(separator: " "),
      status: process.terminationStatus,
      stderr: String(decoding: errorData, as: UTF8.self))
  }
  return String(decoding: data, as: UTF8.self)
}

struct CommandFailed: Error, CustomStringConvertible {
  var command: String
  var status: Int32
  var stderr: String
  var description: String { "\(command) exited \(status): \(stderr)" }
}

/// Converts goforward.raw (16 kHz mono s16le) with sox: `format` options go before the output
/// file (e.g. `-r 44100 -c 2`), `effects` after it (e.g. `pad 0 3`).
func soxConvertGoForward(
  to url: URL, format: [String] = [], effects: [String] = []
) throws {
  try run(
    "/usr/bin/sox",
    ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", TestData.goForward.path]
      + format + [url.path] + effects)
}
