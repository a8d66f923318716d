import Architecture
import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// One run of the `SpeechRecognition` store for one audio source, hosted in a terminal: it sends
/// the record button's taps (to start, and to stop on a signal) and renders every state until
/// the feature reports the session's ``SpeechRecognition/State/outcome``. The feature owns the
/// rest: authorization, `--duration`, the stop deadline and progress.
@MainActor
final class TranscriptionSession {
  let store: StoreOf<SpeechRecognition>
  private var renderer: TranscriptRenderer
  private let startMessage: String
  private let header: String?

  init(
    request: SpeechRecognitionRequest, duration: Duration?, label: String?,
    format: OutputFormat, preview: Bool, verbose: Bool
  ) {
    self.store = Store(
      initialState: SpeechRecognition.State(request: request, duration: duration)
    ) {
      SpeechRecognition()
    } withDependencies: {
      if preview {
        $0.context = .preview
      } else if $0.context == .live {
        $0.speechClient = LiveSupport.client(for: request, verbose: verbose)
      }
    }
    self.renderer = TranscriptRenderer(
      format: format, stdoutIsTerminal: Terminal.stdoutIsTerminal,
      stderrIsTerminal: Terminal.stderrIsTerminal, label: label, width: Terminal.width)
    self.header = label.flatMap { format == .text ? "==> \($0) <==\n" : nil }
    self.startMessage = Self.startMessage(for: request.source, preview: preview)
  }

  /// Runs the session to its end and returns the exit status.
  ///
  /// A signal stops recording (the feature flushes the last words); a Ctrl-C while stopping
  /// ends the process at once with status 130.
  func run(signals: SignalHandler) async -> ExitStatus {
    // Each state holds the whole transcript so far (finished utterances are shared, not
    // copied), so a renderer that falls behind needs only the newest one.
    let states = store.states(bufferingPolicy: .bufferingNewest(1))
    if let header { write([.stdout(header)]) }
    if Terminal.stderrIsTerminal { Terminal.writeError(startMessage + "\n") }

    signals.onSignal = { [weak self] signal in self?.handle(signal) }
    defer { signals.onSignal = nil }

    store.send(.recordButtonTapped)
    for await state in states {
      write(renderer.render(state))
      if state.outcome != nil { break }
    }
    write(renderer.finish())

    let exit = store.state.exit
    if let message = exit.message {
      Terminal.writeError("transcribe: error: \(message)\n")
    }
    return exit.status
  }

  /// A signal: the first stops recording; Ctrl-C while already stopping quits at once.
  func handle(_ signal: Int32) {
    if signal == SIGINT, store.state.status == .finishing {
      // The user insists: keep what is on screen, and go.
      write(renderer.finish())
      Terminal.writeError("transcribe: interrupted\n")
      exit(ExitStatus.interrupted.rawValue)
    }
    if store.state.isRecording {
      store.send(.recordButtonTapped)
    }
  }

  private static func startMessage(
    for source: SpeechRecognitionRequest.AudioSource, preview: Bool
  ) -> String {
    if preview { return "Listening to lorem ipsum (preview). Press Ctrl-C to stop." }
    switch source {
    case .microphone: return "Listening to the default microphone. Press Ctrl-C to stop."
    case .device(let name): return "Listening to \(name). Press Ctrl-C to stop."
    case .file(let url), .rawFile(let url): return "Transcribing \(url.path)…"
    case .standardInput: return "Transcribing standard input…"
    case .pushed: return "Transcribing pushed audio…"
    }
  }

  /// Writes output; a transcript that cannot be written ends the process with one line.
  private func write(_ output: [TranscriptRenderer.Output]) {
    for piece in output {
      switch piece {
      case .stdout(let text):
        do {
          try Terminal.write(text)
        } catch {
          Terminal.writeError("transcribe: error: \(Transcribe.outputFailure(error.reason))\n")
          exit(ExitStatus.outputFailed.rawValue)
        }
      case .stderr(let text):
        Terminal.writeError(text)
      }
    }
  }
}
