import Architecture
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature

/// One stream in vosk-server's protocol, from the first message to the close, as a reducer.
///
/// The session composes ``SpeechRecognition`` (the same feature the CLI runs) with the stream's
/// protocol: every audio message and the end get exactly one reply, once the decoder has caught
/// up with that message (waiting at most ``ServerConfiguration/replyWait``): a finished utterance not sent
/// yet if there is one, else the current partial. The reply to `{"eof" : 1}` carries every
/// finished word not sent yet, then the stream closes normally. Errors close the stream with
/// their code (``WebSocketSessionError``); an idle stream, one past its maximum length and a
/// server shutting down first deliver the last words.
///
/// Nothing here touches the socket or the audio buffer: the state holds values only. Audio goes
/// to the decoder by effects through ``AudioInbox``, and how far the decoder has got comes back
/// as recognition's own results (their progress), so pacing is decided from the state alone.
/// The state says what the host does next:
/// - ``State/outbox``: replies and the close, in order, for the host to write and acknowledge
///   with ``Action/written(_:)``;
/// - ``State/allowedMessages``: how many messages the host may have read so far. A message is
///   read only once the previous one is answered and at most
///   ``ServerConfiguration/maxBufferedAudio`` of audio pushed wait to be decoded (as far as the
///   decoder last reported), so a client sending faster than the decoder waits in TCP;
/// - ``State/ending``: set once the session is over and everything in the outbox is final.
///
/// Timers are cancellable effects on `@Dependency(\.continuousClock)`: each replaces the one
/// before it, so nothing accumulates however many messages a stream sends. The idle, maximum
/// length and last-words timers follow the rule every streaming protocol shares
/// (``SessionTimers``: only audio renews the idle time); the reply deadline is this protocol's.
@Reducer
struct VoskSession: Sendable {
  /// Something for the host to write to the socket.
  enum Output: Equatable, Sendable {
    /// A text message.
    case reply(VoskReply)
    /// The close frame: normal closure for `nil`, else the error's code and reason.
    case close(WebSocketSessionError?)
  }

  /// How a session ended.
  enum Ending: Equatable, Sendable {
    /// The client sent `{"eof" : 1}` and got the last words.
    case endOfStream
    /// The client closed or went away.
    case clientGone
    /// Reading the socket failed (the description says how); the protocol layer closes.
    case readFailed(String)
    /// The stream was closed for this reason (after the last words where there were any).
    case error(WebSocketSessionError)
  }

  /// Where a session is.
  enum Phase: Equatable, Sendable {
    /// Messages are read and answered.
    case streaming
    /// The audio is over; the last words are awaited, then the stream ends with `closing`
    /// (`nil` after `{"eof" : 1}`).
    case finishing(closing: WebSocketSessionError?)
    /// The last words are ready but the client has no message waiting for an answer: they go
    /// out as the answer to its next message, or when ``ServerConfiguration/replyWait`` passes.
    case awaitingMessage(words: [TranscriptionSegment], closing: WebSocketSessionError)
    /// The session is over (see ``State/ending``).
    case over
  }

  /// The reply an audio message waits for.
  struct PendingReply: Equatable, Sendable {
    /// The message's number in the stream.
    var number: Int
    /// The samples pushed up to and including it.
    var samples: Int
  }

  struct State: Equatable {
    /// The stream's configuration (its first message, or the defaults).
    var configuration = VoskStreamConfiguration()
    /// Recognition, from the first audio message (or the end) on; its request reads the
    /// session's ``AudioInbox``.
    var recognition: SpeechRecognition.State?
    /// The samples pushed to the inbox so far.
    var pushedSamples = 0
    var phase = Phase.streaming
    /// The reply being waited for.
    var pending: PendingReply?
    /// Audio messages received.
    var audioMessages = 0
    /// Finished utterances already taken from the transcript.
    var takenUtterances = 0
    /// Finished utterances not sent yet.
    var finals: [[TranscriptionSegment]] = []
    /// Whether a reply went out and the next message waits only for the buffer to drain.
    var wantsMessage = false
    /// Whether a message arrived while the last words were awaited (they are its answer).
    var isMessageUnanswered = false
    /// What to write, in order, not acknowledged yet.
    var outbox: [Output] = []
    /// How many outputs the host has written in all (the outbox starts after them).
    var written = 0
    /// Audio received since the idle timeout last started (``SessionTimers``).
    var idleAudio = IdleAudio()
    /// Messages received so far.
    var receivedMessages = 0
    /// How many messages the host may have read so far.
    var allowedMessages = 1
    /// How the session ended, once it has.
    var ending: Ending?

    init(configuration: VoskStreamConfiguration = VoskStreamConfiguration()) {
      self.configuration = configuration
    }

    /// The samples the decoder has reached, as it last reported.
    var decodedSamples: Int {
      guard let progress = recognition?.progress else { return 0 }
      return Int((progress.audioDuration * Double(configuration.sampleRate)).rounded())
    }
  }

  enum Action: Equatable, Sendable {
    /// The stream opened: the idle and maximum-length timers start.
    case start
    /// A text message from the client.
    case text(String)
    /// A binary message (16-bit little-endian PCM) from the client.
    case audio(ByteBuffer)
    /// The host has written this many outputs in all.
    case written(through: Int)
    /// The client closed the stream or the connection went away.
    case clientLeft
    /// Reading the socket failed (a message over the protocol's limit, a bad frame).
    case readFailed(String)
    /// The server is shutting down.
    case shutdown
    case recognition(SpeechRecognition.Action)
    /// The wait for the decoder before the pending reply is over.
    case replyDeadlineElapsed
    /// No message arrived for the idle timeout.
    case idleTimeoutElapsed
    /// The stream reached its maximum length.
    case maxDurationElapsed
    /// The wait for the last words is over.
    case finalWaitElapsed
    /// The wait for a message to answer with the last words is over.
    case messageWaitElapsed
  }

  enum CancelID { case replyDeadline, messageWait }

  /// The limits the session runs under (the server's configuration).
  let limits: ServerConfiguration

  /// Whether a `phrase_list` becomes hotwords the server's default engine, Moonshine, favours;
  /// otherwise (pocketsphinx) the stream is restricted to the phrases, a grammar.
  var biasesPhraseList: Bool { limits.engines.first == .moonshine }
  /// The clock of the short wait for a message to answer with the last words: real time,
  /// whatever the server's clock, so a client that is not sending gets its last words a moment
  /// later, never not at all.
  let messageWaitClock: any Clock<Duration>

  @Dependency(\.continuousClock) var clock
  @Dependency(\.audioInbox) var audioInbox

  /// The idle, maximum-length and last-words timers.
  var timers: SessionTimers<Action> {
    SessionTimers(
      limits: limits, idle: .idleTimeoutElapsed, maxDuration: .maxDurationElapsed,
      finalWait: .finalWaitElapsed)
  }

  init(
    limits: ServerConfiguration = ServerConfiguration(),
    messageWaitClock: any Clock<Duration> = ContinuousClock()
  ) {
    self.limits = limits
    self.messageWaitClock = messageWaitClock
  }

  var body: some ReducerOf<Self> {
    Reduce { state, action in
      switch action {
      case .start:
        return timers.start()

      case .text(let text):
        state.receivedMessages += 1
        guard state.phase == .streaming else { return messageWhileEnding(&state) }
        // The same limit as audio: a text message is a configuration or the end, never large.
        let bytes = text.utf8.count
        guard bytes <= limits.maxFrameBytes else {
          return fail(&state, .frameTooLarge(bytes: bytes, limit: limits.maxFrameBytes))
        }
        let message: VoskMessage
        do throws(WebSocketSessionError) {
          message = try VoskMessage(text: text)
        } catch {
          return fail(&state, error)
        }
        switch message {
        case .config(let configuration):
          guard state.recognition == nil else {
            return fail(&state, .configurationAfterAudio)
          }
          if biasesPhraseList, let phrases = configuration.phraseList,
            let problem = Hotwords(Hotwords.cleaned(phrases)).problem
          {
            // Moonshine's hotwords have limits of their own, tighter than a grammar's.
            return fail(
              &state, .invalidConfigurationValue(field: "phrase_list", reason: "\(problem)"))
          }
          state.configuration = configuration
          allowNextMessage(&state)
          // Only audio renews the idle time: configurations sent over and over hold no place.
          return .none
        case .eof:
          state.pending = nil
          let start = startRecognition(&state)
          return .merge(
            start, finishAudio(&state, closing: nil),
            .cancel(id: CancelID.replyDeadline), timers.stop(.idle))
        }

      case .audio(let buffer):
        state.receivedMessages += 1
        guard state.phase == .streaming else { return messageWhileEnding(&state) }
        let bytes = buffer.readableBytes
        guard bytes <= limits.maxFrameBytes else {
          return fail(&state, .frameTooLarge(bytes: bytes, limit: limits.maxFrameBytes))
        }
        guard bytes % 2 == 0 else { return fail(&state, .oddLengthFrame(bytes: bytes)) }
        let start = startRecognition(&state)
        state.audioMessages += 1
        state.pushedSamples += bytes / 2
        state.pending = PendingReply(number: state.audioMessages, samples: state.pushedSamples)
        return .merge(
          start, push(buffer, number: state.audioMessages),
          timers.audioArrived(
            &state.idleAudio,
            IdleAudio.duration(samples: bytes / 2, sampleRate: state.configuration.sampleRate)),
          timer(.replyDeadlineElapsed, after: limits.replyWait, id: .replyDeadline),
          replyIfCaughtUp(&state))

      case .written(let total):
        SessionHosting.acknowledge(&state.outbox, written: &state.written, through: total)
        return .none

      case .clientLeft:
        return end(&state, .clientGone)

      case .readFailed(let description):
        return end(&state, .readFailed(description))

      case .shutdown:
        return fail(&state, .shuttingDown)

      case .recognition:
        takeFinishedUtterances(&state)
        return recognitionChanged(&state)

      case .replyDeadlineElapsed:
        guard state.phase == .streaming, state.pending != nil else { return .none }
        reply(&state)
        return .none

      case .idleTimeoutElapsed:
        return fail(&state, WebSocketSessionError(timers.idleVerdict(state.idleAudio)))

      case .maxDurationElapsed:
        return fail(&state, .sessionTooLong(limits.maxSessionDuration))

      case .finalWaitElapsed:
        guard case .finishing(let closing) = state.phase else { return .none }
        let late = RecognitionProblem.lastWordsLate(within: limits.finalWait)
        return closeWithError(&state, closing ?? .recognitionFailed(late.message))

      case .messageWaitElapsed:
        guard case .awaitingMessage(let words, let closing) = state.phase else { return .none }
        if !words.isEmpty { state.outbox.append(.reply(.result(words))) }
        return closeWithError(&state, closing)
      }
    }
    .ifLet(\.recognition, action: \.recognition) {
      SpeechRecognition()
    }
  }

  // MARK: - Messages and replies

  /// Starts recognition of the stream's audio on first use.
  private func startRecognition(_ state: inout State) -> Effect<Action> {
    guard state.recognition == nil else { return .none }
    var request = SpeechRecognitionRequest(source: audioInbox.open(state.configuration.sampleRate))
    if let phrases = state.configuration.phraseList, !phrases.isEmpty {
      if biasesPhraseList {
        // Moonshine favours the phrases and still hears everything else.
        request.hotwords = Hotwords(Hotwords.cleaned(phrases))
      } else {
        request.model = .phrases(phrases)
      }
    }
    state.recognition = SpeechRecognition.State(request: request)
    return .send(.recognition(.start))
  }

  /// Sends the pending reply once the decoder has reached its audio, and lets the next message
  /// in once the buffer allows.
  private func replyIfCaughtUp(_ state: inout State) -> Effect<Action> {
    if let pending = state.pending, let recognition = state.recognition {
      if recognition.isOver || state.decodedSamples >= pending.samples {
        reply(&state)
        return .cancel(id: CancelID.replyDeadline)
      }
    }
    allowNextMessageIfBuffered(&state)
    return .none
  }

  /// Sends the reply to the last audio message: a finished utterance if one waits, else the
  /// partial words.
  private func reply(_ state: inout State) {
    state.pending = nil
    if !state.finals.isEmpty {
      state.outbox.append(.reply(.result(state.finals.removeFirst())))
    } else {
      let partial = state.recognition?.result?.bestTranscription.partialSegments ?? []
      state.outbox.append(.reply(.partial(partial.map(\.substring).joined(separator: " "))))
    }
    state.wantsMessage = true
    allowNextMessageIfBuffered(&state)
  }

  /// Lets the next message in once a reply went out and the audio waiting to be decoded is
  /// within ``ServerConfiguration/maxBufferedAudio``.
  private func allowNextMessageIfBuffered(_ state: inout State) {
    let waiting = Double(state.pushedSamples - state.decodedSamples)
    guard state.wantsMessage,
      waiting / Double(state.configuration.sampleRate) <= limits.maxBufferedAudio.timeInterval
    else { return }
    state.wantsMessage = false
    allowNextMessage(&state)
  }

  /// Lets the host read one message more than it has.
  private func allowNextMessage(_ state: inout State) {
    state.allowedMessages = state.receivedMessages + 1
  }

  /// A message that arrived while the session was ending.
  private func messageWhileEnding(_ state: inout State) -> Effect<Action> {
    switch state.phase {
    case .finishing:
      // Not decoded any more; answered with the last words.
      state.isMessageUnanswered = true
      return .none
    case .awaitingMessage(let words, let closing):
      state.outbox.append(.reply(.result(words)))
      return closeWithError(&state, closing)
    case .streaming, .over:
      return .none
    }
  }

  /// Moves the utterances finished since the last look into ``State/finals``.
  private func takeFinishedUtterances(_ state: inout State) {
    guard let utterances = state.recognition?.result?.bestTranscription.finishedUtterances
    else { return }
    while state.takenUtterances < utterances.count {
      state.finals.append(Array(utterances[state.takenUtterances]))
      state.takenUtterances += 1
    }
  }

  private func recognitionChanged(_ state: inout State) -> Effect<Action> {
    guard let recognition = state.recognition else { return .none }
    switch state.phase {
    case .streaming:
      switch recognition.outcome {
      case .failed, .notAuthorized:
        if let problem = RecognitionProblem(recognition.outcome) {
          return fail(&state, WebSocketSessionError(problem))
        }
      default:
        break
      }
      return replyIfCaughtUp(&state)
    case .finishing(let closing):
      guard recognition.isOver else { return .none }
      return lastWordsArrived(&state, closing: closing)
    case .awaitingMessage, .over:
      return .none
    }
  }

  // MARK: - Ending

  /// Finishes the audio and stops recognition; the last words are awaited.
  private func finishAudio(
    _ state: inout State, closing: WebSocketSessionError?
  ) -> Effect<Action> {
    state.phase = .finishing(closing: closing)
    var effects: [Effect<Action>] = [timers.awaitLastWords(shuttingDown: closing == .shuttingDown)]
    effects.append(
      LastWords.ask(state.recognition, endAudio: endAudio(state), finish: .recognition(.finish)))
    if state.recognition?.isOver == true {
      effects.append(lastWordsArrived(&state, closing: closing))
    }
    return .merge(effects)
  }

  /// The last words are in: they go out, then the close.
  private func lastWordsArrived(
    _ state: inout State, closing: WebSocketSessionError?
  ) -> Effect<Action> {
    let cancelWait = timers.stop(.finalWait)
    // Words cannot be trusted to be complete after a failure or a stop the recognizer did not
    // answer in time: a limit closes with its own error, the end of the stream with the
    // failure (never an empty result that looks like silence).
    switch state.recognition?.outcome {
    case .failed, .stopTimedOut:
      if let problem = RecognitionProblem(state.recognition?.outcome) {
        return .merge(
          cancelWait, closeWithError(&state, closing ?? .recognitionFailed(problem.message)))
      }
    default:
      break
    }
    let words = Array(state.finals.joined())
    state.finals = []
    guard let closing else {
      state.outbox.append(.reply(.result(words)))
      state.outbox.append(.close(nil))
      return .merge(cancelWait, end(&state, .endOfStream))
    }
    // A client that sends and then waits for the answer (vosk's example does) gets the last
    // words as the answer to its message: one it sent already, or, unless it went quiet, the
    // one it sends next.
    let isAnswer = state.pending != nil || state.isMessageUnanswered
    state.pending = nil
    if !isAnswer, !closing.isIdle {
      state.phase = .awaitingMessage(words: words, closing: closing)
      allowNextMessage(&state)
      return .merge(
        cancelWait,
        .run { [clock = messageWaitClock, wait = limits.replyWait] send in
          try await clock.sleep(for: wait)
          await send(.messageWaitElapsed)
        }
        .cancellable(id: CancelID.messageWait, cancelInFlight: true))
    }
    if isAnswer || !words.isEmpty { state.outbox.append(.reply(.result(words))) }
    return .merge(cancelWait, closeWithError(&state, closing))
  }

  /// Ends the stream because of `error`: at once for the client's mistakes and failures, after
  /// the last words for an idle stream, one past its limit, or a shutdown.
  private func fail(_ state: inout State, _ error: WebSocketSessionError) -> Effect<Action> {
    guard state.phase == .streaming else { return .none }
    let stopTimers = Effect<Action>.merge(
      .cancel(id: CancelID.replyDeadline), timers.stopLimits())
    guard error.deliversLastWords, state.recognition != nil else {
      return .merge(stopTimers, closeWithError(&state, error))
    }
    return .merge(stopTimers, finishAudio(&state, closing: error))
  }

  /// Writes the error and closes with its code.
  private func closeWithError(
    _ state: inout State, _ error: WebSocketSessionError
  ) -> Effect<Action> {
    state.outbox.append(.reply(.error(error.message)))
    state.outbox.append(.close(error))
    return end(&state, .error(error))
  }

  /// The session is over: timers stop and recognition is abandoned if it still runs.
  private func end(_ state: inout State, _ ending: Ending) -> Effect<Action> {
    guard state.phase != .over else { return .none }
    state.phase = .over
    state.ending = ending
    state.pending = nil
    var effects: [Effect<Action>] = [
      endAudio(state),
      .cancel(id: CancelID.replyDeadline), timers.stopAll(),
      .cancel(id: CancelID.messageWait),
    ]
    if let recognition = state.recognition, recognition.status != .idle {
      effects.append(.send(.recognition(.cancel)))
    }
    return .merge(effects)
  }

  // MARK: - Audio

  /// Hands message `number`'s audio to the inbox.
  private func push(_ buffer: ByteBuffer, number: Int) -> Effect<Action> {
    .run { [audioInbox] _ in audioInbox.push(number, buffer) }
  }

  /// Ends the inbox's audio after the last message pushed (once, or again: it changes nothing).
  private func endAudio(_ state: State) -> Effect<Action> {
    guard state.recognition != nil else { return .none }
    return .run { [audioInbox, last = state.audioMessages] _ in await audioInbox.finish(last) }
  }

  // MARK: - Timers

  private func timer(_ action: Action, after duration: Duration, id: CancelID) -> Effect<Action> {
    .run { send in
      try await clock.sleep(for: duration)
      await send(action)
    }
    .cancellable(id: id, cancelInFlight: true)
  }

}
