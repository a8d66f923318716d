import Foundation
import NIOCore

/// One Wyoming event as it travels: a type, a JSON object of data, and an optional payload.
///
/// On the wire an event is one JSON header line (`type`, optional `data`, `data_length`,
/// `payload_length`, `version`) ending in `\n`, then `data_length` bytes of JSON merged over
/// `data`, then `payload_length` bytes of payload (see ``WyomingFrameParser``).
///
/// ```swift
/// let event = WyomingEvent("transcript", data: ["text": .string("hello")])
/// var buffer = ByteBuffer()
/// event.write(to: &buffer)   // {"type":"transcript","version":"1.10.0","data_length":16}\n{"text":"hello"}
/// ```
struct WyomingEvent: Equatable, Sendable {
  /// The event type: `describe`, `transcribe`, `audio-chunk`, …
  var type: String
  /// The event's data (header `data` with the data block merged over it).
  var data: [String: JSONValue]
  /// The payload, e.g. an audio chunk's PCM.
  var payload: ByteBuffer?

  init(_ type: String, data: [String: JSONValue] = [:], payload: ByteBuffer? = nil) {
    self.type = type
    self.data = data
    self.payload = payload
  }

  /// The protocol version this server writes in its events' headers.
  static let protocolVersion = "1.10.0"

  /// Appends the event in the wire format: the header line, the data block (`data_length`)
  /// and the payload.
  func write(to buffer: inout ByteBuffer) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    let dataBytes = data.isEmpty ? nil : try? encoder.encode(data)
    var header: [String: JSONValue] = [
      "type": .string(type), "version": .string(Self.protocolVersion),
    ]
    if let dataBytes { header["data_length"] = .number(Double(dataBytes.count)) }
    if let payload, payload.readableBytes > 0 {
      header["payload_length"] = .number(Double(payload.readableBytes))
    }
    buffer.writeBytes((try? encoder.encode(header)) ?? Data())
    buffer.writeInteger(UInt8(ascii: "\n"))
    if let dataBytes { buffer.writeBytes(dataBytes) }
    if let payload, payload.readableBytes > 0 { buffer.writeImmutableBuffer(payload) }
  }

  /// The event in the wire format.
  var bytes: ByteBuffer {
    var buffer = ByteBuffer()
    write(to: &buffer)
    return buffer
  }
}

extension JSONValue: Encodable {
  func encode(to encoder: any Encoder) throws {
    var container = encoder.singleValueContainer()
    switch self {
    case .null: try container.encodeNil()
    case .bool(let value): try container.encode(value)
    case .number(let value):
      // Whole numbers as integers (`16000`, not `16000.0`).
      if value == value.rounded(), abs(value) < 1e15 {
        try container.encode(Int64(value))
      } else {
        try container.encode(value)
      }
    case .string(let value): try container.encode(value)
    case .array(let values): try container.encode(values)
    case .object(let object): try container.encode(object)
    }
  }
}

extension JSONValue {
  /// The string, when this is one.
  var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  /// The number as a whole number, when this is one.
  var integerValue: Int? {
    guard case .number(let value) = self, value == value.rounded(), abs(value) < 1e15 else {
      return nil
    }
    return Int(value)
  }
}
