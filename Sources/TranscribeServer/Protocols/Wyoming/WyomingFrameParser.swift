import Foundation
import NIOCore

/// Cuts Wyoming events out of the bytes a connection receives, within limits.
///
/// Each event is a JSON header line, then `data_length` bytes of JSON data merged over the
/// header's `data`, then `payload_length` bytes of payload. Lengths are checked against the
/// limits as soon as the header is read, so nothing over a limit is ever buffered; a header
/// line without its newline within ``WyomingSettings/maxHeaderBytes`` is refused likewise.
///
/// ```swift
/// var parser = WyomingFrameParser(limits: WyomingSettings())
/// var bytes = ByteBuffer(string: "{\"type\":\"describe\"}\n")
/// let event = try parser.next(from: &bytes)   // describe
/// ```
struct WyomingFrameParser: Sendable {
  /// The limits on an event's parts.
  let limits: WyomingSettings

  /// A header read whose data and payload have not all arrived.
  private var header: Header?

  private struct Header {
    var type: String
    var data: [String: JSONValue]
    var dataLength: Int
    var payloadLength: Int
  }

  init(limits: WyomingSettings) {
    self.limits = limits
  }

  /// The next whole event in `buffer` (consumed from it), or `nil` when more bytes are needed.
  ///
  /// - Throws: ``WyomingProblem`` for a part over its limit or that is not what the protocol
  ///   says; the connection is closed after it, so nothing more is parsed.
  mutating func next(from buffer: inout ByteBuffer) throws(WyomingProblem) -> WyomingEvent? {
    if header == nil {
      guard let line = try readHeaderLine(from: &buffer) else { return nil }
      header = try Self.header(line, limits: limits)
    }
    guard let header, buffer.readableBytes >= header.dataLength + header.payloadLength else {
      return nil
    }
    var data = header.data
    if header.dataLength > 0, let bytes = buffer.readBytes(length: header.dataLength) {
      guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(bytes))
      else { throw .notJSON(part: "data block") }
      data.merge(object) { _, new in new }
    }
    let payload =
      header.payloadLength > 0 ? buffer.readSlice(length: header.payloadLength) : nil
    self.header = nil
    return WyomingEvent(header.type, data: data, payload: payload)
  }

  /// The header line without its newline, once it has all arrived.
  private func readHeaderLine(from buffer: inout ByteBuffer) throws(WyomingProblem) -> [UInt8]? {
    let view = buffer.readableBytesView
    guard let newline = view.firstIndex(of: UInt8(ascii: "\n")) else {
      if view.count > limits.maxHeaderBytes { throw .headerTooLong(limit: limits.maxHeaderBytes) }
      return nil
    }
    let length = newline - view.startIndex
    guard length <= limits.maxHeaderBytes else {
      throw .headerTooLong(limit: limits.maxHeaderBytes)
    }
    let line = buffer.readBytes(length: length) ?? []
    buffer.moveReaderIndex(forwardBy: 1)
    return line
  }

  private static func header(
    _ line: [UInt8], limits: WyomingSettings
  ) throws(WyomingProblem) -> Header {
    guard case .object(let object)? = try? JSONDecoder().decode(JSONValue.self, from: Data(line))
    else { throw .notJSON(part: "header line") }
    guard let type = object["type"]?.stringValue, !type.isEmpty else {
      throw .input(.missingType)
    }
    var data: [String: JSONValue] = [:]
    switch object["data"] {
    case nil, .null?: break
    case .object(let inline)?: data = inline
    default: throw .input(.dataNotObject)
    }
    let dataLength = try length("data_length", in: object)
    guard dataLength <= limits.maxDataBytes else {
      throw .dataTooLong(bytes: dataLength, limit: limits.maxDataBytes)
    }
    let payloadLength = try length("payload_length", in: object)
    guard payloadLength <= limits.maxPayloadBytes else {
      throw .payloadTooLong(bytes: payloadLength, limit: limits.maxPayloadBytes)
    }
    return Header(type: type, data: data, dataLength: dataLength, payloadLength: payloadLength)
  }

  private static func length(
    _ name: String, in object: [String: JSONValue]
  ) throws(WyomingProblem) -> Int {
    switch object[name] {
    case nil, .null?: return 0
    case let value?:
      guard let length = value.integerValue, length >= 0 else {
        throw .input(.badLength(field: name))
      }
      return length
    }
  }
}

/// What a connection's reader hands on: an event, or the problem that stopped the parsing.
enum WyomingInbound: Sendable {
  case event(WyomingEvent)
  case malformed(WyomingProblem)
}

/// ``WyomingFrameParser`` in a channel pipeline: bytes in, ``WyomingInbound`` out. After a
/// problem it passes it on once and throws away whatever else arrives.
final class WyomingFrameDecoder: ByteToMessageDecoder {
  typealias InboundOut = WyomingInbound

  private var parser: WyomingFrameParser
  private var isFailed = false

  init(limits: WyomingSettings) {
    parser = WyomingFrameParser(limits: limits)
  }

  func decode(context: ChannelHandlerContext, buffer: inout ByteBuffer) throws -> DecodingState {
    guard !isFailed else {
      buffer.moveReaderIndex(to: buffer.writerIndex)
      return .needMoreData
    }
    do {
      guard let event = try parser.next(from: &buffer) else { return .needMoreData }
      context.fireChannelRead(wrapInboundOut(.event(event)))
      return .continue
    } catch {
      isFailed = true
      buffer.moveReaderIndex(to: buffer.writerIndex)
      context.fireChannelRead(wrapInboundOut(.malformed(error)))
      return .needMoreData
    }
  }

  func decodeLast(
    context: ChannelHandlerContext, buffer: inout ByteBuffer, seenEOF: Bool
  ) throws -> DecodingState {
    // Whatever is left at the end is a part event the client never finished: dropped.
    while try decode(context: context, buffer: &buffer) == .continue {}
    buffer.moveReaderIndex(to: buffer.writerIndex)
    return .needMoreData
  }
}
