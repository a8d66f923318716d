import SpeechClient

extension ProtocolProblem {
  /// A vosk stream's mistakes (and a Realtime session asked for without its intent, which is
  /// refused the same way).
  enum Vosk: Equatable, Sendable {
    /// A text message that is not JSON.
    case invalidJSON
    /// A text message that is JSON but not an object.
    case notAnObject
    /// A configuration field the server does not know.
    case unknownConfigurationField(String)
    /// A configuration field with a value the server cannot use: what it must be.
    case invalidConfigurationValue(field: String, reason: Requirement)
    /// A phrase list none of whose phrases the engine can use: `word` is not in its dictionary.
    case phraseNotInDictionary(String)
    /// A configuration sent after audio.
    case configurationAfterAudio
    /// A text message that is neither a configuration nor the end of the stream.
    case unsupportedMessage(String)
    /// A binary frame with an odd number of bytes (16-bit samples come in pairs).
    case oddLengthFrame(bytes: Int)
    /// A Realtime session asked for without `intent=transcription` (the intent it named).
    case unsupportedIntent(String?)

    /// What a configuration value must be, or what is wrong with it.
    enum Requirement: Equatable, Sendable {
      /// `{"eof": 1}`.
      case one
      case object
      case sampleRate(ClosedRange<Int>)
      case boolean
      case alternatives(maximum: Int)
      case listOfStrings
      case language(servesOthers: Bool)
      /// A phrase list over its limits (a grammar's, or Moonshine's tighter ones for hotwords),
      /// worded as the CLI words them.
      case phrases(Hotwords.Problem)

      var text: String {
        switch self {
        case .one: "must be 1"
        case .object: "must be an object"
        case .sampleRate(let rates):
          "must be a number of Hz from \(rates.lowerBound) to \(rates.upperBound)"
        case .boolean: "must be true or false"
        case .alternatives(let maximum): "must be a whole number from 0 to \(maximum)"
        case .listOfStrings: "must be a list of strings"
        case .language(let servesOthers):
          servesOthers
            ? "must be a language code Whisper knows (e.g. de, fr, es), or auto"
            : "must be en (this server's models are English)"
        case .phrases(let problem): "\(problem)"
        }
      }
    }

    var text: String {
      switch self {
      case .invalidJSON:
        "text messages must be JSON objects ({\"config\": {…}} or {\"eof\" : 1}): not valid JSON"
      case .notAnObject:
        "text messages must be JSON objects ({\"config\": {…}} or {\"eof\" : 1}): not an object"
      case .unknownConfigurationField(let field):
        "unknown configuration field '\(field)'; known: sample_rate, words, max_alternatives, "
          + "phrase_list"
      case .invalidConfigurationValue(let field, let reason):
        "invalid configuration value for '\(field)': \(reason.text)"
      case .phraseNotInDictionary(let word):
        "invalid configuration value for 'phrase_list': no phrase is usable: '\(word)' is not "
          + "in the dictionary"
      case .configurationAfterAudio:
        "the configuration must be the first message, before any audio"
      case .unsupportedMessage(let text):
        "unsupported text message \(text); send {\"config\": {…}} first, then binary audio, "
          + "then {\"eof\" : 1}"
      case .oddLengthFrame(let bytes):
        "audio frames must hold whole 16-bit samples; got \(bytes) bytes"
      case .unsupportedIntent(let intent):
        "this server runs transcription sessions only"
          + (intent.map { ", not intent=\($0)" } ?? "")
          + ": connect to /v1/realtime?intent=transcription"
      }
    }
  }
}
