import Architecture
import ArgumentParser
import Foundation
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature

/// The `transcribe` command: live-transcribes the microphone, a file, or lorem ipsum.
@main
struct Transcribe: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "transcribe",
    abstract: "Transcribe speech from the microphone or audio files, offline, with pocketsphinx.",
    discussion: """
      With no options, listens to the default PulseAudio capture source until Ctrl-C (or \
      --duration) and writes what it hears. On a terminal the words being spoken rewrite one \
      line and finished utterances stay; into a pipe only finished utterances are written, one \
      per line. Status and errors go to standard error. Ctrl-C or SIGTERM stops recording, \
      flushes the last words and exits 0; a second Ctrl-C exits at once.

      EXAMPLES:
        transcribe                              listen to the default microphone
        transcribe --preview --duration 5       a demo: lorem ipsum, no audio or model needed
        transcribe --input talk.wav             transcribe a file (any rate/channels) and exit
        transcribe -i a.flac -i b.ogg --format json > words.jsonl
        transcribe --input talk.wav --format srt > talk.srt
        transcribe --list-devices               show capture sources
        transcribe --device virtual_mic --duration 10
        transcribe --grammar cards.gram --dict cards.dict
        transcribe --jobs 1 --input long.wav    decode with one core instead of all
        transcribe -i talk.wav --silence 1.2    only a 1.2 s pause ends an utterance

      FILES are cut at pauses and decoded on --jobs decoders at once (each loads the model \
      once, about 100 MB of memory each); the words and times come out in order, as one \
      decoder would give them. Several --input files are decoded at the same time too.

      ENVIRONMENT:
        PULSE_SERVER          the PulseAudio server to capture from (e.g. unix:/run/pulse/native)
        DEPENDENCIES_CONTEXT  live, preview or test: forces the dependency context

      \(ExitStatus.documentation)
      """,
    version: "transcribe 0.1.0"
  )

  @Flag(help: "Speak lorem ipsum instead of listening: no audio server or model is needed.")
  var preview = false

  @Option(
    name: [.short, .long],
    help: ArgumentHelp(
      "Transcribe an audio file instead of the microphone (repeat for several, in order).",
      valueName: "file"))
  var input: [String] = []

  @Flag(
    help: """
      Input files are headerless 16 kHz mono signed 16-bit little-endian samples (assumed for \
      files ending in .raw or .pcm).
      """)
  var raw = false

  @Option(help: "Output format: text, json (one object per line), srt or vtt.")
  var format: OutputFormat = .text

  @Option(
    help: ArgumentHelp(
      "Stop recording after this many seconds (e.g. 2.5).", valueName: "seconds"))
  var duration: Double?

  @Option(help: ArgumentHelp("The PulseAudio capture source to listen to.", valueName: "name"))
  var device: String?

  @Flag(help: "List the capture sources (name and description) and exit.")
  var listDevices = false

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
    help: ArgumentHelp(
      """
      Decode files with this many decoders at once (default: the number of cores, \
      \(LiveSpeechConfiguration().jobs) here). The microphone always uses one.
      """,
      valueName: "n"))
  var jobs: Int?

  @Option(
    help: ArgumentHelp(
      "Silence that ends an utterance, in seconds (default 0.5).", valueName: "seconds"))
  var silence: Double?

  @Option(
    name: .customLong("max-utterance"),
    help: ArgumentHelp(
      "End utterances longer than this many seconds (default 30).", valueName: "seconds"))
  var maxUtterance: Double?

  @Flag(help: "Show pocketsphinx's own log on standard error.")
  var verbose = false

  func validate() throws {
    if let duration, !(duration > 0) {
      throw ValidationError("--duration must be a positive number of seconds.")
    }
    if let jobs, jobs < 1 {
      throw ValidationError("--jobs must be a whole number of decoders, at least 1.")
    }
    if let silence, !(silence > 0 && silence.isFinite && silence <= 3600) {
      throw ValidationError("--silence must be a positive number of seconds (e.g. 0.8).")
    }
    if let maxUtterance, !(maxUtterance > 0 && maxUtterance.isFinite && maxUtterance <= 3600) {
      throw ValidationError("--max-utterance must be a positive number of seconds (e.g. 20).")
    }
    let models = [grammar != nil, keyphrase != nil, lm != nil].filter { $0 }.count
    if models > 1 {
      throw ValidationError("Use only one of --grammar, --keyphrase and --lm.")
    }
    if !input.isEmpty, device != nil {
      throw ValidationError("--device chooses a microphone; it cannot be used with --input.")
    }
    if raw, input.isEmpty {
      throw ValidationError("--raw describes --input files; give at least one --input.")
    }
    if input.count > 1, format == .srt || format == .vtt {
      throw ValidationError("--format \(format.rawValue) makes subtitles for one file at a time.")
    }
    if preview, !input.isEmpty {
      throw ValidationError("--preview speaks lorem ipsum; it cannot be used with --input.")
    }
  }

  /// The request for one audio source, from the options.
  func request(source: SpeechRecognitionRequest.AudioSource) -> SpeechRecognitionRequest {
    let dictionary = dict.map { URL(fileURLWithPath: $0) }
    let model: SpeechRecognitionRequest.Model
    if let grammar {
      model = .grammar(URL(fileURLWithPath: grammar), dictionary: dictionary)
    } else if let keyphrase {
      model = .keyphrase(keyphrase, dictionary: dictionary)
    } else if hmm != nil || lm != nil || dict != nil {
      model = .custom(
        acousticModel: hmm.map { URL(fileURLWithPath: $0) },
        languageModel: lm.map { URL(fileURLWithPath: $0) },
        dictionary: dictionary)
    } else {
      model = .default
    }
    // A file's partial words are only ever shown on a terminal; elsewhere they are work for
    // nothing (a partial hypothesis every 128 ms of speech).
    return SpeechRecognitionRequest(
      source: source, model: model,
      shouldReportPartialResults: !source.isFile || Terminal.stdoutIsTerminal)
  }

  func run() async throws {
    if listDevices {
      try await LiveSupport.printDevices()
      return
    }

    var sources: [(SpeechRecognitionRequest.AudioSource, label: String?)] = []
    if input.isEmpty {
      sources = [(device.map { .device($0) } ?? .microphone, nil)]
    } else {
      for path in input {
        let url = URL(fileURLWithPath: path)
        let isRaw = raw || ["raw", "pcm"].contains(url.pathExtension.lowercased())
        sources.append((isRaw ? .rawFile(url) : .file(url), input.count > 1 ? path : nil))
      }
    }

    await LiveSupport.configureDecoding(
      jobs: jobs, silence: silence, maxUtterance: maxUtterance,
      alternatives: format == .json, verbose: verbose,
      files: preview ? [] : sources.map { request(source: $0.0) }.filter(\.source.isFile))

    var status = ExitStatus.success
    for (source, label) in sources {
      let session = await TranscriptionSession(
        request: request(source: source), label: label, format: format, preview: preview,
        duration: duration.map { Duration.milliseconds(Int64(($0 * 1000).rounded())) },
        verbose: verbose)
      let outcome = await session.run()
      if outcome != .success, status == .success {
        status = outcome
      }
      let interrupted = await session.wasInterrupted
      if outcome == .interrupted || interrupted { break }
    }
    if status != .success {
      throw status.exitCode
    }
  }
}
