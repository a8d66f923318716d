import Foundation
import NIOCore
import Testing

@testable import TranscribeServer

/// Wyoming's framing: header line, data block, payload, and the limits on each.
struct WyomingFrameParserTests {
  /// Every event in `bytes`, fed one byte at a time (as a slow network would).
  static func parseByteByByte(_ bytes: [UInt8]) throws(WyomingProblem) -> [WyomingEvent] {
    var parser = WyomingFrameParser(limits: WyomingSettings())
    var buffer = ByteBuffer()
    var events: [WyomingEvent] = []
    for byte in bytes {
      buffer.writeInteger(byte)
      while let event = try parser.next(from: &buffer) { events.append(event) }
    }
    return events
  }

  @Test func anInlineHeaderAloneIsAnEvent() throws {
    var parser = WyomingFrameParser(limits: WyomingSettings())
    var buffer = ByteBuffer(string: "{\"type\":\"describe\"}\n")
    let event = try parser.next(from: &buffer)
    #expect(event == WyomingEvent("describe"))
    #expect(buffer.readableBytes == 0)
  }

  @Test func dataIsMergedOverInlineDataAndThePayloadFollows() throws {
    var parser = WyomingFrameParser(limits: WyomingSettings())
    let data = #"{"rate":16000,"width":2}"#
    var buffer = ByteBuffer(
      string: #"{"type":"audio-chunk","data":{"rate":8000,"channels":1},"data_length":"#
        + "\(data.utf8.count),\"payload_length\":4,\"version\":\"1.10.2\"}\n" + data)
    buffer.writeBytes([1, 0, 2, 0])
    let event = try #require(try parser.next(from: &buffer))
    #expect(event.type == "audio-chunk")
    #expect(
      event.data == ["rate": .number(16000), "width": .number(2), "channels": .number(1)])
    #expect(event.payload == ByteBuffer(bytes: [1, 0, 2, 0]))
  }

  @Test func eventsCutAnywhereComeOutWholeAndInOrder() throws {
    var bytes = ByteBuffer()
    let chunk = WyomingEvent(
      "audio-chunk", data: ["rate": .number(16000)], payload: ByteBuffer(bytes: [0, 1, 2, 3]))
    for event in [WyomingEvent("describe"), chunk, WyomingEvent("audio-stop")] {
      event.write(to: &bytes)
    }
    let events = try Self.parseByteByByte(Array(bytes.readableBytesView))
    #expect(events.map(\.type) == ["describe", "audio-chunk", "audio-stop"])
    #expect(events[1] == chunk)
  }

  @Test func aHeaderWithoutANewlineWithinTheLimitIsRefused() {
    var parser = WyomingFrameParser(
      limits: {
        var limits = WyomingSettings()
        limits.maxHeaderBytes = 64
        return limits
      }())
    var buffer = ByteBuffer(
      string: "{\"type\":\"describe\",\"pad\":\"" + String(repeating: "x", count: 80))
    #expect(throws: WyomingProblem.headerTooLong(limit: 64)) { try parser.next(from: &buffer) }
  }

  @Test func lengthsOverTheLimitsAreRefusedBeforeTheBytesArrive() {
    var parser = WyomingFrameParser(limits: WyomingSettings())
    var buffer = ByteBuffer(string: "{\"type\":\"audio-chunk\",\"payload_length\":5000000}\n")
    #expect(throws: WyomingProblem.payloadTooLong(bytes: 5_000_000, limit: 1 << 20)) {
      try parser.next(from: &buffer)
    }
    parser = WyomingFrameParser(limits: WyomingSettings())
    var data = ByteBuffer(string: "{\"type\":\"transcribe\",\"data_length\":70000}\n")
    #expect(throws: WyomingProblem.dataTooLong(bytes: 70_000, limit: 64 << 10)) {
      try parser.next(from: &data)
    }
  }

  @Test(arguments: [
    ("not json\n", WyomingProblem.notJSON(part: "header line")),
    ("[1,2]\n", .notJSON(part: "header line")),
    ("{\"data\":{}}\n", .input(.missingType)),
    (
      "{\"type\":\"x\",\"data_length\":-1}\n",
      .input(.badLength(field: "data_length"))
    ),
    (
      "{\"type\":\"x\",\"payload_length\":\"4\"}\n",
      .input(.badLength(field: "payload_length"))
    ),
    ("{\"type\":\"x\",\"data\":[]}\n", .input(.dataNotObject)),
    ("{\"type\":\"x\",\"data_length\":3}\nabc", .notJSON(part: "data block")),
  ])
  func malformedEventsAreNamed(_ text: String, _ problem: WyomingProblem) {
    var parser = WyomingFrameParser(limits: WyomingSettings())
    var buffer = ByteBuffer(string: text)
    #expect(throws: problem) { try parser.next(from: &buffer) }
  }

  @Test func writtenEventsCarryTheirDataAsADataBlock() {
    let event = WyomingEvent("transcript", data: ["text": .string("go forward")])
    let text = String(buffer: event.bytes)
    #expect(
      text == #"{"data_length":21,"type":"transcript","version":"1.10.0"}"# + "\n"
        + #"{"text":"go forward"}"#)
  }
}
