import Foundation

/// The audio formats of a Realtime session's input (`audio.input.format`): 16-bit PCM at
/// 24 kHz, as OpenAI requires, or G.711 μ-law or A-law at 8 kHz (telephony). Each is decoded
/// to 16-bit little-endian PCM at its own rate, which recognition converts to the recognizer's.
enum RealtimeAudioFormat: String, Equatable, Sendable, CaseIterable {
  /// `audio/pcm`: signed 16-bit little-endian mono at 24 kHz.
  case pcm = "audio/pcm"
  /// `audio/pcmu`: G.711 μ-law at 8 kHz.
  case pcmu = "audio/pcmu"
  /// `audio/pcma`: G.711 A-law at 8 kHz.
  case pcma = "audio/pcma"

  /// The only rate of `audio/pcm`, as OpenAI's API has it.
  static let pcmRate = 24_000

  /// Samples per second.
  var sampleRate: Int { self == .pcm ? Self.pcmRate : 8_000 }

  /// Bytes per sample as sent.
  var bytesPerSample: Int { self == .pcm ? 2 : 1 }

  /// The format as `session.created` describes it.
  var json: RealtimeJSON {
    switch self {
    case .pcm: .object([("type", .string(rawValue)), ("rate", .int(Self.pcmRate))])
    case .pcmu, .pcma: .object([("type", .string(rawValue))])
    }
  }

  /// `bytes` as 16-bit little-endian PCM at ``sampleRate``: as they are for `audio/pcm`,
  /// expanded from G.711 for the others.
  func pcm(_ bytes: [UInt8]) -> [UInt8] {
    switch self {
    case .pcm: return bytes
    case .pcmu, .pcma:
      var output: [UInt8] = []
      output.reserveCapacity(bytes.count * 2)
      for byte in bytes {
        let sample = self == .pcmu ? Self.muLaw(byte) : Self.aLaw(byte)
        let bits = UInt16(bitPattern: sample)
        output.append(UInt8(bits & 0xFF))
        output.append(UInt8(bits >> 8))
      }
      return output
    }
  }

  /// A G.711 μ-law byte as a 16-bit sample.
  static func muLaw(_ byte: UInt8) -> Int16 {
    let value = ~byte
    let sign = value & 0x80
    let exponent = Int((value >> 4) & 0x07)
    let mantissa = Int(value & 0x0F)
    let magnitude = ((mantissa << 3) + 0x84) << exponent - 0x84
    return Int16(sign != 0 ? -magnitude : magnitude)
  }

  /// A G.711 A-law byte as a 16-bit sample.
  static func aLaw(_ byte: UInt8) -> Int16 {
    let value = byte ^ 0x55
    let sign = value & 0x80
    let exponent = Int((value >> 4) & 0x07)
    let mantissa = Int(value & 0x0F)
    var magnitude = (mantissa << 4) + 8
    if exponent != 0 { magnitude = (magnitude + 0x100) << (exponent - 1) }
    return Int16(sign != 0 ? magnitude : -magnitude)
  }
}
