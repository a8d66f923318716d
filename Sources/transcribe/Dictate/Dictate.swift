import Architecture
import ArgumentParser
import Dependencies
import DictationFeature
import Foundation
import KeyboardClient
import KeyboardClientLive
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature
import TranscribeServer

/// `transcribe dictate`: types what you say into the window you are working in.
struct Dictate: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Type what you say into the focused window, on X11 or Wayland.",
    discussion: """
      Listens like transcribe (same --device, --engine, --vad, --silence, --duration and \
      --preview options) and types each finished utterance into the window that has the \
      keyboard focus, spaced as a person types: a space between utterances, none before \
      punctuation, a capital only where a sentence begins. A pause to think does not end a \
      sentence: an unfinished one is held open through a pause of up to --max-silence (2 s \
      here), and a fragment cut off after a word such as "the" is joined to what follows. \
      On a terminal it shows what it heard and typed; into a pipe, standard output gets what \
      was typed.

      TYPING: --typer auto (the default) uses wtype on a Wayland compositor that offers the \
      virtual-keyboard protocol (sway, Hyprland, river, labwc), xdotool on X11 (and for \
      XWayland windows), ydotool when its daemon runs (GNOME, KDE); stdout writes the text \
      instead. Text outside your keyboard layout (é ü ß ’ — €) is typed too. `transcribe \
      dictate --type-text "naïve café"` types a text and exits: a check that typing works on \
      your desktop and layout.

      SPOKEN COMMANDS (--no-commands turns them off): "new line" and "new paragraph" anywhere \
      in an utterance; "scratch that" alone erases the last typed utterance.

      HOTKEYS: one dictation runs per user session (a second one exits with status 14); \
      --toggle, --pause, --resume and --stop reach it (through a socket in $XDG_RUNTIME_DIR) \
      and give up after 3 s when it does not answer (status 17). While paused nothing is \
      decoded or typed and the microphone is released; --stop types the last words and ends \
      it. Start it with --start-paused and bind `transcribe dictate --toggle` to a key:
        GNOME: Settings, Keyboard, View and Customize Shortcuts, Custom Shortcuts
        KDE:   System Settings, Shortcuts, Add New, Command or Script
        sway:  bindsym $mod+d exec transcribe dictate --toggle

      EXAMPLES:
        transcribe dictate                    dictate until Ctrl-C
        transcribe dictate --start-paused &   wait for the hotkey
        transcribe dictate --toggle           pause or resume it
        transcribe dictate --type-text "Grüße — €"    check typing here
        transcribe dictate --preview --typer stdout --duration 5

      \(ExitStatus.documentation)
      """
  )

  /// `--preview`, shared with the parent command (see ``PreviewOption``).
  @OptionGroup var previewOption: PreviewOption
  /// `--device`, `--duration`, `--list-devices`, shared with the parent command.
  @OptionGroup var listeningOptions: ListeningOptions
  /// `--engine`, shared with the parent command.
  @OptionGroup var engineOption: EngineOption
  /// `--language`, `--translate`, `--list-languages` (see ``LanguageOption``).
  @OptionGroup var languageOption: LanguageOption
  /// `--vad`, `--vad-threshold`, `--vad-model`, shared with the parent command.
  @OptionGroup var voiceActivityOption: VoiceActivityOption
  /// `--endpointing`, `--max-silence`, shared with the parent command.
  @OptionGroup var endpointingOption: EndpointingOption
  /// `--hotwords`, `--hotwords-file`, `--hotword-boost`, shared with the parent command.
  @OptionGroup var hotwordsOption: HotwordsOption
  /// The model and decoding options, shared with the parent command.
  @OptionGroup var decodingOptions: DecodingOptions
  /// `--partials`, shared with the parent command.
  @OptionGroup(visibility: .private) var partialsOption: PartialsOption
  /// `transcribe`'s file options, refused here.
  @OptionGroup(visibility: .private) var inputOptions: InputOptions

  @Option(
    help: ArgumentHelp(
      "How to type: auto (the default), wtype, xdotool, ydotool or stdout.",
      valueName: "typer"))
  var typer: Typer?

  @Option(
    name: .customLong("type-text"),
    help: ArgumentHelp(
      "Type this text through the typer and exit (a check that typing works here).",
      valueName: "text"))
  var typeText: String?

  @Flag(
    exclusivity: .exclusive,
    help: ArgumentHelp(
      "Control the running dictation: pause it if it listens, else resume it; or pause, "
        + "resume, or stop it (its last words are typed)."))
  var control: ControlFlag?

  @Flag(help: "Start paused: nothing is heard until --toggle or --resume.")
  var startPaused = false

  @Flag(name: .customLong("no-commands"), help: "Type \"new line\" and \"scratch that\" as words.")
  var noCommands = false

  /// Dictation holds an unfinished sentence open through a longer pause than transcription
  /// does: people think while they dictate.
  static let defaultMaximumSilence: Double = 2

  func validate() throws {
    if let option = inputOptions.given.first {
      throw ValidationError(
        "\(option) is for transcribing files; transcribe dictate listens to a microphone "
          + "(--device NAME chooses one).")
    }
    if let control {
      let others =
        listeningOptions.given + decodingOptions.given + hotwordsOption.given
        + languageOption.given + (typer != nil ? ["--typer"] : [])
        + (typeText != nil ? ["--type-text"] : [])
        + (startPaused ? ["--start-paused"] : []) + (noCommands ? ["--no-commands"] : [])
        + (previewOption.preview ? ["--preview"] : [])
      if let other = others.first {
        throw ValidationError(
          "--\(control.rawValue) reaches the running dictation; it takes no other options "
            + "(got \(other)).")
      }
    }
    if typeText != nil, startPaused || previewOption.preview || !listeningOptions.given.isEmpty {
      throw ValidationError(
        "--type-text types its text and exits; it takes only --typer.")
    }
    if decodingOptions.jobs != nil {
      throw ValidationError("--jobs is for files; dictation decodes with one decoder.")
    }
  }

  /// The same options as `transcribe` itself, for its checks, requests and live configuration.
  func transcribe() throws -> Transcribe {
    var command = try Transcribe.parse([])
    command.previewOption = previewOption
    command.listeningOptions = listeningOptions
    command.engineOption = engineOption
    command.languageOption = languageOption
    command.voiceActivityOption = voiceActivityOption
    command.partialsOption = partialsOption
    var endpointing = endpointingOption
    if endpointing.maxSilence == nil, endpointing.endpointing != .fixed {
      endpointing.maxSilence = max(Self.defaultMaximumSilence, decodingOptions.silence ?? 0)
    }
    command.endpointingOption = endpointing
    command.hotwordsOption = hotwordsOption
    command.decodingOptions = decodingOptions
    return command
  }

  func run() async throws {
    signal(SIGPIPE, SIG_IGN)
    if let control {
      try await send(control.command)
      return
    }
    if let typeText {
      let keyboard = try keyboard(explicitOnly: false)
      do {
        try await keyboard.client.type(typeText)
        await keyboard.client.finish()
      } catch {
        await keyboard.client.finish()
        Terminal.writeError("transcribe: error: \(KeyboardClient.Failure(error).message)\n")
        throw ExitStatus.typingUnavailable.exitCode
      }
      return
    }
    let command = try transcribe()
    try command.checkOptions()
    if listeningOptions.listDevices {
      try await command.printDevices()
      return
    }
    if languageOption.listLanguages {
      try command.printLanguages()
      return
    }
    // One dictation per user: the lock comes before anything that takes time or types.
    let path = try Self.controlSocketPath()
    let lock = try await Self.claimControlSocket(path)
    defer { lock.release() }
    let keyboard = try self.keyboard(explicitOnly: previewOption.preview)

    let source: SpeechRecognitionRequest.AudioSource =
      listeningOptions.device.map { .device($0) } ?? .microphone
    var request = command.request(source: source)
    // A sentence typed as ended that goes on after a thinking pause is retyped as one.
    request.resumptionWindow = Dictation.resumptionWindow
    // Dictation takes each utterance as it comes: a day's transcript need not stay in memory.
    request.keptUtterances = Dictation.keptUtterances
    var client: SpeechClient?
    var detectorName: String?
    if !previewOption.preview {
      let resolved = try voiceActivityOption.resolved()
      detectorName = Transcribe.detectorName(resolved.detection, engine: command.selectedEngine)
      var configuration = command.liveConfiguration(voiceActivity: resolved.options)
      configuration.authorizationRequest = request
      client = .live(configuration)
    }
    let session = await DictationSession(
      request: request, duration: listeningOptions.duration.map { .seconds($0) },
      startsPaused: startPaused, recognizesCommands: !noCommands,
      preview: previewOption.preview, speechClient: client, keyboard: keyboard)
    let server: DictationControl.Server
    do {
      server = try await DictationControl.serve(at: path) { command in
        await session.handle(command)
      }
    } catch {
      Terminal.writeError(
        "transcribe: error: cannot serve the control socket \(path) (\(error)); check that its "
          + "directory is yours and writable.\n")
      throw ExitStatus.failure.exitCode
    }
    if Terminal.stderrIsTerminal {
      Terminal.writeError(
        Self.startMessage(
          source: source, engine: request.engine.name, detector: detectorName,
          typer: keyboard.choice.description, preview: previewOption.preview, paused: startPaused)
          + "\n")
    }
    let signals = await SignalHandler()
    let status = await session.run(signals: signals)
    await server.close()
    if status != .success { throw status.exitCode }
  }

  /// The control socket's path, or the line that says why there is none.
  static func controlSocketPath() throws -> String {
    do {
      return try DictationControl.socketPath()
    } catch {
      Terminal.writeError("transcribe: error: \(error.message)\n")
      throw ExitStatus.failure.exitCode
    }
  }

  /// Takes the control socket's lock, or says which dictation holds it and exits with status
  /// 14.
  static func claimControlSocket(_ path: String) async throws -> UnixSocketLock {
    let lock: UnixSocketLock?
    do {
      lock = try UnixSocketLock.acquire(socket: path)
    } catch {
      Terminal.writeError(
        "transcribe: error: cannot lock \(error.path) (\(error.reason)); check that its "
          + "directory is yours and writable, or set XDG_RUNTIME_DIR to one that is.\n")
      throw ExitStatus.failure.exitCode
    }
    var running = lock == nil ? UnixSocketLock.owner(socket: path) : nil
    // The owner writes its pid just after taking the lock: a racing start may look too early.
    for _ in 0..<10 where lock == nil && running == nil {
      try? await Task.sleep(for: .milliseconds(20))
      running = UnixSocketLock.owner(socket: path)
    }
    if let lock, UnixSocketLock.isLive(path) {
      // Served without the lock: a dictation of an older transcribe.
      lock.release()
      if case .reply(let reply) = await DictationControl.send(.status, path: path) {
        running = reply.split(separator: " ").first.flatMap { pid_t($0) }
      }
    } else if let lock {
      return lock
    }
    let which = running.map { "already running (pid \($0))" } ?? "already running or starting"
    Terminal.writeError(
      "transcribe: error: a dictation is \(which); control it with transcribe dictate "
        + "--toggle, --pause, --resume or --stop.\n")
    throw ExitStatus.dictationRunning.exitCode
  }

  /// Sends a control command to the running dictation and prints its reply.
  func send(_ command: DictationControl.Command) async throws {
    let path = try Self.controlSocketPath()
    let reply: String
    switch await DictationControl.send(command, path: path) {
    case .reply(let line):
      reply = line
    case .notRunning:
      Terminal.writeError(
        "transcribe: error: no dictation is running (nothing answers at \(path)); start one "
          + "with transcribe dictate.\n")
      throw ExitStatus.noDictationRunning.exitCode
    case .noAnswer:
      let seconds = DictationControl.replyDeadline.nanoseconds / 1_000_000_000
      let end =
        UnixSocketLock.owner(socket: path).map {
          "end it with kill \($0) (kill -9 \($0) if it stays)"
        }
        ?? "end it with kill"
      Terminal.writeError(
        "transcribe: error: the dictation at \(path) did not answer within \(seconds) s; it is "
          + "stuck or stopped: \(end), then start a new one.\n")
      throw ExitStatus.dictationNotAnswering.exitCode
    }
    if reply.hasPrefix("error") {
      Terminal.writeError("transcribe: \(reply)\n")
      throw ExitStatus.failure.exitCode
    }
    try? Terminal.write(reply.split(separator: " ").dropFirst().joined(separator: " ") + "\n")
  }

  /// The keyboard client for `--typer` (under `--preview` only when it is given: else the
  /// preview's, which writes to standard output), and the tool it types with.
  func keyboard(explicitOnly: Bool) throws -> (client: KeyboardClient, choice: TyperChoice) {
    if explicitOnly, typer == nil { return (.standardOutput, TyperChoice(typer: .stdout)) }
    do {
      return try (typer ?? .auto).makeClient()
    } catch {
      Terminal.writeError("transcribe: error: \(error.message)\n")
      throw ExitStatus.typingUnavailable.exitCode
    }
  }

  /// The status line that says what is heard and how it is typed.
  static func startMessage(
    source: SpeechRecognitionRequest.AudioSource, engine: SpeechRecognitionRequest.EngineName?,
    detector: String?, typer: String, preview: Bool, paused: Bool
  ) -> String {
    let from =
      preview
      ? "lorem ipsum (preview)"
      : {
        if case .device(let name) = source { return name }
        return "the default microphone"
      }()
    let by =
      preview
      ? ""
      : (engine.map { " with \($0.displayName)" } ?? "") + (detector.map { " and \($0)" } ?? "")
    let state = paused ? "Paused; `transcribe dictate --toggle` starts dictating" : "Dictating"
    return "\(state) from \(from)\(by), typing with \(typer). Ctrl-C or "
      + "`transcribe dictate --stop` ends it."
  }
}

/// `--toggle`, `--pause`, `--resume`, `--stop`: a command for the running dictation.
enum ControlFlag: String, EnumerableFlag {
  case toggle, pause, resume, stop

  var command: DictationControl.Command {
    switch self {
    case .toggle: .toggle
    case .pause: .pause
    case .resume: .resume
    case .stop: .stop
    }
  }
}
