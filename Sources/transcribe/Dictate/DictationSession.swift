import Architecture
import DictationFeature
import Foundation
import KeyboardClient
import KeyboardClientLive
import SpeechClient
import SpeechRecognitionFeature

/// One run of the `Dictation` store, hosted in a terminal: it starts dictation, passes on the
/// control socket's commands and signals, and renders every state until dictation is over.
@MainActor
final class DictationSession {
  let store: StoreOf<Dictation>
  private var renderer: DictationRenderer
  private var states: NewestStates<Dictation.State>?
  /// Why the session ended before dictation did: an insisting Ctrl-C, or output that cannot be
  /// written.
  private var stop: ExitStatus?

  init(
    request: SpeechRecognitionRequest, duration: Duration?, startsPaused: Bool,
    recognizesCommands: Bool, preview: Bool, speechClient: SpeechClient?,
    keyboard: (client: KeyboardClient, choice: TyperChoice)
  ) {
    store = Store(
      initialState: Dictation.State(
        speech: SpeechRecognition.State(request: request, duration: duration),
        startsPaused: startsPaused, recognizesCommands: recognizesCommands)
    ) {
      Dictation()
    } withDependencies: {
      if preview {
        $0.context = .preview
      } else if $0.context == .live, let speechClient {
        $0.speechClient = speechClient
      }
      $0.keyboardClient = keyboard.client
    }
    renderer = DictationRenderer(
      isTerminal: Terminal.stdoutIsTerminal, stderrIsTerminal: Terminal.stderrIsTerminal,
      keyboardWritesStandardOutput: keyboard.choice.typer == .stdout, width: Terminal.width)
  }

  /// How long an ending that skips the last words (a second Ctrl-C, output that cannot be
  /// written) waits for the keyboard to give back what it borrowed.
  static let releaseDeadline = Duration.seconds(3)

  /// Runs dictation to its end and returns the exit status. However it ends, the keyboard
  /// gives back what it borrowed (xdotool's bound keys) before this returns: by dictation's own
  /// end, or else by ``Dictation/Action/interrupt`` (within ``releaseDeadline``).
  func run(signals: SignalHandler) async -> ExitStatus {
    let status = await render(signals: signals)
    await releaseKeyboard()
    return status
  }

  /// Renders every state until dictation is over or the session stops it.
  private func render(signals: SignalHandler) async -> ExitStatus {
    let states = NewestStates(of: store)
    self.states = states
    defer { self.states = nil }
    signals.onSignal = { [weak self] signal in self?.handle(signal) }
    defer { signals.onSignal = nil }

    store.send(.start)
    for await state in states.stream {
      guard stop == nil else { break }
      guard TranscriptionSession.write(renderer.render(state)) else { return .outputFailed }
      if state.isFinished { break }
    }
    if let stop { return stop }
    guard TranscriptionSession.write(renderer.finish()) else { return .outputFailed }
    let exit = store.state.speech.exit
    if let message = exit.message {
      Terminal.writeError("transcribe: error: \(message)\n")
    }
    return exit.status
  }

  /// Interrupts a dictation that is not over yet, so the keyboard gives back what it borrowed
  /// (or finishes giving it back, when that was under way); waits for that at most
  /// ``releaseDeadline``.
  private func releaseKeyboard() async {
    guard !store.state.isFinished else { return }
    store.send(.interrupt)
    let deadline = ContinuousClock.now + Self.releaseDeadline
    while !store.state.isFinished, ContinuousClock.now < deadline {
      try? await Task.sleep(for: .milliseconds(10))
    }
  }

  /// A command from the control socket; the reply says what dictation does now.
  func handle(_ command: DictationControl.Command) -> String {
    switch command {
    case .toggle: store.send(.toggle)
    case .pause: store.send(.pause)
    case .resume: store.send(.resume)
    case .stop: store.send(.stop)
    case .status: break
    }
    let state = store.state
    let now =
      state.isStopping ? "stopping" : state.isPaused ? "paused" : "listening"
    return "\(getpid()) \(now)"
  }

  /// A signal stops dictation (the last words are typed); Ctrl-C while stopping ends at once.
  func handle(_ signal: Int32) {
    guard stop == nil else { return }
    if signal == SIGINT, store.state.isStopping {
      stop = .interrupted
      _ = TranscriptionSession.write(renderer.finish())
      Terminal.writeError("transcribe: interrupted\n")
      states?.finish()
      return
    }
    store.send(.stop)
  }
}
