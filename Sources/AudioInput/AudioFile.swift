import CSampleRate
import CSndFile
import Foundation

/// An audio file in any format libsndfile reads (WAV, FLAC, OGG, AIFF, …), at any sample rate
/// and channel count, delivered as 16 kHz mono chunks.
///
/// Channels are averaged into one; other rates are converted with libsamplerate. The file is
/// streamed in chunks, so its length does not matter. A file whose header promises more audio
/// than it holds, or whose data stops decoding, is reported as truncated after the readable
/// audio has been delivered.
///
/// Regular files are read directly. A FIFO, a pipe or standard input may stall forever; those
/// are read through libsndfile's virtual I/O with polling reads, so raising the stop signal ends even a read that waits
/// for a writer who went quiet (or never came).
///
/// ```swift
/// let file = try AudioFile(url: URL(fileURLWithPath: "talk.flac"))
/// while let samples = try file.read() { decode(samples) }
/// ```
public final class AudioFile: SampleSource {
  /// Samples per chunk at 16 kHz, as `pocketsphinx_continuous -infile` reads.
  static let chunkSize = 2048
  /// Frames read from the file at a time, at its own rate.
  private static let blockFrames = 4096
  /// How standard input is named in messages.
  public static let standardInputName = "standard input"

  /// The path, or ``standardInputName``, for messages.
  private let name: String
  private let file: OpaquePointer
  private let info: SF_INFO
  private let resampler: Resampler?
  /// The stream libsndfile reads through virtual I/O; `nil` for a regular file.
  private let stream: StreamInput?
  private let stopSignal: StopSignal?
  private var framesRead: Int64 = 0
  private var pending: [Int16] = []
  private var isAtEnd = false
  /// What to report once the readable audio has been delivered.
  private var failureAtEnd: AudioInputFailure?

  /// Opens the file.
  ///
  /// - Parameters:
  ///   - url: a regular file, or a FIFO or device that delivers an audio file's bytes.
  ///   - stopSignal: raising it ends a read that waits for a stalled FIFO.
  /// - Throws: `AudioInputFailure.fileUnreadable` when the file is missing, a directory, not
  ///   audio, or has no audio in it.
  public convenience init(url: URL, stopSignal: StopSignal? = nil) throws(AudioInputFailure) {
    let path = url.path
    var status = stat()
    if stat(path, &status) == 0, status.st_mode & S_IFMT != S_IFREG {
      if status.st_mode & S_IFMT == S_IFDIR {
        throw .fileUnreadable(path: path, reason: "it is a directory")
      }
      // Non-blocking, so opening a FIFO that no writer opened yet returns at once.
      let descriptor = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
      guard descriptor >= 0 else {
        throw .fileUnreadable(path: path, reason: String(cString: strerror(errno)))
      }
      try self.init(stream: descriptor, name: path, stopSignal: stopSignal)
      return
    }
    var info = SF_INFO()
    guard let file = sf_open(path, Int32(SFM_READ), &info) else {
      // libsndfile refuses a WAV header that says 0 Hz with words about its own structures.
      if Self.declaredWAVSampleRate(at: path) == 0 {
        throw .fileUnreadable(path: path, reason: Self.unusableSampleRate("is 0 Hz"))
      }
      throw .fileUnreadable(path: path, reason: String(cString: sf_strerror(nil)))
    }
    try self.init(file: file, info: info, name: path, stream: nil, stopSignal: stopSignal)
  }

  /// Opens standard input: a pipe (`sox … -t wav - | transcribe --input -`) or a redirected
  /// file.
  ///
  /// - Throws: `AudioInputFailure.fileUnreadable` naming ``standardInputName`` when it holds
  ///   no audio libsndfile reads.
  public convenience init(standardInput stopSignal: StopSignal?) throws(AudioInputFailure) {
    let name = Self.standardInputName
    let descriptor = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 0)
    guard descriptor >= 0 else {
      throw .fileUnreadable(path: name, reason: String(cString: strerror(errno)))
    }
    var status = stat()
    if fstat(descriptor, &status) == 0, status.st_mode & S_IFMT == S_IFREG {
      var info = SF_INFO()
      guard let file = sf_open_fd(descriptor, Int32(SFM_READ), &info, 1) else {
        close(descriptor)
        throw .fileUnreadable(path: name, reason: String(cString: sf_strerror(nil)))
      }
      try self.init(file: file, info: info, name: name, stream: nil, stopSignal: stopSignal)
      return
    }
    try self.init(stream: descriptor, name: name, stopSignal: stopSignal)
  }

  /// Opens a stream that may stall through libsndfile's virtual I/O; the stream closes
  /// `descriptor`.
  private convenience init(
    stream descriptor: Int32, name: String, stopSignal: StopSignal?
  ) throws(AudioInputFailure) {
    let stream = StreamInput(descriptor: descriptor, stopSignal: stopSignal)
    var info = SF_INFO()
    var virtualIO = StreamInput.virtualIO
    // libsndfile copies the callbacks; `stream` is kept alive by the file's `stream` property.
    guard
      let file = sf_open_virtual(
        &virtualIO, Int32(SFM_READ), &info, Unmanaged.passUnretained(stream).toOpaque())
    else {
      throw .fileUnreadable(
        path: name, reason: stream.failure ?? String(cString: sf_strerror(nil)))
    }
    try self.init(file: file, info: info, name: name, stream: stream, stopSignal: stopSignal)
  }

  private init(
    file: OpaquePointer, info: SF_INFO, name: String, stream: StreamInput?,
    stopSignal: StopSignal?
  ) throws(AudioInputFailure) {
    // A stream's length is unknown (libsndfile may say 0 or "as long as it gets").
    guard info.channels > 0, info.samplerate > 0, info.frames > 0 || stream != nil else {
      Self.release(file)
      throw .fileUnreadable(path: name, reason: "the file holds no audio")
    }
    guard Self.convertibleSampleRates.contains(Int(info.samplerate)) else {
      Self.release(file)
      throw .fileUnreadable(
        path: name, reason: Self.unusableSampleRate("is \(info.samplerate) Hz"))
    }
    let resampler: Resampler?
    if Int(info.samplerate) == SampleFormat.sampleRate {
      resampler = nil
    } else {
      do {
        resampler = try Resampler(
          ratio: Double(SampleFormat.sampleRate) / Double(info.samplerate))
      } catch {
        Self.release(file)
        throw .fileUnreadable(path: name, reason: error.reason)
      }
    }
    self.name = name
    self.file = file
    self.info = info
    self.resampler = resampler
    self.stream = stream
    self.stopSignal = stopSignal
    if stream == nil, let (declared, actual) = Self.dataLengthMismatch(in: file) {
      self.failureAtEnd = .fileUnreadable(
        path: name,
        reason: "the file is truncated: its header declares \(declared) bytes of audio, "
          + "it holds \(actual)")
    }
  }

  deinit {
    Self.release(file)
  }

  private static func release(_ file: OpaquePointer) {
    sf_close(file)
  }

  /// A stream delivers, after a stop, what it had already taken in (the words heard so far);
  /// a regular file simply ends.
  public var drainsWhenStopped: Bool { stream != nil }

  /// The file's own sample rate, in Hz.
  public var recordedSampleRate: Int? { Int(info.samplerate) }

  /// How much of the file has been read, by frames at its own rate.
  public var progress: Double? {
    guard stream == nil else { return nil }
    return min(1, Double(framesRead) / Double(info.frames))
  }

  /// The length of the whole file in seconds; `nil` for a stream, whose header may declare any
  /// length (a writer that cannot seek often says "as long as it gets").
  public var totalDuration: TimeInterval? {
    guard stream == nil else { return nil }
    return Double(info.frames) / Double(info.samplerate)
  }

  /// Reads the next chunk of 2048 samples (fewer at the end).
  ///
  /// - Throws: `AudioInputFailure.fileUnreadable` once the readable audio of a truncated or
  ///   damaged file has been delivered.
  public func read() throws(AudioInputFailure) -> [Int16]? {
    while pending.count < Self.chunkSize, !isAtEnd {
      try fill()
    }
    guard !pending.isEmpty else {
      // An end cut short by a stop is no failure.
      if let failureAtEnd, stopSignal?.isStopped != true { throw failureAtEnd }
      return nil
    }
    let count = min(Self.chunkSize, pending.count)
    defer { pending.removeFirst(count) }
    return Array(pending[..<count])
  }

  /// Reads one block from the file into `pending`, converting it to 16 kHz mono.
  private func fill() throws(AudioInputFailure) {
    let channels = Int(info.channels)
    let blockFrames = Self.blockFrames
    // Always read floats: libsndfile converts every encoding to them exactly, whereas reading
    // shorts from a float or double file yields zeros for anything below full scale (unless
    // SFC_SET_SCALE_FLOAT_INT_READ, which normalizes to the file's peak by scanning the whole
    // file first — impossible on a pipe, and it changes the level).
    var block = [Float](repeating: 0, count: blockFrames * channels)
    let count = block.withUnsafeMutableBufferPointer {
      Int(sf_readf_float(file, $0.baseAddress, sf_count_t(blockFrames)))
    }
    framesRead += Int64(count)
    var mono = [Float](repeating: 0, count: count)
    for frame in 0..<count {
      var sum: Float = 0
      for channel in 0..<channels { sum += block[frame * channels + channel] }
      mono[frame] = sum / Float(channels)
    }
    let isLast = count < blockFrames
    let samples: [Float]
    if let resampler {
      do {
        samples = try resampler.process(mono, isLast: isLast)
      } catch {
        throw .fileUnreadable(path: name, reason: error.reason)
      }
    } else {
      samples = mono
    }
    pending += samples.map(Self.sample)
    checkEnd(count: count)
  }

  /// A float sample (±1 is full scale) as a 16-bit one; louder is clipped, NaN is silence.
  static func sample(_ value: Float) -> Int16 {
    guard value.isFinite else { return 0 }
    return Int16(clamping: Int((min(max(value, -1), 1) * 32768).rounded()))
  }

  /// A short read is the end of the file, or of what could be decoded of it.
  private func checkEnd(count: Int) {
    guard count < Self.blockFrames else { return }
    isAtEnd = true
    if let reason = stream?.failure {
      failureAtEnd = .fileUnreadable(path: name, reason: "reading failed: \(reason)")
    } else if sf_error(file) != 0 {
      failureAtEnd = .fileUnreadable(
        path: name,
        reason: "the file is truncated or damaged: \(String(cString: sf_strerror(file)))")
    }
  }

  /// The sample rates the converter turns into 16 kHz (libsamplerate converts by a factor of
  /// at most 256 either way).
  static let convertibleSampleRates =
    (SampleFormat.sampleRate + 255) / 256...SampleFormat
    .sampleRate * 256

  /// Why a file's sample rate (`rate`, e.g. "is 1 Hz") cannot be used, and what to do.
  static func unusableSampleRate(_ rate: String) -> String {
    "its sample rate \(rate), which cannot be converted to the 16 kHz speech models need "
      + "(usable rates are \(convertibleSampleRates.lowerBound) Hz to "
      + "\(convertibleSampleRates.upperBound / 1000) kHz): the header is damaged or the audio is "
      + "not sound; convert it again (e.g. sox in.wav -r 16000 out.wav)"
  }

  /// The sample rate a RIFF/WAVE file's `fmt ` chunk declares, or `nil` when the file is not
  /// one or cannot be read.
  static func declaredWAVSampleRate(at path: String) -> UInt32? {
    guard let handle = FileHandle(forReadingAtPath: path) else { return nil }
    defer { try? handle.close() }
    guard let header = try? handle.read(upToCount: 4096), header.count >= 12 else { return nil }
    let bytes = [UInt8](header)
    func uint32(at offset: Int) -> UInt32? {
      guard offset >= 0, offset + 4 <= bytes.count else { return nil }
      return (0..<4).reduce(0) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }
    guard bytes[0..<4].elementsEqual("RIFF".utf8), bytes[8..<12].elementsEqual("WAVE".utf8)
    else { return nil }
    var offset = 12
    while offset + 8 <= bytes.count, let size = uint32(at: offset + 4) {
      if bytes[offset..<offset + 4].elementsEqual("fmt ".utf8) {
        // fmt: format (2 bytes), channels (2), sample rate (4).
        return uint32(at: offset + 12)
      }
      offset += 8 + Int(size) + Int(size & 1)
    }
    return nil
  }

  /// libsndfile quietly reads a truncated WAV/AIFF to the real end, noting in its log that the
  /// data chunk's length "should be" smaller; this finds that note. Streamed files that declare
  /// an unknown length (0 or about 4 GiB) are not truncated.
  private static func dataLengthMismatch(in file: OpaquePointer) -> (declared: Int, actual: Int)? {
    var buffer = [CChar](repeating: 0, count: 16_384)
    let length = buffer.withUnsafeMutableBufferPointer {
      sf_command(file, Int32(SFC_GET_LOG_INFO), $0.baseAddress, Int32($0.count))
    }
    guard length > 0 else { return nil }
    let log = String(
      decoding: buffer.prefix(Int(length)).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    for line in log.split(separator: "\n") {
      let trimmed = line.trimmingCharacters(in: .whitespaces)
      guard trimmed.hasPrefix("data"), trimmed.contains("should be") else { continue }
      let numbers = trimmed.split(whereSeparator: { !$0.isNumber }).compactMap { Int($0) }
      guard numbers.count >= 2 else { continue }
      let (declared, actual) = (numbers[0], numbers[1])
      if declared > actual, declared > 0, declared < 0x7FFF_0000 {
        return (declared, actual)
      }
    }
    return nil
  }
}
