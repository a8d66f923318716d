import ConcurrencyExtras
import Foundation
import LiveTestSupport
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
  static let goForward = SpeechTestData.goForward
  static let cards = SpeechTestData.directory.appendingPathComponent("cards")
  static let isInstalled = SpeechTestData.isInstalled
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

/// Whether the task's thread ends within `limit`, without asking it to stop; if it does not, it
/// is stopped afterwards so it cannot keep recording past the test.
func finishes(_ task: RecognitionTask, within limit: Duration) async -> Bool {
  let isFinished = LockIsolated(false)
  Task {
    await task.waitUntilFinished()
    isFinished.setValue(true)
  }
  let deadline = ContinuousClock.now + limit
  while !isFinished.value, ContinuousClock.now < deadline {
    try? await Task.sleep(for: .milliseconds(10))
  }
  if !isFinished.value { task.stop() }
  return isFinished.value
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

extension TemporaryDirectory {
  /// A file in the directory.
  func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}

/// Converts goforward.raw (16 kHz mono s16le) with sox: `format` options go before the output
/// file (e.g. `-r 44100 -c 2`), `effects` after it (e.g. `pad 0 3`).
func soxConvertGoForward(
  to url: URL, format: [String] = [], effects: [String] = []
) throws {
  try runSox(
    ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", TestData.goForward.path]
      + format + [url.path] + effects)
}
