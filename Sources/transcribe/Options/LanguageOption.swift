import ArgumentParser
import Foundation
import SpeechClient
import SpeechClientLive

/// `--language`, `--translate` and `--list-languages`, for `transcribe`, `transcribe dictate`
/// and `transcribe serve` (in a group for the same reason as ``PreviewOption``).
///
/// English is heard by every engine; any other language, `auto` and `--translate` need Whisper,
/// which the language picks when `--engine` is not given.
struct LanguageOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      The language spoken, as a code (de, fr, es, ...; see --list-languages), or auto to detect \
      it. Default: en. Other languages than English are decoded by Whisper.
      """,
      valueName: "code"))
  var language: String?

  @Flag(help: "Write the speech as English, whatever language is spoken (Whisper).")
  var translate = false

  @Flag(help: "List the languages Whisper knows (code and name) and exit.")
  var listLanguages = false

  /// The options given, as written on the command line.
  var given: [String] {
    [
      ("--language", language != nil), ("--translate", translate),
      ("--list-languages", listLanguages),
    ]
    .filter(\.1).map(\.0)
  }

  /// The language asked for: `en` unless `--language` says otherwise.
  var requested: SpeechRecognitionRequest.Language {
    guard let language else { return .english }
    let code = language.trimmingCharacters(in: .whitespaces).lowercased()
    return code == "auto" ? .automatic : .code(code)
  }

  /// Whether only Whisper can serve the request: another language than English, detection, or
  /// translation.
  var needsWhisper: Bool { !requested.isEnglish || translate }

  /// Checks the options against the engine given with `--engine` (if any), and the code against
  /// Whisper's languages when Whisper is installed (when it is not, running says how to install
  /// it).
  func check(engine: SpeechRecognitionRequest.EngineName?) throws {
    if let language, language.trimmingCharacters(in: .whitespaces).isEmpty {
      throw ValidationError("--language needs a code, e.g. --language de, or auto.")
    }
    if let engine, engine != .whisper, needsWhisper {
      let what = translate ? "translates" : "hears \(requested.code)"
      throw ValidationError(
        "\(engine.displayName) hears English only; Whisper \(what): leave out --engine \(engine.rawValue), "
          + "or pass --engine whisper.")
    }
    if case let .code(code) = requested, code != "en",
      LiveSpeechConfiguration.isInstalled(.whisper),
      LiveSpeechConfiguration.whisperLanguage(code) == nil
    {
      throw ValidationError(
        "unknown language '\(code)': `transcribe --list-languages` lists the codes, or use "
          + "--language auto.")
    }
  }

  /// The lines `--list-languages` prints: code and name, English first.
  static func languageList() throws(SpeechClient.Failure) -> String {
    try LiveSpeechConfiguration.whisperLanguages().map { language in
      language.code.padding(toLength: 6, withPad: " ", startingAt: 0) + language.name
    }.joined(separator: "\n")
  }
}
