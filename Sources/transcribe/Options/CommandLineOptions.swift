import ArgumentParser
import SpeechClientLive

/// What to transcribe and how to write it: options of `transcribe` itself, which
/// `transcribe serve` refuses (its clients send the audio and read the words).
///
/// The options are a group so that `transcribe serve` sees them too: ArgumentParser parses an
/// option written after `serve` into the parent command, where a server would silently ignore
/// it (see ``Serve/validate()``).
struct InputOptions: ParsableArguments {
  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "Transcribe an audio file instead of the microphone (repeat for several, in order); "
        + "- reads standard input.",
      valueName: "file"))
  var input: [String] = []

  @Flag(
    help: """
      Input files are headerless 16 kHz mono signed 16-bit little-endian samples (assumed for \
      files ending in .raw or .pcm).
      """)
  var raw = false

  @Option(help: "Output format: text (the default), json (one object per line), srt or vtt.")
  var format: OutputFormat?

  /// The options given, as written on the command line.
  var given: [String] {
    [("--input", !input.isEmpty), ("--raw", raw), ("--format", format != nil)]
      .filter(\.1).map(\.0)
  }
}

/// What to listen to and for how long: options of `transcribe` and `transcribe dictate`, which
/// `transcribe serve` refuses; a group for the same reason as ``InputOptions``.
struct ListeningOptions: ParsableArguments {
  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      "Stop after this many seconds (e.g. 2.5): clock time when listening, audio time for files.",
      valueName: "seconds"))
  var duration: Double?

  @Option(help: ArgumentHelp("The PulseAudio capture source to listen to.", valueName: "name"))
  var device: String?

  @Flag(help: "List the capture sources (name and description) and exit.")
  var listDevices = false

  /// The options given, as written on the command line.
  var given: [String] {
    [
      ("--duration", duration != nil), ("--device", device != nil),
      ("--list-devices", listDevices),
    ].filter(\.1).map(\.0)
  }
}

/// The model and decoding options of `transcribe` itself, which `transcribe serve` refuses (it
/// serves the installed default models); a group for the same reason as ``InputOptions``.
struct DecodingOptions: ParsableArguments {
  @Option(
    help: ArgumentHelp(
      """
      Moonshine's model directory (default: $TRANSCRIBE_MOONSHINE_MODEL, else the one \
      ./scripts/install-dependencies.sh installed).
      """,
      valueName: "dir"))
  var model: String?

  @Option(help: ArgumentHelp("Recognize only what a JSGF grammar allows.", valueName: "file"))
  var grammar: String?

  @Option(help: ArgumentHelp("Listen only for this key phrase.", valueName: "phrase"))
  var keyphrase: String?

  @Option(help: ArgumentHelp("Acoustic model directory.", valueName: "dir"))
  var hmm: String?

  @Option(help: ArgumentHelp("Language model file (.lm or .lm.bin).", valueName: "file"))
  var lm: String?

  @Option(help: ArgumentHelp("Pronunciation dictionary.", valueName: "file"))
  var dict: String?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      """
      Decode files with this many decoders at once (default: the number of cores\
      \(HelpContext.local(", \(LiveSpeechConfiguration().jobs) here"))). The microphone always \
      uses one.
      """,
      valueName: "n"))
  var jobs: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      """
      The pause that ends an utterance, in seconds: with --endpointing fixed, every one \
      (default 0.5); with sentence, the shortest, which ends a finished sentence (default 0.2).
      """, valueName: "seconds"))
  var silence: Double?

  @Option(
    name: .customLong("max-utterance"), parsing: .unconditional,
    help: ArgumentHelp(
      "End utterances longer than this many seconds (default 30).", valueName: "seconds"))
  var maxUtterance: Double?

  @Flag(help: "Show pocketsphinx's own log on standard error.")
  var verbose = false

  /// The options given, as written on the command line.
  var given: [String] {
    [
      ("--model", model != nil), ("--grammar", grammar != nil),
      ("--keyphrase", keyphrase != nil), ("--hmm", hmm != nil), ("--lm", lm != nil),
      ("--dict", dict != nil), ("--jobs", jobs != nil), ("--silence", silence != nil),
      ("--max-utterance", maxUtterance != nil), ("--verbose", verbose),
    ].filter(\.1).map(\.0)
  }
}
