import Logging

/// Keeps every log event on one line of reasonable length, whatever a client sent.
///
/// Session logs carry text that clients choose (form values, configuration fields, file
/// names). Before an event reaches `Base`, control characters in its message and metadata values
/// are escaped (`\n`, `\r`, `\t`, `\u{1B}`, and the Unicode line and paragraph separators), and a
/// value longer than ``valueLimit`` characters is cut, saying how much was left out: one event,
/// one line, and never a line a client wrote.
///
/// ```swift
/// LoggingSystem.bootstrap { label in
///   OneLineLogHandler(StreamLogHandler.standardError(label: label))
/// }
/// ```
public struct OneLineLogHandler<Base: LogHandler>: LogHandler {
  /// The handler that writes the events.
  public var base: Base

  /// The most characters a metadata value keeps.
  public static var valueLimit: Int { ServerConfiguration.loggedValueCharacters }

  /// Wraps `base`.
  public init(_ base: Base) {
    self.base = base
  }

  public var logLevel: Logger.Level {
    get { base.logLevel }
    set { base.logLevel = newValue }
  }

  public var metadata: Logger.Metadata {
    get { base.metadata }
    set { base.metadata = newValue.mapValues(Self.safe) }
  }

  public subscript(metadataKey key: String) -> Logger.Metadata.Value? {
    get { base[metadataKey: key] }
    set { base[metadataKey: key] = newValue.map(Self.safe) }
  }

  public func log(event: LogEvent) {
    var event = event
    event.message = Logger.Message(stringLiteral: Self.escaped(event.message.description))
    event.metadata = event.metadata?.mapValues(Self.safe)
    base.log(event: event)
  }

  /// A metadata value escaped and cut to ``valueLimit``.
  static func safe(_ value: Logger.Metadata.Value) -> Logger.Metadata.Value {
    switch value {
    case .string(let text):
      return .string(escaped(cut(text)))
    case .stringConvertible(let convertible):
      return .string(escaped(cut(convertible.description)))
    case .array(let values):
      return .array(values.map(safe))
    case .dictionary(let values):
      return .dictionary(values.mapValues(safe))
    }
  }

  /// `text` without more than ``valueLimit`` characters.
  static func cut(_ text: String) -> String {
    text.cut(after: valueLimit)
  }

  /// `text` with its control characters and line separators escaped.
  static func escaped(_ text: String) -> String {
    guard text.unicodeScalars.contains(where: needsEscaping) else { return text }
    var result = ""
    for scalar in text.unicodeScalars {
      switch scalar {
      case "\n": result += "\\n"
      case "\r": result += "\\r"
      case "\t": result += "\\t"
      case _ where needsEscaping(scalar):
        result += "\\u{\(String(scalar.value, radix: 16, uppercase: true))}"
      default: result.unicodeScalars.append(scalar)
      }
    }
    return result
  }

  private static func needsEscaping(_ scalar: Unicode.Scalar) -> Bool {
    switch scalar.properties.generalCategory {
    case .control, .lineSeparator, .paragraphSeparator: true
    default: false
    }
  }
}
