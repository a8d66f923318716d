import NIOCore

/// The PCM of an `audio-start` or `audio-chunk`: sample rate, bytes per sample and channels;
/// signed little-endian integers, channels interleaved.
struct WyomingAudioFormat: Equatable, Sendable {
  var rate: Int
  var width: Int
  var channels: Int

  /// The format in an event's data (`rate`, `width`, `channels`), checked; the rate must be
  /// one of `rates` (``ServerConfiguration/sampleRates``).
  init(
    _ data: [String: JSONValue], event: String,
    rates: ClosedRange<Int> = ServerConfiguration().sampleRates
  ) throws(WyomingProblem) {
    func field(
      _ field: ProtocolProblem.Wyoming.FormatField, in range: ClosedRange<Int>
    ) throws(WyomingProblem) -> Int {
      guard let value = data[field.rawValue]?.integerValue else {
        throw .input(.missingFormatField(event: event, field: field, range: range))
      }
      guard range.contains(value) else {
        throw .input(.formatOutOfRange(event: event, field: field, value: value, range: range))
      }
      return value
    }
    rate = try field(.rate, in: rates)
    width = try field(.width, in: WyomingSettings.sampleWidths)
    channels = try field(.channels, in: WyomingSettings.channelCounts)
  }

  init(rate: Int, width: Int, channels: Int) {
    self.rate = rate
    self.width = width
    self.channels = channels
  }

  /// Bytes per frame: one sample of every channel.
  var frameBytes: Int { width * channels }

  /// The payload as 16-bit mono samples: each frame's channels averaged, each sample scaled to
  /// 16 bits.
  ///
  /// - Throws: ``ProtocolProblem/Wyoming/partialFrames(bytes:width:channels:)`` when the payload does not hold whole
  ///   frames.
  func monoSamples(_ payload: ByteBuffer) throws(WyomingProblem) -> [Int16] {
    let bytes = payload.readableBytesView
    let frames = try frames(in: payload)
    var samples = [Int16](repeating: 0, count: frames)
    var index = bytes.startIndex
    for frame in 0..<frames {
      var sum = 0
      for _ in 0..<channels {
        sum += sample(bytes, at: index)
        index += width
      }
      samples[frame] = Int16(clamping: sum / channels)
    }
    return samples
  }

  /// How many whole frames the payload holds.
  ///
  /// - Throws: ``ProtocolProblem/Wyoming/partialFrames(bytes:width:channels:)`` when the payload does not hold whole
  ///   frames.
  func frames(in payload: ByteBuffer) throws(WyomingProblem) -> Int {
    let count = payload.readableBytes
    guard count % frameBytes == 0 else {
      throw .input(.partialFrames(bytes: count, width: width, channels: channels))
    }
    return count / frameBytes
  }

  /// The payload, whole frames (``frames(in:)``), as 16-bit little-endian mono PCM (as it is
  /// when it is that already).
  func monoPCM(_ payload: ByteBuffer) -> ByteBuffer {
    if width == 2, channels == 1 { return payload }
    let samples = (try? monoSamples(payload)) ?? []
    var bytes = ByteBuffer()
    bytes.reserveCapacity(samples.count * 2)
    for sample in samples { bytes.writeInteger(sample, endianness: .little) }
    return bytes
  }

  /// One signed little-endian sample at `index`, scaled to 16 bits.
  private func sample(_ bytes: ByteBufferView, at index: Int) -> Int {
    switch width {
    case 1: return Int(Int8(bitPattern: bytes[index])) << 8
    case 2: return Int(Int16(bitPattern: UInt16(bytes[index]) | UInt16(bytes[index + 1]) << 8))
    default:
      // 24- and 32-bit: the top two bytes are the 16-bit sample.
      let high = index + width - 1
      return Int(Int16(bitPattern: UInt16(bytes[high - 1]) | UInt16(bytes[high]) << 8))
    }
  }
}
