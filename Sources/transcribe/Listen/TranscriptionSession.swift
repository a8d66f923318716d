import Architecture
import Foundation
import SpeechClient
import SpeechClientLive
import SpeechRecognitionFeature

/// One run of the `SpeechRecognition` store for one audio source, hosted in a terminal: it starts
/// the session, finishes it on a signal, and renders every state until
/// the feature reports the session's ``SpeechRecognition/State/outcome``. The feature owns the
/// rest: authorization, `--duration`, the stop deadline and progress.
///
/// The files of a batch are sessions one after another that hand the renderer on (so its
/// progress row for the batch stays) and read the batch's progress from `batchProgress`.
@MainActor
final class TranscriptionSession {
  let store: StoreOf<SpeechRecognition>
  /// The renderer, which the next file of a batch takes over once this session has run.
  private(set) var renderer: TranscriptRenderer
  private let startMessage: String?
  private let header: String?
  private let batchProgress: (@Sendable () -> FileBatchProgress?)?
  /// Paths read under another name (`/dev/fd/N` for a file name that is not UTF-8), and the
  /// name to show in messages instead.
  private let pathNames: [String: String]
  /// The states ``run(signals:)`` renders, while it runs.
  private var states: NewestStates<SpeechRecognition.State>?
  /// Why the session ended before the feature's outcome: an insisting Ctrl-C, or output that
  /// cannot be written.
  private var stop: ExitStatus?

  /// A session for `request`.
  ///
  /// - Parameters:
  ///   - client: the live client to run (`nil` under `--preview` or a forced dependency
  ///     context, where the context's client answers).
  ///   - renderer: the renderer to go on with, for the next file of a batch; `nil` for a new one.
  ///   - announcesStart: whether to say on a terminal's standard error what is transcribed
  ///     (`Transcribing talk.wav…`) before starting.
  ///   - batchProgress: the progress of the batch this file belongs to, for its progress row.
  init(
    request: SpeechRecognitionRequest, duration: Duration?, label: String?,
    format: OutputFormat, preview: Bool, client: SpeechClient?, renderer: TranscriptRenderer? = nil,
    announcesStart: Bool = true, batchProgress: (@Sendable () -> FileBatchProgress?)? = nil,
    pathNames: [String: String] = [:], detector: String? = nil
  ) {
    self.pathNames = pathNames
    self.store = Store(
      initialState: SpeechRecognition.State(request: request, duration: duration)
    ) {
      SpeechRecognition()
    } withDependencies: {
      if preview {
        $0.context = .preview
      } else if $0.context == .live, let client {
        $0.speechClient = client
      }
    }
    var renderer =
      renderer
      ?? TranscriptRenderer(
        format: format, stdoutIsTerminal: Terminal.stdoutIsTerminal,
        stderrIsTerminal: Terminal.stderrIsTerminal, label: label, width: Terminal.width)
    renderer.startFile(label: label)
    self.renderer = renderer
    self.header = label.flatMap { format == .text ? "==> \($0) <==\n" : nil }
    self.startMessage =
      announcesStart
      ? Self.startMessage(
        for: request.source, engine: request.engine.name, detector: detector, preview: preview
      )
      .naming(pathNames)
      : nil
    self.batchProgress = batchProgress
  }

  /// Runs the session to its end and returns the exit status.
  ///
  /// A signal stops recording (the feature flushes the last words); a Ctrl-C while stopping
  /// ends the session at once with ``ExitStatus/interrupted``, and a transcript that cannot be
  /// written with ``ExitStatus/outputFailed``: the caller stops there and exits with it.
  func run(signals: SignalHandler) async -> ExitStatus {
    // The newest states, through a stream an insisting Ctrl-C ends without waiting for the store.
    let states = NewestStates(of: store)
    self.states = states
    defer { self.states = nil }
    if let header, !Self.write([.stdout(header)]) { return .outputFailed }
    if Terminal.stderrIsTerminal, let startMessage { Terminal.writeError(startMessage + "\n") }

    signals.onSignal = { [weak self] signal in self?.handle(signal) }
    defer { signals.onSignal = nil }

    store.send(.start)
    for await state in states.stream {
      guard stop == nil else { break }
      guard Self.write(renderer.render(state, batch: batchProgress?())) else {
        return .outputFailed
      }
      if state.outcome != nil { break }
    }
    if let stop { return stop }
    // A batch's progress row stays for its next file; whoever runs the batch erases it.
    guard Self.write(batchProgress == nil ? renderer.finish() : renderer.finishFile()) else {
      return .outputFailed
    }

    let exit = store.state.exit
    if let message = exit.message?.naming(pathNames) {
      guard Self.write(renderer.failed(message: message, status: exit.status)) else {
        return .outputFailed
      }
      Terminal.writeError("transcribe: error: \(message)\n")
    }
    return exit.status
  }

  /// A signal: the first stops recording; Ctrl-C while already stopping ends the session at
  /// once (``run(signals:)`` returns ``ExitStatus/interrupted``), keeping what is on screen.
  func handle(_ signal: Int32) {
    guard stop == nil else { return }
    if signal == SIGINT, store.state.status == .finishing {
      // The user insists: keep what is on screen, and go.
      stop = Self.write(renderer.finish()) ? .interrupted : .outputFailed
      Terminal.writeError("transcribe: interrupted\n")
      states?.finish()
      return
    }
    if store.state.isRecording {
      store.send(.finish)
    }
  }

  /// The status line that says what is transcribed, by which engine, and which voice-activity
  /// detector finds the speech (`Transcribing talk.wav with Moonshine and Silero VAD…`).
  static func startMessage(
    for source: SpeechRecognitionRequest.AudioSource,
    engine: SpeechRecognitionRequest.EngineName?, detector: String? = nil, preview: Bool
  ) -> String {
    if preview { return "Listening to lorem ipsum (preview). Press Ctrl-C to stop." }
    let by =
      (engine.map { " with \($0.displayName)" } ?? "")
      + (detector.map { engine == nil ? " with \($0)" : " and \($0)" } ?? "")
    switch source {
    case .microphone: return "Listening to the default microphone\(by). Press Ctrl-C to stop."
    case .device(let name): return "Listening to \(name)\(by). Press Ctrl-C to stop."
    case .file(let url), .rawFile(let url): return "Transcribing \(url.path)\(by)…"
    case .standardInput: return "Transcribing standard input\(by)…"
    case .pushed: return "Transcribing pushed audio\(by)…"
    }
  }

  /// Writes output; for a transcript that cannot be written, says so in one line and returns
  /// `false` (the run then ends with ``ExitStatus/outputFailed``).
  @discardableResult
  static func write(_ output: [TranscriptRenderer.Output]) -> Bool {
    for piece in output {
      switch piece {
      case .stdout(let text):
        do {
          try Terminal.write(text)
        } catch {
          Terminal.writeError("transcribe: error: \(Transcribe.outputFailure(error.reason))\n")
          return false
        }
      case .stderr(let text):
        Terminal.writeError(text)
      }
    }
    return true
  }
}

extension String {
  /// The text with each path read under another name replaced by the name the user gave.
  func naming(_ pathNames: [String: String]) -> String {
    pathNames.reduce(self) { text, alias in
      text.replacingOccurrences(of: "'\(alias.key)'", with: "'\(alias.value)'")
        .replacingOccurrences(of: " \(alias.key)…", with: " \(alias.value)…")
    }
  }
}
