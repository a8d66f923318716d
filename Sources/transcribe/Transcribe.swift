import Architecture
import ArgumentParser
import Dependencies
import Foundation
import Recognition
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature

/// The `transcribe` command: live-transcribes the microphone, a file, or lorem ipsum.
@main
struct Transcribe: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    commandName: "transcribe",
    abstract:
      "Transcribe speech from the microphone or audio files, offline, with Moonshine or pocketsphinx.",
    discussion: """
      With no options, listens to the default PulseAudio capture source until Ctrl-C (or \
      --duration) and writes what it hears. On a terminal the words being spoken rewrite one \
      line and finished utterances stay; into a pipe only finished utterances are written, one \
      per line; a file's progress is shown on a terminal. Status and errors go to standard \
      error. Ctrl-C, SIGTERM or SIGHUP stops recording (and the rest of a run of several \
      files), flushes the last words and exits 0; a second Ctrl-C exits at once.

      --duration counts clock time when listening and audio time when transcribing a file \
      (`-i talk.wav --duration 60` transcribes its first minute). Subtitles (srt, vtt) are cut \
      into cues of at most 7 seconds and two lines of 42 characters.

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
        transcribe -i talk.wav --silence 1.2    no pause under 1.2 s ends an utterance
        transcribe --endpointing fixed          end utterances at a fixed pause, not sentences
        transcribe --engine pocketsphinx -i talk.wav   the light engine instead of Moonshine
        transcribe --hotwords "Kallax, Siobhan, Nanoleaf"   favour these names (Moonshine)

      ENGINES: Moonshine (base, English; ONNX Runtime) is far more accurate on open speech and \
      writes punctuated, capitalized text; ./scripts/install-dependencies.sh installs it, and \
      it is the default when installed. Its word times within an utterance are estimates \
      (the utterance's start and end are measured; words share its length by their letters) \
      and it has no word alternatives. pocketsphinx (Debian's pocketsphinx-en-us) measures \
      every word's time, and alone takes grammars, key phrases and model files \
      (--grammar, --keyphrase, --hmm, --lm, --dict imply it).

      HOTWORDS: --hotwords and --hotwords-file give phrases Moonshine favours while it \
      decodes: each token that spells on one of them gets --hotword-boost added to its score, \
      and a phrase begun but abandoned is taken back, so speech without the phrases decodes as \
      before. Letters are compared without regard to case; the model writes them as it hears \
      them. At most \(Hotwords.maximumCount) phrases of \(Hotwords.maximumLength) characters.

      FILES are cut at pauses and decoded on --jobs decoders at once (each loads its state \
      once; Moonshine's model is shared by all of them); the words and times come out in \
      order, as one decoder would give them. With sentence endpointing a file looks ahead: \
      speech between pauses of --max-silence is transcribed whole and split where the \
      model's text ends a sentence at a pause, so a thinking pause does not cut a sentence. \
      Several --input files are decoded at the same time too.

      ENVIRONMENT:
        PULSE_SERVER          the PulseAudio server to capture from (e.g. unix:/run/pulse/native)
        TRANSCRIBE_ENGINE     moonshine, pocketsphinx or whisper: the engine without --engine
        TRANSCRIBE_MOONSHINE_MODEL  Moonshine's model directory when --model is not given
        TRANSCRIBE_ONNXRUNTIME      the ONNX Runtime library Moonshine loads (libonnxruntime.so.1)
        TRANSCRIBE_WHISPER_MODEL    Whisper's model file (ggml-base.bin)
        TRANSCRIBE_WHISPER_LIBRARY  whisper.cpp's library Whisper loads (libwhisper.so.1)
        DEPENDENCIES_CONTEXT  live, preview or test: forces the dependency context

      \(ExitStatus.documentation)
      """,
    version: "transcribe 0.1.0",
    subcommands: [Serve.self, Dictate.self]
  )

  /// `--preview`, in a group `transcribe serve` shares: a flag that a parent and its subcommand
  /// both declare is parsed into the parent's only.
  @OptionGroup var previewOption: PreviewOption

  var preview: Bool { previewOption.preview }

  /// What to transcribe and how to write it (a group `transcribe serve` refuses).
  @OptionGroup var inputOptions: InputOptions

  var input: [String] { inputOptions.input }
  var raw: Bool { inputOptions.raw }
  var format: OutputFormat { inputOptions.format ?? .text }
  var duration: Double? { listeningOptions.duration }
  var device: String? { listeningOptions.device }
  var listDevices: Bool { listeningOptions.listDevices }

  /// What to listen to and for how long (a group `transcribe dictate` shares and `transcribe
  /// serve` refuses).
  @OptionGroup var listeningOptions: ListeningOptions

  /// `--engine`, in a group `transcribe serve` shares (see ``EngineOption``).
  @OptionGroup var engineOption: EngineOption

  /// `--vad`, `--vad-threshold`, `--vad-model`, shared with `transcribe serve` too.
  @OptionGroup var voiceActivityOption: VoiceActivityOption

  /// `--partials`, shared with `transcribe serve` too (see ``PartialsOption``).
  @OptionGroup var partialsOption: PartialsOption

  /// `--endpointing`, `--max-silence`, shared with `transcribe serve` too.
  @OptionGroup var endpointingOption: EndpointingOption
  /// `--hotwords`, `--hotwords-file`, `--hotword-boost`, shared with `transcribe serve` too.
  @OptionGroup var hotwordsOption: HotwordsOption

  var engine: SpeechRecognitionRequest.EngineName? { engineOption.engine }

  /// `--language`, `--translate`, `--list-languages`, shared with `transcribe dictate` and
  /// `transcribe serve`.
  @OptionGroup var languageOption: LanguageOption

  /// The model and decoding (a group `transcribe serve` refuses).
  @OptionGroup var decodingOptions: DecodingOptions

  var model: String? { decodingOptions.model }
  var grammar: String? { decodingOptions.grammar }
  var keyphrase: String? { decodingOptions.keyphrase }
  var hmm: String? { decodingOptions.hmm }
  var lm: String? { decodingOptions.lm }
  var dict: String? { decodingOptions.dict }
  var jobs: Int? { decodingOptions.jobs }
  var silence: Double? { decodingOptions.silence }
  var maxUtterance: Double? { decodingOptions.maxUtterance }
  var verbose: Bool { decodingOptions.verbose }

  /// What is wrong with `seconds` as a length of at most `limit` seconds, if anything.
  /// How status lines name the detector: `Silero VAD`, or `the energy detector`.
  static func detectorName(
    _ detection: VoiceActivityDetection, engine: SpeechRecognitionRequest.EngineName
  ) -> String {
    detection.isEnergy ? "the energy detector" : detection.name
  }

  static func secondsProblem(_ seconds: Double, limit: Double) -> String? {
    if seconds.isNaN { return "not a number" }
    if seconds < 0 { return "\(Self.formatted(seconds)) is negative" }
    if seconds == 0 { return "it must be more than 0" }
    if seconds > limit {
      return "\(Self.formatted(seconds)) is longer than the most, \(Self.formatted(limit))"
    }
    return nil
  }

  /// A number as a user would write it: `1000000`, `0.25`.
  static func formatted(_ value: Double) -> String {
    guard value.isFinite else { return value > 0 ? "infinity" : "-infinity" }
    return value == value.rounded() && abs(value) < 1e15
      ? String(Int(value)) : String(value)
  }

  /// The longest `--duration`: a year, far beyond any session and far within `Duration`'s range.
  static let maximumDuration: Double = 365 * 24 * 3600

  /// Checks the options of a run of `transcribe` itself; `transcribe serve` checks its own (and
  /// refuses these), so this is not `validate()`, which ArgumentParser runs for a subcommand's
  /// parent too.
  func checkOptions() throws {
    if let duration {
      guard duration > 0 else {
        throw ValidationError("--duration must be a positive number of seconds.")
      }
      guard duration.isFinite, duration <= Self.maximumDuration else {
        throw ValidationError(
          "--duration must be a finite number of seconds, at most \(Int(Self.maximumDuration)) "
            + "(a year).")
      }
    }
    if let keyphrase, keyphrase.allSatisfy(\.isWhitespace) {
      throw ValidationError(
        "--keyphrase needs a phrase to listen for, e.g. --keyphrase \"hello computer\".")
    }
    if let device, device.allSatisfy(\.isWhitespace) {
      throw ValidationError(
        "--device needs a capture source name; run `transcribe --list-devices` to see them.")
    }
    if let jobs, jobs < 1 {
      throw ValidationError(
        "--jobs must be a whole number of decoders, at least 1 (got \(jobs)"
          + (jobs < 0 ? ", a negative number)." : ")."))
    }
    if let silence, let problem = Self.secondsProblem(silence, limit: 3600) {
      throw ValidationError("--silence must be a number of seconds (e.g. 0.8): \(problem).")
    }
    if let maxUtterance, let problem = Self.secondsProblem(maxUtterance, limit: 3600) {
      throw ValidationError("--max-utterance must be a number of seconds (e.g. 20): \(problem).")
    }
    if let problem = endpointingOption.problem(silence: silence) {
      throw ValidationError(problem)
    }
    try voiceActivityOption.check()
    if input.filter({ $0 == "-" }).count > 1 {
      throw ValidationError(
        "standard input (-i -) can be read only once; give it once, or name files instead.")
    }
    let models = [grammar != nil, keyphrase != nil, lm != nil].filter { $0 }.count
    if models > 1 {
      throw ValidationError("Use only one of --grammar, --keyphrase and --lm.")
    }
    if engine == .moonshine, let option = pocketsphinxOption {
      throw ValidationError(
        "\(option) is a pocketsphinx option; it cannot be used with --engine moonshine. Leave out "
          + "--engine moonshine, or leave out \(option).")
    }
    if let model {
      if engine == .pocketsphinx || pocketsphinxOption != nil {
        throw ValidationError(
          "--model names a Moonshine model directory; pocketsphinx takes --hmm, --lm and --dict.")
      }
      if model.allSatisfy(\.isWhitespace) {
        throw ValidationError("--model needs a directory, e.g. --model ~/models/moonshine-base-en.")
      }
    }
    if engine == nil, pocketsphinxOption == nil, model == nil {
      _ = try EngineOption.engine(fromEnvironment: ProcessInfo.processInfo.environment)
    }
    if languageOption.needsWhisper,
      let option = pocketsphinxOption ?? (model != nil ? "--model" : nil)
    {
      throw ValidationError(
        "\(option) is for an English engine; other languages and --translate are decoded by "
          + "Whisper. Leave out \(option), or --language/--translate.")
    }
    try languageOption.check(engine: engine)
    if !input.isEmpty, device != nil {
      throw ValidationError("--device chooses a microphone; it cannot be used with --input.")
    }
    if raw, input.isEmpty {
      throw ValidationError("--raw describes --input files; give at least one --input.")
    }
    if hotwordsOption.isGiven {
      _ = try hotwordsOption.resolved()
      if selectedEngine == .pocketsphinx {
        throw ValidationError(
          "\(hotwordsOption.given[0]) biases Moonshine, not pocketsphinx"
            + (pocketsphinxOption.map { " (which \($0) implies)" } ?? "")
            + ": use Moonshine"
            + (Installation.current == .checkout
              ? " (./scripts/install-dependencies.sh installs it)" : "")
            + ", or leave out "
            + "\(hotwordsOption.given[0]).")
      }
    }
    if input.count > 1, format == .srt || format == .vtt {
      throw ValidationError("--format \(format.rawValue) makes subtitles for one file at a time.")
    }
    if preview, !input.isEmpty {
      throw ValidationError("--preview speaks lorem ipsum; it cannot be used with --input.")
    }
  }

  /// The first pocketsphinx-only option given, as written on the command line.
  var pocketsphinxOption: String? {
    let options: [(String, Bool)] = [
      ("--grammar", grammar != nil), ("--keyphrase", keyphrase != nil), ("--hmm", hmm != nil),
      ("--lm", lm != nil), ("--dict", dict != nil),
    ]
    return options.first { $0.1 }?.0
  }

  /// The engine this run uses: `--engine`; pocketsphinx when one of its options is given;
  /// Moonshine for `--model`; `TRANSCRIBE_ENGINE`; else Moonshine when it is installed.
  var selectedEngine: SpeechRecognitionRequest.EngineName {
    if let engine { return engine }
    if pocketsphinxOption != nil { return .pocketsphinx }
    if model != nil { return .moonshine }
    if languageOption.needsWhisper { return .whisper }
    return engineOption.engineOrDefault
  }

  /// The request for one audio source, from the options.
  func request(source: SpeechRecognitionRequest.AudioSource) -> SpeechRecognitionRequest {
    let dictionary = dict.map { URL(fileURLWithPath: $0) }
    let model: SpeechRecognitionRequest.Model
    if let grammar {
      model = .grammar(
        URL(fileURLWithPath: grammar), dictionary: dictionary,
        acousticModel: hmm.map { URL(fileURLWithPath: $0) })
    } else if let keyphrase {
      model = .keyphrase(
        keyphrase, dictionary: dictionary, acousticModel: hmm.map { URL(fileURLWithPath: $0) })
    } else if hmm != nil || lm != nil || dict != nil {
      model = .custom(
        acousticModel: hmm.map { URL(fileURLWithPath: $0) },
        languageModel: lm.map { URL(fileURLWithPath: $0) },
        dictionary: dictionary)
    } else {
      model = .default
    }
    // A file's progress results serve the terminal's rows; without those, only finished
    // utterances are written, and nothing in between is needed.
    let reportsPartialResults =
      source.isLive || Terminal.stderrIsTerminal || showsPartialWords
    let engine: SpeechRecognitionRequest.Engine =
      switch selectedEngine {
      case .pocketsphinx: .pocketsphinx(model)
      case .moonshine: .moonshine(modelDirectory: self.model.map { URL(fileURLWithPath: $0) })
      // Without --engine, the client routes by language: with auto, a file's detected
      // English goes to the default engine.
      case .whisper: engine == nil ? .automatic : .whisper()
      }
    // A file's --duration is audio time: the client reads no further (a batch decodes ahead,
    // so its requests carry the limit from the start; the feature would add it to a stream's).
    var request = SpeechRecognitionRequest(
      source: source, engine: engine, shouldReportPartialResults: reportsPartialResults,
      maximumAudioDuration: source.isLive ? nil : duration.map { .seconds($0) })
    request.language = languageOption.requested
    request.translates = languageOption.translate
    return request
  }

  /// The live client's settings, from the options: a value every session's client is made
  /// from; `voiceActivity` is the detector resolved for this run.
  func liveConfiguration(voiceActivity: VoiceActivityOptions) -> LiveSpeechConfiguration {
    var configuration = LiveSpeechConfiguration(isVerbose: verbose)
    configuration.voiceActivity = voiceActivity
    // English when the language was detected (`--language auto`): the engine English gets.
    configuration.defaultEngine = engineOption.engineOrDefault
    // Only JSON output shows each word's alternatives; the n-best search is skipped otherwise.
    if format != .json { configuration.alternativeCount = 0 }
    // Only a terminal's live row shows a file's partial words; their searches are skipped
    // otherwise.
    configuration.reportsPartialWordsOfFiles = showsPartialWords
    if let jobs { configuration.jobs = jobs }
    if let silence { configuration.endOfUtteranceSilence = silence }
    if let maxUtterance { configuration.maximumUtteranceDuration = maxUtterance }
    partialsOption.apply(to: &configuration)
    endpointingOption.apply(to: &configuration)
    // Checked by `checkOptions()`.
    configuration.hotwords = (try? hotwordsOption.resolved()) ?? Hotwords()
    return configuration
  }

  /// Whether the words of an utterance still being decoded are shown: the live row of text on a
  /// terminal.
  var showsPartialWords: Bool {
    format == .text && Terminal.stdoutIsTerminal
  }

  func run() async throws {
    try checkOptions()
    // A closed standard output would be reused by the next file opened (an input, the audio
    // server's socket) and the transcript written into it.
    guard Terminal.stdoutIsOpen else {
      Terminal.writeError(
        "transcribe: error: \(Self.outputFailure("standard output is closed"))\n")
      throw ExitStatus.outputFailed.exitCode
    }
    // A reader that went away is reported as a write error, not a silent death.
    signal(SIGPIPE, SIG_IGN)

    if listDevices {
      try await printDevices()
      return
    }
    if languageOption.listLanguages {
      try printLanguages()
      return
    }

    var sources: [(SpeechRecognitionRequest.AudioSource, label: String?)] = []
    // Files opened by their command-line bytes (names that are not UTF-8): the path read, and
    // the name to show.
    var pathNames: [String: String] = [:]
    if input.isEmpty {
      sources = [(device.map { .device($0) } ?? .microphone, nil)]
    } else {
      for path in input {
        if path == "-" {
          sources.append((.standardInput(raw: raw), input.count > 1 ? path : nil))
          continue
        }
        let openable = ArgumentBytes.openablePath(path)
        if openable != path { pathNames[openable] = path }
        let url = URL(fileURLWithPath: openable)
        let isRaw =
          raw || ["raw", "pcm"].contains(URL(fileURLWithPath: path).pathExtension.lowercased())
        sources.append((isRaw ? .rawFile(url) : .file(url), input.count > 1 ? path : nil))
      }
    }

    let requests = sources.map { request(source: $0.0) }
    var liveConfiguration = liveConfiguration(voiceActivity: voiceActivityOption.options())
    // A file's model loads while the detector is chosen and the files are opened. (A capture
    // source opens before its model loads: with no microphone the run ends at once.)
    if !preview, let first = requests.first, first.source.isFileSource {
      liveConfiguration.startLoadingModel(for: first)
    }
    // The detector is chosen once, before anything starts: a Silero VAD that was asked for and
    // cannot run ends the run here, with one line (status 5).
    var detectorName: String?
    if !preview {
      let resolved = try voiceActivityOption.resolved()
      liveConfiguration.voiceActivity = resolved.options
      detectorName = Self.detectorName(resolved.detection, engine: selectedEngine)
    }
    // The files are decoded ahead, in parallel, on the decoder pool; each file's session finds
    // its results ready or coming.
    let batch =
      preview || !requests.contains(where: \.source.isFileSource)
      ? nil : FileRecognitionBatch(requests, configuration: liveConfiguration)

    let signals = await SignalHandler()
    var status = ExitStatus.success
    // Several files share one progress row for the batch, from the first file to the last.
    var batchProgress: (@Sendable () -> FileBatchProgress?)?
    if sources.count > 1, let batch {
      batchProgress = { @Sendable in
        let progress = batch.progress
        return progress.fileCount > 1 ? progress : nil
      }
    }
    if batchProgress != nil, Terminal.stderrIsTerminal {
      Terminal.writeError(
        "Transcribing \(sources.count) files with \(selectedEngine.displayName)"
          + (detectorName.map { " and \($0)" } ?? "") + "…\n")
    }
    var renderer: TranscriptRenderer?
    for (index, (_, label)) in sources.enumerated() {
      // A signal stops the whole run, not just the file it arrived during.
      guard await signals.received.isEmpty else { break }
      let request = requests[index]
      var client: SpeechClient?
      if !preview {
        var configuration = liveConfiguration
        configuration.authorizationRequest = request
        client = batch?.client(at: index) ?? .live(configuration)
      }
      let session = await TranscriptionSession(
        request: request, duration: duration.map { .seconds($0) },
        label: label, format: format, preview: preview, client: client, renderer: renderer,
        announcesStart: batchProgress == nil, batchProgress: batchProgress, pathNames: pathNames,
        detector: detectorName)
      let outcome = await session.run(signals: signals)
      renderer = await session.renderer
      if outcome != .success, status == .success {
        status = outcome
      }
      // Output that cannot be written, or a Ctrl-C that insists, ends the whole run here.
      if outcome == .outputFailed || outcome == .interrupted {
        throw outcome.exitCode
      }
    }
    if var renderer {
      let output = renderer.finish()
      guard await TranscriptionSession.write(output) else {
        throw ExitStatus.outputFailed.exitCode
      }
    }
    if status != .success {
      throw status.exitCode
    }
  }

  /// Prints the capture sources for `--list-devices`, from the speech client: name, then
  /// description; `*` marks the default. Monitors of outputs are listed last, marked as such.
  /// `--list-languages`: Whisper's languages, code and name, one per line.
  func printLanguages() throws {
    let list: String
    do {
      list = try LanguageOption.languageList()
    } catch {
      Terminal.writeError("transcribe: error: \(error.message)\n")
      throw error.exitStatus.exitCode
    }
    do {
      try Terminal.write(list + "\n")
    } catch {
      Terminal.writeError("transcribe: error: \(Self.outputFailure(error.reason))\n")
      throw ExitStatus.outputFailed.exitCode
    }
  }

  func printDevices() async throws {
    let devices: [CaptureDevice]
    do {
      devices = try await withDependencies {
        if preview { $0.context = .preview }
      } operation: {
        @Dependency(\.speechClient) var speechClient
        return try await speechClient.captureDevices()
      }
    } catch {
      let failure = SpeechClient.Failure(error)
      Terminal.writeError("transcribe: error: \(failure.message)\n")
      throw failure.exitStatus.exitCode
    }
    do {
      try Terminal.write(Self.deviceList(devices))
    } catch {
      Terminal.writeError("transcribe: error: \(Self.outputFailure(error.reason))\n")
      throw ExitStatus.outputFailed.exitCode
    }
    if devices.isEmpty {
      Terminal.writeError("transcribe: the audio server has no capture sources\n")
    }
  }

  /// The `--list-devices` table.
  static func deviceList(_ devices: [CaptureDevice]) -> String {
    let sorted = devices.filter { !$0.isMonitor } + devices.filter(\.isMonitor)
    let width = sorted.map(\.name.count).max() ?? 0
    return sorted.map { device in
      let marker = device.isDefault ? "*" : " "
      let padding = String(repeating: " ", count: width - device.name.count)
      let monitor = device.isMonitor ? " (monitor of an output)" : ""
      return "\(marker) \(device.name)\(padding)  \(device.description)\(monitor)\n"
    }.joined()
  }

  /// The message for a transcript that cannot be written.
  static func outputFailure(_ reason: String) -> String {
    "cannot write the transcript (\(reason)). Write standard output to a terminal, a pipe or a "
      + "file with free space."
  }
}
