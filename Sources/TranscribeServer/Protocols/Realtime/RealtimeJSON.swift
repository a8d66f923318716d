import Foundation

/// A JSON value written with its keys in the order given, `null` where a field is absent, as
/// the Realtime events go on the wire; and read back from a client's text.
enum RealtimeJSON: Equatable, Sendable {
  case null
  case bool(Bool)
  case int(Int)
  case double(Double)
  case string(String)
  case array([RealtimeJSON])
  case object([(String, RealtimeJSON)])

  static func == (left: RealtimeJSON, right: RealtimeJSON) -> Bool {
    switch (left, right) {
    case (.null, .null): true
    case (.bool(let a), .bool(let b)): a == b
    case (.int(let a), .int(let b)): a == b
    case (.double(let a), .double(let b)): a == b
    case (.string(let a), .string(let b)): a == b
    case (.array(let a), .array(let b)): a == b
    case (.object(let a), .object(let b)):
      a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
    default: false
    }
  }

  /// An optional string: the string, or `null`.
  static func optional(_ value: String?) -> RealtimeJSON {
    value.map { .string($0) } ?? .null
  }

  /// The value as compact JSON text.
  var text: String {
    var output = ""
    write(to: &output)
    return output
  }

  private func write(to output: inout String) {
    switch self {
    case .null: output += "null"
    case .bool(let value): output += value ? "true" : "false"
    case .int(let value): output += String(value)
    case .double(let value):
      if value.isFinite, value == value.rounded(), abs(value) < 1e15 {
        output += String(Int(value))
      } else if value.isFinite {
        output += String(value)
      } else {
        output += "null"
      }
    case .string(let value): Self.writeString(value, to: &output)
    case .array(let values):
      output += "["
      for (index, value) in values.enumerated() {
        if index > 0 { output += "," }
        value.write(to: &output)
      }
      output += "]"
    case .object(let fields):
      output += "{"
      for (index, (key, value)) in fields.enumerated() {
        if index > 0 { output += "," }
        Self.writeString(key, to: &output)
        output += ":"
        value.write(to: &output)
      }
      output += "}"
    }
  }

  private static func writeString(_ value: String, to output: inout String) {
    output += "\""
    for scalar in value.unicodeScalars {
      switch scalar {
      case "\"": output += "\\\""
      case "\\": output += "\\\\"
      case "\n": output += "\\n"
      case "\r": output += "\\r"
      case "\t": output += "\\t"
      case let scalar where scalar.value < 0x20:
        let hex = String(scalar.value, radix: 16)
        output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
      default: output.unicodeScalars.append(scalar)
      }
    }
    output += "\""
  }

  /// Reads a client's text; `nil` when it is not JSON.
  init?(parsing text: String) {
    guard let value = try? JSONDecoder().decode(RealtimeJSON.self, from: Data(text.utf8))
    else { return nil }
    self = value
  }

  /// The field `key` of an object; `nil` when absent or not an object.
  subscript(key: String) -> RealtimeJSON? {
    guard case .object(let fields) = self else { return nil }
    return fields.first { $0.0 == key }?.1
  }

  /// The keys of an object (empty for anything else).
  var keys: [String] {
    guard case .object(let fields) = self else { return [] }
    return fields.map(\.0)
  }

  var stringValue: String? {
    if case .string(let value) = self { return value }
    return nil
  }

  var doubleValue: Double? {
    switch self {
    case .int(let value): Double(value)
    case .double(let value): value
    default: nil
    }
  }

  var intValue: Int? {
    switch self {
    case .int(let value): value
    case .double(let value): Int(exactly: value)
    default: nil
    }
  }

  var isObject: Bool {
    if case .object = self { return true }
    return false
  }

  /// The value as the client wrote it, for messages.
  var brief: String {
    let text = self.text
    let limit = ServerConfiguration.quotedJSONValue
    return text.count > limit ? String(text.prefix(limit - 3)) + "…" : text
  }
}

extension RealtimeJSON: Decodable {
  private struct Key: CodingKey {
    var stringValue: String
    var intValue: Int? { nil }
    init(stringValue: String) { self.stringValue = stringValue }
    init?(intValue: Int) { nil }
  }

  init(from decoder: any Decoder) throws {
    if let container = try? decoder.container(keyedBy: Key.self) {
      self = .object(
        try container.allKeys.map(\.stringValue).sorted().map {
          ($0, try container.decode(RealtimeJSON.self, forKey: Key(stringValue: $0)))
        })
      return
    }
    if var container = try? decoder.unkeyedContainer() {
      var values: [RealtimeJSON] = []
      while !container.isAtEnd { values.append(try container.decode(RealtimeJSON.self)) }
      self = .array(values)
      return
    }
    let container = try decoder.singleValueContainer()
    if container.decodeNil() {
      self = .null
    } else if let value = try? container.decode(Bool.self) {
      self = .bool(value)
    } else if let value = try? container.decode(Int.self) {
      self = .int(value)
    } else if let value = try? container.decode(Double.self) {
      self = .double(value)
    } else {
      self = .string(try container.decode(String.self))
    }
  }
}
