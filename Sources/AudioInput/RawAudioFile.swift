import Foundation

/// A headerless file of 16 kHz mono signed 16-bit little-endian samples, read in chunks.
///
/// The file may be a FIFO, a pipe or standard input that stalls: reads poll in short slices and
/// end as soon as the stop signal is raised.
///
/// ```swift
/// let file = try RawAudioFile(url: URL(fileURLWithPath: "goforward.raw"))
/// while let samples = try file.read() { decode(samples) }
/// ```
public final class RawAudioFile: SampleSource {
  /// The path, or `AudioFile.standardInputName`, for messages.
  private let name: String
  private let reader: InterruptibleReader
  /// The size of a regular file, for progress; `nil` for a stream.
  private let size: Int?
  private var bytesRead = 0
  private var leftoverByte: UInt8?

  /// Opens the file.
  ///
  /// - Parameters:
  ///   - url: a regular file, or a FIFO or device that delivers samples.
  ///   - stopSignal: raising it ends a read that waits for a stalled FIFO.
  /// - Throws: `AudioInputFailure.fileUnreadable` when it cannot be opened.
  public convenience init(url: URL, stopSignal: StopSignal? = nil) throws(AudioInputFailure) {
    // Non-blocking, so opening a FIFO that no writer opened yet returns at once.
    let descriptor = open(url.path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
    guard descriptor >= 0 else {
      throw .fileUnreadable(path: url.path, reason: String(cString: strerror(errno)))
    }
    try self.init(descriptor: descriptor, name: url.path, stopSignal: stopSignal)
  }

  /// Opens standard input (`arecord -f S16_LE -r 16000 | transcribe --raw --input -`).
  ///
  /// - Throws: `AudioInputFailure.fileUnreadable` when it cannot be read.
  public convenience init(standardInput stopSignal: StopSignal?) throws(AudioInputFailure) {
    let descriptor = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
    guard descriptor >= 0 else {
      throw .fileUnreadable(
        path: AudioFile.standardInputName, reason: String(cString: strerror(errno)))
    }
    try self.init(
      descriptor: descriptor, name: AudioFile.standardInputName, stopSignal: stopSignal)
  }

  private init(
    descriptor: Int32, name: String, stopSignal: StopSignal?
  ) throws(AudioInputFailure) {
    var status = stat()
    guard fstat(descriptor, &status) == 0 else {
      let reason = String(cString: strerror(errno))
      close(descriptor)
      throw .fileUnreadable(path: name, reason: reason)
    }
    if status.st_mode & S_IFMT == S_IFDIR {
      close(descriptor)
      throw .fileUnreadable(path: name, reason: "it is a directory")
    }
    self.name = name
    self.reader = InterruptibleReader(
      descriptor: descriptor, stopSignals: stopSignal.map { [$0] } ?? [])
    self.size = status.st_mode & S_IFMT == S_IFREG ? Int(status.st_size) : nil
  }

  deinit {
    close(reader.descriptor)
  }

  /// A stream delivers, after a stop, what it had already taken in; a regular file ends.
  public var drainsWhenStopped: Bool { size == nil }

  /// Raw samples are 16 kHz by definition.
  public var recordedSampleRate: Int? { SampleFormat.sampleRate }

  /// How much of the file has been read, by bytes; `nil` for a stream.
  public var progress: Double? {
    guard let size else { return nil }
    return size == 0 ? 1 : min(1, Double(bytesRead) / Double(size))
  }

  /// The length of the whole file in seconds; `nil` for a stream.
  public var totalDuration: TimeInterval? {
    size.map { Double($0 / 2) / Double(SampleFormat.sampleRate) }
  }

  /// Reads the next chunk of 2048 samples (fewer at the end); `nil` at the end or once stopped.
  ///
  /// - Throws: `AudioInputFailure.fileUnreadable` when reading fails.
  public func read() throws(AudioInputFailure) -> [Int16]? {
    var bytes = [UInt8](repeating: 0, count: AudioFile.chunkSize * 2)
    var offset = 0
    if let leftoverByte {
      bytes[0] = leftoverByte
      offset = 1
      self.leftoverByte = nil
    }
    let start = offset
    let result = bytes.withUnsafeMutableBytes { buffer in
      Result { () throws(InterruptibleReader.Failure) in
        try reader.readFully(into: UnsafeMutableRawBufferPointer(rebasing: buffer[start...]))
      }
    }
    let filled: Int
    switch result {
    case let .success(count): filled = start + count
    case let .failure(error): throw .fileUnreadable(path: name, reason: error.reason)
    }
    bytesRead += filled - start
    // A stream may deliver an odd number of bytes at a time; keep the half sample for later.
    if filled % 2 == 1 { leftoverByte = bytes[filled - 1] }
    guard filled >= 2 else { return nil }
    return (0..<filled / 2).map {
      Int16(bitPattern: UInt16(bytes[2 * $0]) | UInt16(bytes[2 * $0 + 1]) << 8)
    }
  }
}
