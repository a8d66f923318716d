import Foundation
import Hummingbird
import SpeechClient
import Synchronization

@testable import TranscribeServer

/// A multipart/form-data body built by hand, as an HTTP client would send it.
struct MultipartBody {
  static let boundary = "----transcribe-test-boundary"
  static let contentType = "multipart/form-data; boundary=\(boundary)"

  var bytes: [UInt8] = []

  /// Adds a text field.
  mutating func field(_ name: String, _ value: String) {
    append("--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"\r\n\r\n")
    bytes += Array(value.utf8)
    append("\r\n")
  }

  /// Adds a file part.
  mutating func file(_ data: [UInt8], name: String = "file", filename: String = "speech.wav") {
    append(
      "--\(Self.boundary)\r\nContent-Disposition: form-data; name=\"\(name)\"; "
        + "filename=\"\(filename)\"\r\nContent-Type: application/octet-stream\r\n\r\n")
    bytes += data
    append("\r\n")
  }

  /// The body with its closing boundary.
  var buffer: ByteBuffer {
    ByteBuffer(bytes: bytes + Array("--\(Self.boundary)--\r\n".utf8))
  }

  private mutating func append(_ text: String) {
    bytes += Array(text.utf8)
  }

  /// A body with `audio` as the file and `fields`.
  static func upload(_ audio: String, _ fields: [(String, String)] = []) -> ByteBuffer {
    var body = MultipartBody()
    for (name, value) in fields { body.field(name, value) }
    body.file(Array(audio.utf8))
    return body.buffer
  }
}

/// A client that "hears" the words written in an uploaded file: `AUDIO go forward | ten meters`
/// is two utterances; each word lasts 0.4 s, starts 0.5 s after the last, and utterances are a
/// second apart. A file that does not start with `AUDIO ` is unreadable, as libsndfile says of
/// text. It records every file it was asked for, and what it held at the time.
struct ScriptedSpeechClient: Sendable {
  let requested = Requests()
  /// Every request the client was given, in order.
  let requests = ReceivedRequests()
  /// Words' confidence.
  var confidence: Float = 0.5

  var client: SpeechClient {
    let requested = requested
    let requests = requests
    let confidence = confidence
    return SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { request in
        requests.append(request)
        guard case .file(let url) = request.source else {
          return AsyncThrowingStream {
            $0.finish(throwing: SpeechClient.Failure.decoderFailure("not a file"))
          }
        }
        let contents = FileManager.default.contents(atPath: url.path)
        requested.append(url, contents)
        return AsyncThrowingStream { continuation in
          let text = contents.map { String(decoding: $0, as: UTF8.self) } ?? ""
          guard text.hasPrefix("AUDIO ") else {
            continuation.finish(
              throwing: SpeechClient.Failure.fileUnreadable(
                path: url.path, reason: "File contains data in an unknown format"))
            return
          }
          var builder = TranscriptionBuilder()
          var time = 0.0
          for utterance in text.dropFirst(6).split(separator: "|") {
            var words: [TranscriptionSegment] = []
            for word in utterance.split(separator: " ") {
              words.append(
                TranscriptionSegment(
                  substring: String(word), timestamp: time, duration: 0.4,
                  confidence: confidence))
              time += 0.5
            }
            builder.appendUtterance(words)
            time += 1
          }
          continuation.yield(
            SpeechRecognitionResult(
              bestTranscription: builder.transcription, isFinal: true,
              progress: RecognitionProgress(audioDuration: time, totalAudioDuration: time)))
          continuation.finish()
        }
      },
      finishTask: {}
    )
  }
}

/// The files a ``ScriptedSpeechClient`` was asked for, and what each held then.
final class Requests: Sendable {
  private let values = Mutex<[(url: URL, contents: Data?)]>([])

  func append(_ url: URL, _ contents: Data?) {
    values.withLock { $0.append((url, contents)) }
  }

  var all: [(url: URL, contents: Data?)] {
    values.withLock { $0 }
  }
}

/// A client whose task runs until the test opens the gate, and says when it has started.
struct GatedSpeechClient: Sendable {
  let started: AsyncStream<Void>
  private let startedContinuation: AsyncStream<Void>.Continuation
  private let gate: AsyncStream<Void>
  private let gateContinuation: AsyncStream<Void>.Continuation

  init() {
    (started, startedContinuation) = AsyncStream.makeStream()
    (gate, gateContinuation) = AsyncStream.makeStream()
  }

  /// Lets every task finish (with no words).
  func open() {
    gateContinuation.finish()
  }

  var client: SpeechClient {
    let startedContinuation = startedContinuation
    let gate = gate
    return SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { _ in
        AsyncThrowingStream { continuation in
          let task = Task {
            startedContinuation.yield()
            for await _ in gate {}
            continuation.finish()
          }
          continuation.onTermination = { _ in task.cancel() }
        }
      },
      finishTask: {}
    )
  }
}

/// A directory of its own for a test's uploads, removed when the test ends.
final class UploadDirectory: Sendable {
  let url: URL

  init() throws {
    url = FileManager.default.temporaryDirectory.appendingPathComponent(
      "transcribe-server-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  }

  deinit {
    try? FileManager.default.removeItem(at: url)
  }

  /// The files in it now.
  var files: [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: url.path)) ?? []
  }
}

extension TranscriptionServer {
  /// An application with only the transcription routes, whose uploads go to `directory`.
  func transcriptionApplication(uploadsIn directory: URL) -> some ApplicationProtocol {
    let router = Router()
    OpenAIController(core: core, temporaryDirectory: directory).addRoutes(to: router)
    return Application(router: router)
  }
}

/// The decoded OpenAI error of a response.
func openAIError(_ body: ByteBuffer) throws -> OpenAIErrorBody.Detail {
  try JSONDecoder().decode(OpenAIErrorBody.self, from: Data(body.readableBytesView)).error
}

/// The requests a ``ScriptedSpeechClient`` was given, in order.
final class ReceivedRequests: Sendable {
  private let values = Mutex<[SpeechRecognitionRequest]>([])

  func append(_ request: SpeechRecognitionRequest) {
    values.withLock { $0.append(request) }
  }

  var all: [SpeechRecognitionRequest] { values.withLock { $0 } }
}
