import Foundation
import SpeechClient

/// A headerless file of 16 kHz mono signed 16-bit little-endian samples, read in chunks.
///
/// ```swift
/// let file = try RawAudioFile(url: URL(fileURLWithPath: "goforward.raw"))
/// while let samples = try file.read() { decode(samples) }
/// ```
public final class RawAudioFile: SampleSource {
  private let url: URL
  private let descriptor: Int32
  private let size: Int
  private var bytesRead = 0

  /// Opens the file.
  ///
  /// - Throws: `SpeechClient.Failure.fileUnreadable` when it cannot be opened.
  public init(url: URL) throws(SpeechClient.Failure) {
    let descriptor = open(url.path, O_RDONLY | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .fileUnreadable(path: url.path, reason: String(cString: strerror(errno)))
    }
    var status = stat()
    guard fstat(descriptor, &status) == 0, status.st_mode & S_IFMT != S_IFDIR else {
      close(descriptor)
      throw .fileUnreadable(path: url.path, reason: "it is a directory")
    }
    self.url = url
    self.descriptor = descriptor
    self.size = Int(status.st_size)
  }

  deinit {
    close(descriptor)
  }

  /// How much of the file has been read, by bytes.
  public var progress: Double? {
    size == 0 ? 1 : min(1, Double(bytesRead) / Double(size))
  }

  /// The length of the whole file in seconds.
  public var totalDuration: TimeInterval? {
    Double(size / 2) / Double(SampleFormat.sampleRate)
  }

  /// Reads the next chunk of 2048 samples (fewer at the end).
  ///
  /// - Throws: `SpeechClient.Failure.fileUnreadable` when reading fails.
  public func read() throws(SpeechClient.Failure) -> [Int16]? {
    var bytes = [UInt8](repeating: 0, count: AudioFile.chunkSize * 2)
    var filled = 0
    while filled < bytes.count {
      let count = bytes.withUnsafeMutableBytes { buffer in
        Foundation.read(descriptor, buffer.baseAddress.map { $0 + filled }, buffer.count - filled)
      }
      if count < 0, errno == EINTR { continue }
      guard count >= 0 else {
        throw .fileUnreadable(path: url.path, reason: String(cString: strerror(errno)))
      }
      if count == 0 { break }
      filled += count
    }
    bytesRead += filled
    guard filled >= 2 else { return nil }
    return (0..<filled / 2).map {
      Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8)
    }
  }
}
