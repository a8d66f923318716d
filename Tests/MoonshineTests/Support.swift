import Foundation
import LiveTestSupport
import Recognition
import Synchronization
import Testing

@testable import Moonshine

/// Whether the tests that need the model can run: ONNX Runtime and the installed model are here.
let isModelInstalled = MoonshineRuntime.isInstalled()

/// The reason shown when the model tests are skipped.
let modelRequirement: Comment =
  "needs ONNX Runtime and the Moonshine model (./scripts/install-dependencies.sh)"

/// The configuration of the installed model.
let installedConfiguration = MoonshineConfiguration()

/// goforward.raw's samples (16 kHz mono s16le).
func goForwardSamples() throws -> [Int16] {
  samples(ofRaw: try Data(contentsOf: SpeechTestData.goForward))
}

/// Little-endian 16-bit samples.
func samples(ofRaw data: Data) -> [Int16] {
  stride(from: 0, to: data.count - 1, by: 2).map {
    Int16(
      bitPattern: UInt16(data[data.startIndex + $0]) | UInt16(data[data.startIndex + $0 + 1]) << 8)
  }
}

/// The samples of a 16-bit PCM WAV file (its `data` chunk).
func samples(ofWAV url: URL) throws -> [Int16] {
  let data = try Data(contentsOf: url)
  var offset = 12
  while offset + 8 <= data.count {
    let id = String(decoding: data[offset..<offset + 4], as: UTF8.self)
    let size = data[offset + 4..<offset + 8].enumerated().reduce(0) {
      $0 | Int($1.element) << (8 * $1.offset)
    }
    if id == "data" {
      return samples(ofRaw: data[offset + 8..<min(data.count, offset + 8 + size)])
    }
    offset += 8 + size + size % 2
  }
  throw CocoaError(.fileReadCorruptFile)
}

/// Samples in [-1, 1], as the model takes them.
func floats(_ samples: [Int16]) -> [Float] {
  samples.map { Float($0) / 32768 }
}

/// The LibriVox clips of pocketsphinx-testdata with their reference transcripts.
func libriVoxClips() throws -> [(samples: [Int16], reference: String)] {
  let directory = SpeechTestData.directory.appendingPathComponent("librivox")
  let lines = try String(
    contentsOf: directory.appendingPathComponent("transcription"), encoding: .utf8
  ).split(separator: "\n")
  return try lines.map { line in
    // "<s> words </s> (file-id)"
    let id = line.split(separator: "(").last!.dropLast()
    let words = line.split(separator: " ").filter { !$0.hasPrefix("<") && !$0.hasPrefix("(") }
    let samples = try samples(ofWAV: directory.appendingPathComponent("\(id).wav"))
    return (samples, words.joined(separator: " "))
  }
}

/// Lower-case words without punctuation, hyphens as spaces, and what Moonshine may write either
/// way ("Mr.", "10", "metres") as the references spell it, for comparing with a reference.
func normalizedWords(_ text: String) -> [String] {
  let spelledOut = ["mr": "mister", "mrs": "missus", "10": "ten", "metres": "meters"]
  let words = text.lowercased().replacingOccurrences(of: "-", with: " ").split(separator: " ")
  return words.compactMap { word -> String? in
    let letters = String(word.filter { $0.isLetter || $0.isNumber || $0 == "'" })
    return letters.isEmpty ? nil : spelledOut[letters] ?? letters
  }
}

/// Feeds `samples` in chunks of `chunk` samples, then finishes, and returns every event.
func stream(
  _ samples: [Int16], to recognizer: MoonshineRecognizer, chunk: Int = 800
) throws -> [RecognitionEvent] {
  var events: [RecognitionEvent] = []
  for start in stride(from: 0, to: samples.count, by: chunk) {
    let piece = Array(samples[start..<min(start + chunk, samples.count)])
    events += try piece.withUnsafeBufferPointer { try recognizer.process($0) }
  }
  if let words = try recognizer.finish(), !words.isEmpty { events.append(.utterance(words)) }
  return events
}

/// The words of the final results, as one normalized string.
func finalText(_ events: [RecognitionEvent]) -> String {
  events.compactMap { event -> String? in
    guard case .utterance(let words) = event else { return nil }
    return words.map(\.text).joined(separator: " ")
  }.joined(separator: " ")
}

/// A temporary directory, removed by the caller.
func temporaryDirectory() throws -> URL {
  let url = FileManager.default.temporaryDirectory.appendingPathComponent(
    "moonshine-tests-\(UUID().uuidString)")
  try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
  return url
}

/// A copy of the installed model's directory (the files symlinked), whose files a test may
/// replace.
func modelCopy() throws -> URL {
  let directory = try temporaryDirectory()
  let files = try MoonshineModelFiles(directory: installedConfiguration.modelDirectory)
  for file in [files.encoder, files.decoder, files.tokenizer] {
    try FileManager.default.createSymbolicLink(
      at: directory.appendingPathComponent(file.lastPathComponent), withDestinationURL: file)
  }
  return directory
}

/// A wall clock that shows what the test says, so audio can arrive "as spoken" or all at once
/// (the time transcriptions take is still the machine's own).
/// A transcription's cost as the release build has it on two cores (real-time factor 0.1), for
/// tests of the pace of looks: with the measured cost, a debug build on a slow machine (0.25 or
/// more) never looks during speech at all with `.balanced`, and such a test would check the
/// machine instead of the rule.
let modelledDecodeCost: @Sendable (Int, TimeInterval) -> TimeInterval = { samples, _ in
  0.1 * Double(samples) / 16_000
}

final class StoppedClock: Sendable {
  private let start = ContinuousClock.now
  private let elapsed = Mutex(Duration.zero)

  func advance(bySamples count: Int) {
    elapsed.withLock { $0 += .seconds(Double(count) / 16_000) }
  }

  @Sendable func now() -> ContinuousClock.Instant {
    start.advanced(by: elapsed.withLock { $0 })
  }
}
