import ArgumentParser
import Foundation
import Logging
import Recognition
import ServiceLifecycle
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature
import Synchronization
import TranscribeServer
import UnixSignals

/// `transcribe serve`: the speech pipeline as a streaming service.
struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract:
      "Serve speech recognition over WebSocket (vosk protocol, OpenAI Realtime) and HTTP (OpenAI API).",
    discussion: """
      Listens on \(defaults.host):\(defaults.port) unless --host/--port say otherwise. Binding \
      to 0.0.0.0 serves every interface: set --token, --token-file (which win over \
      TRANSCRIBE_TOKEN) or TRANSCRIBE_TOKEN when you do. Once \
      listening it prints "transcribe: listening on http://HOST:PORT" on stderr (with --port 0, \
      the port it got).

      WebSocket at ws://HOST:PORT/ speaks vosk-server's protocol: an optional first text \
      message {"config": {"sample_rate": 16000, "words": true, "max_alternatives": 0, \
      "phrase_list": [...]}}, then binary 16-bit little-endian mono PCM, then {"eof" : 1}; one \
      reply per message ({"partial": ...} or {"result": [...], "text": ...}). A phrase_list \
      holds at most \(defaults.maxPhrases) phrases of at most \
      \(defaults.maxPhraseLength) characters (else close 1007); with \
      Moonshine its phrases are hotwords (at most \(Hotwords.maximumCount) of \
      \(Hotwords.maximumLength) characters). Last words \
      that do not come within \(seconds(SpeechRecognition().stopDeadline)) of the end close the \
      stream with 1011. GET /readyz answers 503 "stuck" while every decoder has been busy for \
      over \(seconds(defaults.stuckDecoderAge)) with sessions that are over.

      POST /v1/audio/transcriptions (OpenAI's API): an upload's body must arrive at \
      \(defaults.minimumUploadRate >> 10) KiB/s or more on average after its first \
      \(seconds(defaults.uploadRateGrace)) (else 408); it takes a session place once its body \
      is in (503 when none is free).

      GET /v1/realtime?intent=transcription (OpenAI's Realtime API, WebSocket): a \
      transcription session; input_audio_buffer.append with base64 16-bit PCM at 24 kHz (or \
      G.711 audio/pcmu, audio/pcma), deltas while speaking, an item completed at each pause \
      (server_vad) or commit. Same token, Origin policy and session limits as the vosk stream.

      ENGINES: --engine (or TRANSCRIBE_ENGINE) sets the default; Moonshine when installed. An \
      upload's model field (moonshine, pocketsphinx) picks the engine for it, GET /v1/models \
      lists them. A stream's phrase_list runs on pocketsphinx (a grammar) when pocketsphinx is \
      the default; with Moonshine it favours the phrases (hotwords) and still hears everything.

      HOTWORDS: --hotwords, --hotwords-file and --hotword-boost give phrases every Moonshine \
      stream and upload favours (names of lamps, rooms, people), before the stream's own.

      HOME ASSISTANT: --wyoming tcp://0.0.0.0:10300 (or unix://PATH; repeat it for more) also \
      serves the Wyoming protocol there, with the same models, session places and limits; add \
      the Wyoming integration in Home Assistant with this host and port. The server ends a \
      command when the sentence is finished (--endpointing sentence, the default with \
      Moonshine: after a pause of --silence seconds, 0.2 by default) or at the first pause of \
      --silence seconds (--endpointing fixed, and pocketsphinx: 0.5 by default). --no-http \
      serves Wyoming alone. Once listening it prints "transcribe: wyoming listening on tcp://HOST:PORT".

      SIGTERM, SIGHUP (a closed terminal or ssh session) or Ctrl-C stops accepting streams and \
      uploads, lets running streams deliver their \
      last words (close 1001) and running uploads finish decoding, within \
      \(seconds(defaults.shutdownGracePeriod)) (then 503), and exits 0.

      EXIT STATUS: 0 after a shutdown; 12 when it cannot listen (port in use, no permission, \
      unknown host); 64 for a usage error (an empty token, a token file that cannot be read, an \
      option out of range); 1 for \
      anything unexpected.
      """
  )

  /// The server's defaults, which the help and the options' defaults say.
  static let defaults = ServerConfiguration()

  /// A whole number of seconds as the help says it: `10 s`.
  static func seconds(_ duration: Duration) -> String { "\(duration.components.seconds) s" }

  @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
  var host = defaults.host

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp("The TCP port to listen on (0: any free port).", valueName: "port"))
  var port = defaults.port

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      """
      Sessions that may run at once (default: 8 per core with Moonshine\
      \(HelpContext.local(", \(Serve.defaultMaxSessions(engine: .moonshine, cores: Serve.cores)) here")); \
      1 per core with pocketsphinx).
      """, valueName: "n"))
  var maxSessions: Int?

  @Option(
    parsing: .unconditional,
    help: ArgumentHelp(
      """
      Connections that may be open at once; past it new ones get 503 (default: three quarters \
      of the open-file limit\(HelpContext.local(", \(ServerConfiguration.defaultMaxConnections) here"))).
      """, valueName: "n"))
  var maxConnections: Int?

  @Option(
    help: ArgumentHelp(
      "Require `Authorization: Bearer TOKEN` (default: $TRANSCRIBE_TOKEN).", valueName: "token"))
  var token: String?

  @Option(
    help: ArgumentHelp(
      "Read the token --token would give from FILE (one line), keeping it out of the process "
        + "list; wins over $TRANSCRIBE_TOKEN, and cannot be used with --token.",
      valueName: "file"))
  var tokenFile: String?

  @Option(
    name: .customLong("hass-url"),
    help: ArgumentHelp(
      """
      Home Assistant's URL (e.g. http://homeassistant.local:8123): the names of its entities, \
      areas and floors become hotwords Moonshine favours, read over its REST API now and every \
      \(HomeAssistantNames.refreshInterval.components.seconds / 60) minutes. Needs \
      --hass-token-file.
      """,
      valueName: "url"))
  var hassURL: String?

  @Option(
    name: .customLong("hass-token-file"),
    help: ArgumentHelp(
      "A file holding a long-lived access token of Home Assistant (one line), for --hass-url.",
      valueName: "file"))
  var hassTokenFile: String?

  @Option(
    help: ArgumentHelp(
      "Also let web pages from ORIGIN use the server (repeat it; * for any), e.g. "
        + "https://captions.example; other pages' requests get 403.",
      valueName: "origin"))
  var allowOrigin: [String] = []

  @Option(
    help: ArgumentHelp(
      "Close a stream that sends no audio for this long (default "
        + "\(defaults.idleTimeout.components.seconds)); a trickle of less than "
        + "\(Int(defaults.idleRenewalAudio / .milliseconds(1))) ms of audio in that time counts as none.",
      valueName: "seconds"))
  var idleSeconds = Double(defaults.idleTimeout.components.seconds)

  @Option(
    help: ArgumentHelp(
      "Close a stream after this long, after its last words (default "
        + "\(defaults.maxSessionDuration.components.seconds)).", valueName: "seconds"))
  var maxSessionSeconds = Double(defaults.maxSessionDuration.components.seconds)

  @Option(
    name: .customLong("wyoming"),
    help: ArgumentHelp(
      "Also serve Home Assistant's Wyoming protocol at ADDRESS: tcp://HOST:PORT (e.g. "
        + "tcp://0.0.0.0:10300) or unix://PATH; repeat it to listen on several.",
      valueName: "address"))
  var wyoming: [String] = []

  // `--zeroconf` alone or `--zeroconf NAME`: ArgumentParser's option with a value when given
  // and a default when not (`defaultAsFlag`); only the next argument is its value, and only
  // when it is not an option.
  @Option(
    name: .customLong("zeroconf"), defaultAsFlag: Serve.defaultZeroconfName, parsing: .next,
    help: ArgumentHelp(
      "Announce the first TCP Wyoming listener over zeroconf (mDNS, through the Avahi daemon) "
        + "as NAME, so Home Assistant discovers it; without NAME as transcribe-HOSTNAME.",
      valueName: "name"))
  var zeroconf: String? = nil

  @Option(
    name: .customLong("zeroconf-name"),
    help: ArgumentHelp(
      "The same as --zeroconf NAME (it wins over --zeroconf's).", valueName: "name"))
  var zeroconfName: String?

  @Flag(
    name: .customLong("no-http"),
    help: "Serve only the Wyoming listeners (--wyoming): no HTTP or WebSocket port.")
  var noHTTP = false

  /// `--engine`, shared with the parent command (see ``EngineOption``): the default engine;
  /// uploads pick another with their `model` field; phrase lists use pocketsphinx when it is
  /// the default, else become hotwords.
  @OptionGroup var engineOption: EngineOption

  /// `--vad`, `--vad-threshold`, `--vad-model`: the detector every stream and upload uses.
  @OptionGroup var voiceActivityOption: VoiceActivityOption

  /// `--partials`, shared with the parent command: what every stream spends on partial results.
  @OptionGroup var partialsOption: PartialsOption

  /// `--endpointing`, `--max-silence`, shared with the parent command: how every stream's
  /// utterances end.
  @OptionGroup var endpointingOption: EndpointingOption
  /// `--hotwords`, `--hotwords-file`, `--hotword-boost`, shared with the parent command: phrases
  /// every Moonshine stream and upload favours, before its own.
  @OptionGroup var hotwordsOption: HotwordsOption

  var engine: SpeechRecognitionRequest.EngineName? { engineOption.engine }

  /// `--preview`, shared with the parent command (see ``PreviewOption``).
  @OptionGroup var previewOption: PreviewOption

  /// `--language`, shared with the parent command: the language of requests that name none.
  @OptionGroup var languageOption: LanguageOption

  @Option(
    help: ArgumentHelp(
      "The largest upload POST /v1/audio/transcriptions accepts, in MiB.", valueName: "mib"))
  var maxUploadMb = defaults.maxUploadBytes >> 20

  @Option(
    help: ArgumentHelp(
      "The most audio an upload may hold, in seconds (default "
        + "\(defaults.maxUploadAudioDuration.components.seconds)), as its header says: longer "
        + "files get 413 before decoding.", valueName: "seconds"))
  var maxUploadSeconds = Double(defaults.maxUploadAudioDuration.components.seconds)

  @Option(
    help: ArgumentHelp(
      "Log this level and above on stderr: trace, debug, info, notice, warning, error, critical.",
      valueName: "level"))
  var logLevel: Logger.Level = .info

  /// `transcribe`'s own options, which ArgumentParser parses here too when they are written
  /// after `serve`: refused, rather than silently ignored.
  @OptionGroup(visibility: .private) var inputOptions: InputOptions
  @OptionGroup(visibility: .private) var listeningOptions: ListeningOptions
  @OptionGroup(visibility: .private) var decodingOptions: DecodingOptions

  func validate() throws {
    // `--silence` is the pause that ends a Wyoming command (and every stream's utterances).
    if let option = (inputOptions.given + listeningOptions.given + decodingOptions.given).first(
      where: {
        $0 != "--silence"
      })
    {
      throw ValidationError(Self.notServing(option))
    }
    if languageOption.translate {
      throw ValidationError(
        "--translate is per request on a server: POST /v1/audio/translations writes speech as "
          + "English.")
    }
    try languageOption.check(engine: engine)
    if languageOption.needsWhisper, !languageOption.listLanguages,
      !LiveSpeechConfiguration.isInstalled(.whisper)
    {
      throw ValidationError(
        "--language \(languageOption.requested.code) needs Whisper: "
          + "\(Installation.current.installWhisper), or leave out --language."
      )
    }
    if let silence = decodingOptions.silence,
      let problem = Transcribe.secondsProblem(silence, limit: 3600)
    {
      throw ValidationError("--silence must be a number of seconds (e.g. 0.8): \(problem).")
    }
    if let problem = endpointingOption.problem(silence: decodingOptions.silence) {
      throw ValidationError(problem)
    }
    _ = try wyomingAddresses()
    if let name = announcedName {
      if name.isEmpty || name.utf8.count > 63 {
        throw ValidationError(
          "--zeroconf NAME must be a name of 1 to 63 bytes, e.g. --zeroconf kitchen.")
      }
      guard try wyomingAddresses().contains(where: { if case .tcp = $0 { true } else { false } })
      else {
        throw ValidationError(
          "--zeroconf announces a TCP Wyoming listener: add one, e.g. "
            + "--wyoming tcp://0.0.0.0:10300.")
      }
    }
    if noHTTP, wyoming.isEmpty {
      throw ValidationError(
        "--no-http leaves nothing to serve: add a Wyoming listener, e.g. "
          + "--wyoming tcp://0.0.0.0:10300.")
    }
    try voiceActivityOption.check()
    _ = try hotwordsOption.resolved()
    _ = try homeAssistant()
    guard (0...65_535).contains(port) else {
      throw ValidationError(
        "--port must be between 0 and 65535 (got \(port)\(port < 0 ? ", a negative number" : "")).")
    }
    if let maxConnections, maxConnections < 1 {
      throw ValidationError(
        "--max-connections must be a whole number of connections, at least 1 (got "
          + "\(maxConnections)).")
    }
    if let maxSessions, maxSessions < 1 {
      throw ValidationError(
        "--max-sessions must be a whole number of sessions, at least 1 (got \(maxSessions)).")
    }
    for (name, value) in [
      ("--idle-seconds", idleSeconds), ("--max-session-seconds", maxSessionSeconds),
      ("--max-upload-seconds", maxUploadSeconds),
    ]
    where !(value > 0 && value <= 31_536_000) {
      throw ValidationError("\(name) must be a positive number of seconds, at most a year.")
    }
    guard (1...65_536).contains(maxUploadMb) else {
      throw ValidationError("--max-upload-mb must be a whole number of MiB from 1 to 65536.")
    }
    if engine == nil {
      _ = try EngineOption.engine(fromEnvironment: ProcessInfo.processInfo.environment)
    }
    if let problem = Self.tokenProblem(try resolvedToken()) {
      throw ValidationError(problem)
    }
  }

  /// The name the server announces over zeroconf, if it announces itself: `--zeroconf-name`'s,
  /// else `--zeroconf`'s (``defaultZeroconfName`` when it has none).
  var announcedName: String? { zeroconfName ?? zeroconf }

  /// The name `--zeroconf` announces by default: `transcribe-HOSTNAME`, with this machine's
  /// name (left as `HOSTNAME` in generated documents, see ``HelpContext``).
  static var defaultZeroconfName: String {
    guard !HelpContext.isGeneratingDocuments else { return "transcribe-HOSTNAME" }
    return String("transcribe-\(ProcessInfo.processInfo.hostName)".prefix(63))
  }

  /// The `--wyoming` addresses, parsed.
  func wyomingAddresses() throws -> [WyomingAddress] {
    try wyoming.map { text in
      do {
        return try WyomingAddress(parsing: text)
      } catch {
        throw ValidationError("--wyoming: \(error)")
      }
    }
  }

  /// Where Home Assistant's names come from: `--hass-url` with `--hass-token-file`'s token, or
  /// `nil` without `--hass-url`.
  ///
  /// - Throws: `ValidationError` naming the fix for one option without the other, a URL that is
  ///   not http(s) with a host, or a token file that cannot be used.
  func homeAssistant() throws -> HomeAssistantNames? {
    guard let hassURL else {
      if hassTokenFile != nil {
        throw ValidationError(
          "--hass-token-file is the token for --hass-url: give Home Assistant's URL too, e.g. "
            + "--hass-url http://homeassistant.local:8123.")
      }
      return nil
    }
    guard let url = URL(string: hassURL), ["http", "https"].contains(url.scheme?.lowercased()),
      url.host?.isEmpty == false
    else {
      throw ValidationError(
        "--hass-url must be Home Assistant's http(s) URL, e.g. "
          + "--hass-url http://homeassistant.local:8123 (got '\(hassURL)').")
    }
    guard let hassTokenFile else {
      throw ValidationError(
        "--hass-url needs --hass-token-file: a file with a long-lived access token (Home "
          + "Assistant: your profile, Security, Long-lived access tokens).")
    }
    let token = try Self.readTokenFile(
      hassTokenFile, option: "--hass-token-file",
      withoutIt: "(and --hass-url) to serve without Home Assistant's names")
    return HomeAssistantNames(url: url, token: token)
  }

  /// Why one of `transcribe`'s own options does not apply to `serve`, and what to do instead.
  static func notServing(_ option: String) -> String {
    let why =
      switch option {
      case "--input", "--raw", "--format", "--duration":
        "clients send the audio and read the words in their own protocol (to transcribe a "
          + "file on the command line, give it to `transcribe` without `serve`)"
      case "--device", "--list-devices":
        "it transcribes what clients send, not a capture source"
      case "--model":
        "it serves the installed Moonshine model, or the one $TRANSCRIBE_MOONSHINE_MODEL names"
      case "--jobs":
        "--max-sessions sets how many sessions, each with its own decoder, run at once"
      case "--grammar", "--keyphrase", "--hmm", "--lm", "--dict":
        "it serves the installed default models (a stream's phrase_list narrows its words); "
          + "--engine picks the engine"
      default:
        "its streams and uploads use the defaults"
      }
    return "\(option) does not apply to `transcribe serve`: \(why). Leave it out."
  }

  /// Sessions per core when `--max-sessions` is not given, by the server's default engine.
  ///
  /// Moonshine: 8. Its streams' partial results are paced by their cost and by how many streams
  /// speak (``PartialResults``), so 32 real-time streams on 2 cores still had their final words
  /// 0.66 s (p95) after the audio ended (`Benchmarks/partials/README.md`). pocketsphinx: 1, as
  /// before (its decoders each load the model, and its streams were not measured beyond 4).
  static func sessionsPerCore(engine: SpeechRecognitionRequest.EngineName) -> Int {
    switch engine {
    case .moonshine: 8
    case .pocketsphinx: 1
    // A Whisper decode is a full encoder and beam search per utterance (about 1-2 s of a core
    // for a short sentence): its streams are not yet measured beyond one per core.
    case .whisper: 1
    }
  }

  /// This machine's cores, as the live client counts them.
  static var cores: Int { LiveSpeechConfiguration().jobs }

  /// `--max-sessions`' default: ``sessionsPerCore(engine:)`` times `cores`.
  static func defaultMaxSessions(
    engine: SpeechRecognitionRequest.EngineName, cores: Int
  ) -> Int {
    sessionsPerCore(engine: engine) * max(1, cores)
  }

  /// The server's configuration from the options: `maxSessions` when `--max-sessions` is not
  /// given, the token resolved from `--token` or the environment, and the engines to serve.
  func serverConfiguration(
    maxSessions defaultMaxSessions: Int, token: String?,
    engines: [SpeechRecognitionRequest.EngineName]
  ) -> ServerConfiguration {
    var configuration = ServerConfiguration(
      host: host, port: port, maxSessions: maxSessions ?? defaultMaxSessions,
      token: token.map(AccessToken.init))
    configuration.idleTimeout = .milliseconds(max(1, Int64(idleSeconds * 1000)))
    configuration.maxSessionDuration = .milliseconds(max(1, Int64(maxSessionSeconds * 1000)))
    configuration.maxUploadBytes = maxUploadMb << 20
    configuration.maxUploadAudioDuration = .milliseconds(max(1, Int64(maxUploadSeconds * 1000)))
    configuration.allowedOrigins = allowOrigin
    if let maxConnections { configuration.maxConnections = maxConnections }
    configuration.engines = engines
    // With Whisper, every language it knows; without it, English only.
    if engines.contains(.whisper),
      let languages = try? LiveSpeechConfiguration.whisperLanguages()
    {
      configuration.languages = languages.map { ServedLanguage(code: $0.code, name: $0.name) }
    }
    configuration.defaultLanguage = languageOption.requested
    configuration.wyoming.listeners = (try? wyomingAddresses()) ?? []
    configuration.servesHTTP = !noHTTP
    return configuration
  }

  func run() async throws {
    if languageOption.listLanguages {
      var command = try Transcribe.parse([])
      command.languageOption = languageOption
      try command.printLanguages()
      return
    }
    bootstrapServeLogging(level: logLevel)
    let token = try resolvedToken()?.value
    var live = LiveSpeechConfiguration()
    let defaultEngine = engineOption.engineOrDefault
    let maxSessions =
      maxSessions ?? Self.defaultMaxSessions(engine: defaultEngine, cores: live.jobs)
    // Every session borrows a decoder for as long as it streams: the pool has one for each.
    live.jobs = max(live.jobs, maxSessions)
    live.authorizationRequest = SpeechRecognitionRequest(source: .pushed(PushedAudio()))
    live.defaultEngine = defaultEngine
    if let silence = decodingOptions.silence { live.endOfUtteranceSilence = silence }
    partialsOption.apply(to: &live)
    endpointingOption.apply(to: &live)
    live.hotwords = try hotwordsOption.resolved()
    let homeAssistant = try homeAssistant()
    let homeAssistantNames = HotwordSource()
    if homeAssistant != nil { live.hotwordSource = homeAssistantNames }
    var detectorName = ""
    if !previewOption.preview {
      let voiceActivity = try voiceActivityOption.resolved()
      live.voiceActivity = voiceActivity.options
      detectorName =
        " and " + Transcribe.detectorName(voiceActivity.detection, engine: defaultEngine)
    }
    var configuration = serverConfiguration(
      maxSessions: maxSessions, token: token,
      // The default first, then the other engines that are installed.
      engines: [defaultEngine]
        + SpeechRecognitionRequest.EngineName.allCases.filter {
          $0 != defaultEngine && LiveSpeechConfiguration.isInstalled($0)
        })
    if self.maxSessions == nil {
      // The places a stream holds are cheap with Moonshine's paced partial results; bodies of
      // uploads being received hold memory and disk whatever the engine: four per core, as
      // before the places grew.
      configuration.maxUploadsReading = 4 * Self.cores
    }
    let preview = previewOption.preview
    if !preview {
      let others = configuration.engines.dropFirst().map(\.displayName)
      Terminal.writeError(
        "transcribe: serving with \(defaultEngine.displayName)\(detectorName)"
          + (others.isEmpty ? "" : " (uploads may pick \(others.joined(separator: ", ")))") + "\n")
    }
    let settings = live
    // Its level is --log-level's (set by the bootstrap above).
    let logger = Logger(label: "transcribe.serve")
    var server = TranscriptionServer(
      configuration: configuration, logger: logger,
      prepare: {
        guard !preview else { return }
        try await settings.preloadStreamingDecoder()
      }
    ) {
      preview ? .lorem() : .live(settings)
    }
    server.uploadAudioDuration = { LiveSpeechConfiguration.declaredAudioDuration(of: $0) }
    if !preview {
      server.areDecodersStuck = { [age = configuration.stuckDecoderAge] in
        LiveSpeechConfiguration.isEveryDecoderBusy(longerThan: age)
      }
    }
    let host = self.host
    var service = TranscriptionService(server: server) { port in
      Terminal.writeError(
        "transcribe: listening on http://\(ServerConfiguration.urlHost(host)):\(port)\n")
    }
    let zeroconfName = announcedName
    let announcements = Announcements()
    service.onWyomingListening = { address in
      Terminal.writeError("transcribe: wyoming listening on \(address)\n")
      if let zeroconfName, case .tcp(_, let port) = address {
        announcements.announceOnce(name: zeroconfName, port: port)
      }
    }
    // A closed terminal or ssh session sends SIGHUP: it stops the server as gracefully as
    // SIGTERM and Ctrl-C do, and the log says which one came.
    let shutdownSignals: [UnixSignal] = [.sigterm, .sigint, .sighup]
    let group = ServiceGroup(
      configuration: .init(
        services: [service], gracefulShutdownSignals: shutdownSignals, logger: logger))
    let signalLog = Task {
      for await signal in await UnixSignalsSequence(trapping: shutdownSignals) {
        logger.info("shutting down (\(signal))")
        break
      }
    }
    defer { signalLog.cancel() }
    // Home Assistant's names, read now and every few minutes; a failure is a warning.
    let refresh = Task {
      await homeAssistant?.refresh(into: homeAssistantNames, logger: logger)
    }
    defer { refresh.cancel() }
    do {
      try await group.run()
    } catch let failure as WyomingListenFailure {
      Terminal.writeError("transcribe: error: \(failure.message)\n")
      throw ExitStatus.cannotListen.exitCode
    } catch let failure as SpeechClient.Failure {
      Terminal.writeError("transcribe: error: \(failure.message)\n")
      throw failure.exitStatus.exitCode
    } catch {
      guard let failure = ListenFailure(error, host: self.host, port: port) else { throw error }
      Terminal.writeError("transcribe: error: \(failure.message)\n")
      throw ExitStatus.cannotListen.exitCode
    }
  }
}

/// The zeroconf announcement of a server (of its first TCP Wyoming listener), kept for as long
/// as the process runs; a warning line when nothing can be announced.
private final class Announcements: Sendable {
  private let announcement = Mutex<ZeroconfAnnouncement??>(nil)

  func announceOnce(name: String, port: Int) {
    let isFirst = announcement.withLock { current in
      guard current == nil else { return false }
      current = .some(nil)
      return true
    }
    guard isFirst else { return }
    switch ZeroconfAnnouncement.announce(name: name, port: port) {
    case .success(let made):
      announcement.withLock { $0 = made }
      Terminal.writeError(
        "transcribe: announced '\(name)' as \(ZeroconfAnnouncement.serviceType) on port \(port)\n")
    case .failure(let problem):
      Terminal.writeError("transcribe: warning: \(problem.message)\n")
    }
  }
}
