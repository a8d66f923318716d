import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// One run of the `SpeechRecognition` store for one audio source: starts recording, renders every
/// state, stops on `--duration` or a signal, and reports how it ended.
@MainActor
final class TranscriptionSession {
  let store: StoreOf<SpeechRecognition>
  let label: String?
  let format: OutputFormat
  let preview: Bool
  let duration: Duration?
  private(set) var wasInterrupted = false
  private var renderer: TranscriptRenderer
  private var stopRequested = false
  private var stopDeadline: Task<Void, Never>?
  private var timedOut = false

  /// How long to wait for the last words after asking the recognizer to stop.
  static let stopTimeout: Duration = .seconds(10)

  init(
    request: SpeechRecognitionRequest, label: String?, format: OutputFormat, preview: Bool,
    duration: Duration?, verbose: Bool = false
  ) {
    self.store = Store(initialState: SpeechRecognition.State(request: request)) {
      SpeechRecognition()
    } withDependencies: {
      if preview {
        $0.context = .preview
      } else if $0.context == .live {
        $0.speechClient = LiveSupport.client(for: request, verbose: verbose)
      }
    }
    self.label = label
    self.format = format
    self.preview = preview
    self.duration = duration
    self.renderer = TranscriptRenderer(
      format: format, isTerminal: Terminal.stdoutIsTerminal, label: label,
      width: Terminal.width,
      // A file's progress line (standard error) takes the live row; see LiveSupport.
      sharesTheRow: request.source.isFile && !preview && LiveSupport.showsProgress)
  }

  /// Runs the session to its end and returns the exit status.
  func run() async -> ExitStatus {
    let states = store.states
    if let label, format == .text {
      Terminal.write("==> \(label) <==\n")
    }
    status(startMessage)

    let signals = SignalHandler { [weak self] signal, count in
      guard let self else { return }
      if count == 1 {
        self.wasInterrupted = signal == SIGINT
        if Terminal.stdoutIsTerminal, Terminal.stderrIsTerminal {
          // Erase the live line (and the echoed ^C); the final words are written after.
          Terminal.write("\r\u{1B}[2K")
        }
        self.status("Stopping… (press Ctrl-C again to quit at once)")
        self.stop()
      } else {
        // The user insists: keep what is on screen, and go.
        self.write(self.renderer.finish())
        Terminal.writeError("transcribe: interrupted\n")
        exit(ExitStatus.interrupted.rawValue)
      }
    }
    defer { signals.cancel() }

    let durationTimer = duration.map { duration in
      Task { [weak self] in
        try? await Task.sleep(for: duration)
        self?.stop()
      }
    }
    defer {
      durationTimer?.cancel()
      stopDeadline?.cancel()
    }

    store.send(.recordButtonTapped)
    var started = false
    for await state in states {
      write(renderer.render(state))
      if state.isRecording {
        started = true
      } else if started {
        break
      }
    }
    write(renderer.finish())

    if timedOut {
      Terminal.writeError(
        "transcribe: error: the recognizer did not deliver its last words within "
          + "\(Self.stopTimeout); what was heard so far is above.\n")
      return .stopTimedOut
    }
    var outcome = store.state.outcome
    if outcome.status == .notAuthorized, !preview,
      let reason = await LiveSupport.reasonNotAuthorized(for: store.state.request)
    {
      // The feature only knows the status; the live module can say what exactly is missing.
      outcome = (reason.exitStatus, reason.message)
    }
    if let message = outcome.message {
      if Terminal.stderrIsTerminal {
        // A file's progress line may still be on this row when the decoder failed.
        Terminal.writeError("\r\u{1B}[2K")
      }
      Terminal.writeError("transcribe: error: \(message)\n")
    }
    return outcome.status
  }

  /// Asks the recognizer to stop and deliver its last words, giving up after ``stopTimeout``.
  func stop() {
    guard !stopRequested else { return }
    stopRequested = true
    guard store.state.isRecording else { return }
    store.send(.recordButtonTapped)
    stopDeadline = Task { [weak self] in
      try? await Task.sleep(for: Self.stopTimeout)
      guard !Task.isCancelled, let self else { return }
      self.timedOut = true
      self.store.send(.speech(.failure(.decoderFailure("stopping timed out"))))
    }
  }

  private var startMessage: String {
    if preview { return "Listening to lorem ipsum (preview). Press Ctrl-C to stop." }
    switch store.state.request.source {
    case .microphone: return "Listening to the default microphone. Press Ctrl-C to stop."
    case .device(let name): return "Listening to \(name). Press Ctrl-C to stop."
    case .file(let url), .rawFile(let url): return "Transcribing \(url.path)…"
    case .standardInput: return "Transcribing standard input…"
    }
  }

  /// A status line on standard error, only when it is a terminal.
  private func status(_ message: String) {
    guard Terminal.stderrIsTerminal else { return }
    Terminal.writeError(message + "\n")
  }

  private func write(_ output: [TranscriptRenderer.Output]) {
    for case .stdout(let text) in output {
      Terminal.write(text)
    }
  }
}

extension SpeechRecognitionRequest.AudioSource {
  /// Whether the audio comes from a file (which has progress) rather than a capture source.
  var isFile: Bool {
    switch self {
    case .file, .rawFile, .standardInput: true
    case .microphone, .device: false
    }
  }
}
