import ArgumentParser
import Foundation
import SpeechClient
import SpeechClientLive

/// `--hotwords`, `--hotwords-file` and `--hotword-boost`, for `transcribe` and `transcribe serve`
/// alike (in a group for the same reason as ``EngineOption``): phrases Moonshine favours, for a
/// run of `transcribe`, or for every stream and upload of a server.
struct HotwordsOption: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      Phrases Moonshine should favour, comma-separated: names of lamps, rooms, people, \
      playlists (e.g. "Kallax, Siobhan, Nanoleaf"). Repeat to add more.
      """,
      valueName: "phrases"))
  var hotwords: [String] = []

  @Option(
    name: .customLong("hotwords-file"),
    help: ArgumentHelp(
      "More phrases to favour, one per line (blank lines and lines starting with # are left out).",
      valueName: "file"))
  var hotwordsFile: [String] = []

  @Option(
    name: .customLong("hotword-boost"), parsing: .unconditional,
    help: ArgumentHelp(
      """
      How strongly to favour the phrases: what is added to the score of each token that spells \
      on one (default \(Transcribe.formatted(Hotwords.defaultBoost)); \
      \(Transcribe.formatted(Hotwords.boosts.lowerBound)) to \
      \(Transcribe.formatted(Hotwords.boosts.upperBound))). A phrase begun but not finished \
      leaves no trace.
      """,
      valueName: "n"))
  var hotwordBoost: Double?

  /// Whether any of the options was given.
  var isGiven: Bool { !hotwords.isEmpty || !hotwordsFile.isEmpty || hotwordBoost != nil }

  /// The options given, as written on the command line.
  var given: [String] {
    [
      ("--hotwords", !hotwords.isEmpty), ("--hotwords-file", !hotwordsFile.isEmpty),
      ("--hotword-boost", hotwordBoost != nil),
    ].filter(\.1).map(\.0)
  }

  /// The phrases and boost given: `--hotwords` lists, then the files' lines.
  ///
  /// - Throws: `ValidationError` naming the fix for a file that cannot be read, a list over the
  ///   limits, or a boost out of range.
  func resolved() throws -> Hotwords {
    var phrases = hotwords.flatMap(Hotwords.phrases(inList:))
    for path in hotwordsFile {
      let text: String
      do {
        text = try String(contentsOf: URL(fileURLWithPath: path), encoding: .utf8)
      } catch {
        throw ValidationError(
          "--hotwords-file \(path) cannot be read as UTF-8 text; give a file with one phrase per "
            + "line.")
      }
      phrases += Hotwords.phrases(inFile: text)
    }
    if let hotwordBoost, !(hotwordBoost.isFinite && Hotwords.boosts.contains(hotwordBoost)) {
      throw ValidationError(
        "--hotword-boost must be a number from \(Transcribe.formatted(Hotwords.boosts.lowerBound)) "
          + "to \(Transcribe.formatted(Hotwords.boosts.upperBound)) (e.g. "
          + "\(Transcribe.formatted(Hotwords.defaultBoost))).")
    }
    if hotwordBoost != nil, phrases.isEmpty {
      throw ValidationError(
        "--hotword-boost weighs the phrases of --hotwords or --hotwords-file; give some.")
    }
    let list = Hotwords(Hotwords.cleaned(phrases), boost: hotwordBoost)
    if let problem = list.problem {
      throw ValidationError(
        "the hotwords list \(problem); shorten --hotwords/--hotwords-file.")
    }
    return list
  }
}
