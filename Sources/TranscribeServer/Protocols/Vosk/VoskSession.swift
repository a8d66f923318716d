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
/// Nothing here touches the socket or the audio buffer: the state holds values only. The host
/// pushes each audio message the session takes (``pcm(of:in:)``), and how far the decoder has got comes back
/// as recognition's own results (their progress), so pacing is decided from the state alone.
/// What every streaming session shares is ``StreamSession``'s, in ``State/stream``: the outbox
/// the host writes and acknowledges, the message allowance (a message is read only once the
/// previous one is answered and at most ``ServerConfiguration/maxBufferedAudio`` of audio waits
/// to be decoded), the idle, too-long and last-words timers, and the ending. The reply deadline
/// is this protocol's own timer.
@Reducer
struct VoskSession: ProtocolSession, Sendable {
  /// Something for the host to write to the socket.
  enum Output: Equatable, Sendable {
    /// A text message.
    case reply(VoskReply)
    /// The close frame: normal closure for `nil`, else the error's code and reason.
    case close(WebSocketSessionError?)
  }

  /// How a session ends: with vosk's close codes; `finished` once the client sent
  /// `{"eof" : 1}` and got the last words.
  typealias Problem = WebSocketSessionError

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
    /// Recognition, from the first audio message (or the end) on; its request reads the audio
    /// the host pushes.
    var recognition: SpeechRecognition.State?
    /// The samples taken so far (the host pushes them).
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
    /// Whether a message arrived while the last words were awaited (they are its answer).
    var isMessageUnanswered = false
    /// The outbox, the allowance, the limits and the ending.
    var stream = VoskSession.Stream.State()

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
    /// The host's start and acknowledgements, the limits, and what they decide.
    case stream(VoskSession.Stream.Action)
    /// A text message from the client, as the codec read it (``VoskMessage/read(_:limits:)``):
    /// a message, or what is wrong with it.
    case message(Result<VoskMessage, WebSocketSessionError>)
    /// A binary message (16-bit little-endian PCM) from the client.
    case audio(ByteBuffer)
    case recognition(SpeechRecognition.Action)
    /// The wait for the decoder before the pending reply is over.
    case replyDeadlineElapsed
    /// The wait for a message to answer with the last words is over.
    case messageWaitElapsed
  }

  enum CancelID { case replyDeadline, messageWait }

  /// The limits the session runs under (the server's configuration).
  let limits: ServerConfiguration

  /// Whether a `phrase_list` becomes hotwords the server's default engine, Moonshine, favours;
  /// otherwise (pocketsphinx) the stream is restricted to the phrases, a grammar.
  var biasesPhraseList: Bool { limits.engines.first == .moonshine }

  init(limits: ServerConfiguration = ServerConfiguration()) {
    self.limits = limits
  }

  var body: some ReducerOf<Self> {
    sessionBody(recognition: \.recognition, action: \.recognition) { SpeechRecognition() }
  }

  /// What the protocol does with an action once its stream has taken it (``sessionBody``).
  func reduceProtocol(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .stream:
      return .none

    case .message(let read):
      guard state.takeMessage() else { return .none }
      guard state.phase == .streaming else { return messageWhileEnding(&state) }
      let message: VoskMessage
      switch read {
      case .success(let read): message = read
      case .failure(let error): return fail(&state, error)
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
            &state, .invalidConfigurationValue(field: "phrase_list", reason: .phrases(problem)))
        }
        state.configuration = configuration
        state.stream.allowNextMessage()
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
      guard state.takeMessage() else { return .none }
      guard state.phase == .streaming else { return messageWhileEnding(&state) }
      let bytes = buffer.readableBytes
      guard bytes <= limits.maxFrameBytes else {
        return fail(
          &state, .session(.messageTooLarge(bytes: bytes, limit: limits.maxFrameBytes)))
      }
      guard bytes % 2 == 0 else { return fail(&state, .oddLengthFrame(bytes: bytes)) }
      let start = startRecognition(&state)
      state.audioMessages += 1
      state.pushedSamples += bytes / 2
      state.pending = PendingReply(number: state.audioMessages, samples: state.pushedSamples)
      return .merge(
        start,
        timers.audioArrived(
          &state.stream.idleAudio,
          IdleAudio.duration(samples: bytes / 2, sampleRate: state.configuration.sampleRate)),
        timers.after(limits.replyWait, send: .replyDeadlineElapsed, id: CancelID.replyDeadline),
        replyIfCaughtUp(&state))

    case .recognition(.delegate):
      state.takeFinishedUtterances()
      return recognitionChanged(&state)

    case .recognition:
      return .none

    case .replyDeadlineElapsed:
      guard !state.isOver, state.phase == .streaming, state.pending != nil else { return .none }
      state.reply(bufferLimit: limits.maxBufferedAudio)
      return .none

    case .messageWaitElapsed:
      guard !state.isOver, case .awaitingMessage(let words, let closing) = state.phase else {
        return .none
      }
      if !words.isEmpty { state.stream.outbox.append(.reply(.result(words))) }
      return close(&state, closing)
    }
  }

  // MARK: - Messages and replies

  /// Starts recognition of the stream's audio on first use.
  private func startRecognition(_ state: inout State) -> Effect<Action> {
    guard state.recognition == nil else { return .none }
    // The stream's one audio, started before its first message (numbered 1).
    let audio = PushedAudio(sampleRate: state.configuration.sampleRate, identifier: "audio 0")
    var request = SpeechRecognitionRequest(source: .pushed(audio))
    request.keptUtterances = ServerConfiguration.streamKeptUtterances
    request.language = state.configuration.language ?? limits.defaultLanguage
    if let phrases = state.configuration.phraseList, !phrases.isEmpty {
      // Another language than English is Whisper's: the phrases are its prompt.
      if biasesPhraseList || !request.language.isEnglish {
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
        state.reply(bufferLimit: limits.maxBufferedAudio)
        return .cancel(id: CancelID.replyDeadline)
      }
    }
    state.allowNextMessageIfBuffered(within: limits.maxBufferedAudio)
    return .none
  }

  /// A message that arrived while the session was ending.
  private func messageWhileEnding(_ state: inout State) -> Effect<Action> {
    switch state.phase {
    case .finishing:
      // Not decoded any more; answered with the last words.
      state.isMessageUnanswered = true
      return .none
    case .awaitingMessage(let words, let closing):
      state.stream.outbox.append(.reply(.result(words)))
      return close(&state, closing)
    case .streaming:
      return .none
    }
  }

  private func recognitionChanged(_ state: inout State) -> Effect<Action> {
    guard !state.isOver, let recognition = state.recognition else { return .none }
    switch state.phase {
    case .streaming:
      if let problem = recognitionFailure(state) { return close(&state, problem) }
      return replyIfCaughtUp(&state)
    case .finishing(let closing):
      guard recognition.isOver else { return .none }
      return lastWordsArrived(&state, closing: closing)
    case .awaitingMessage:
      return .none
    }
  }

  // MARK: - Ending

  /// Finishes the audio and stops recognition; the last words are awaited.
  private func finishAudio(
    _ state: inout State, closing: WebSocketSessionError?
  ) -> Effect<Action> {
    state.phase = .finishing(closing: closing)
    return awaitLastWords(&state, closing: closing) { lastWordsArrived(&$0, closing: closing) }
  }

  /// The last words are in: they go out, then the close.
  private func lastWordsArrived(
    _ state: inout State, closing: WebSocketSessionError?
  ) -> Effect<Action> {
    let cancelWait = timers.stop(.finalWait)
    // Words cannot be trusted to be complete after a failure or a stop the recognizer did not
    // answer in time: a limit closes with its own error, the end of the stream with the
    // failure (never an empty result that looks like silence).
    if let problem = LastWords.problem(state.recognition) {
      return .merge(
        cancelWait, close(&state, closing ?? .session(SessionProblem(problem))))
    }
    let words = Array(state.finals.joined())
    state.finals = []
    guard let closing else {
      state.stream.outbox.append(.reply(.result(words)))
      return .merge(cancelWait, close(&state, nil))
    }
    // A client that sends and then waits for the answer (vosk's example does) gets the last
    // words as the answer to its message: one it sent already, or, unless it went quiet, the
    // one it sends next.
    let isAnswer = state.pending != nil || state.isMessageUnanswered
    state.pending = nil
    if !isAnswer, !closing.isIdle {
      state.phase = .awaitingMessage(words: words, closing: closing)
      state.stream.allowNextMessage()
      return .merge(
        cancelWait,
        timers.after(limits.replyWait, send: .messageWaitElapsed, id: CancelID.messageWait))
    }
    if isAnswer || !words.isEmpty { state.stream.outbox.append(.reply(.result(words))) }
    return .merge(cancelWait, close(&state, closing))
  }

  /// Ends the stream because of `error`: at once for the client's mistakes and failures, after
  /// the last words for an idle stream, one past its limit, or a shutdown.
  func fail(_ state: inout State, _ error: WebSocketSessionError) -> Effect<Action> {
    guard !state.isOver, state.phase == .streaming else { return .none }
    let stopTimers = Effect<Action>.merge(
      .cancel(id: CancelID.replyDeadline), timers.stopLimits())
    guard error.deliversLastWords, state.recognition != nil else {
      return .merge(stopTimers, close(&state, error))
    }
    return .merge(stopTimers, finishAudio(&state, closing: error))
  }

  /// An error message, then the close with its code; a normal close for `nil`.
  static func closing(_ error: WebSocketSessionError?) -> [Output] {
    guard let error else { return [.close(nil)] }
    return [.reply(.error(error.message)), .close(error)]
  }

  /// The last words are late: the session closes with its limit's error, or says so.
  func lastWordsLate(_ state: inout State, _ late: WebSocketSessionError) -> Effect<Action> {
    guard !state.isOver, case .finishing(let closing) = state.phase else { return .none }
    return close(&state, closing ?? late)
  }

  /// The reply and the wait for a message go with the session.
  func ending(_ state: inout State) -> Effect<Action> {
    state.pending = nil
    return .merge(.cancel(id: CancelID.replyDeadline), .cancel(id: CancelID.messageWait))
  }

  // MARK: - Audio

  /// An audio message's bytes: 16-bit little-endian PCM already.
  static func pcm(of action: Action, in state: State) -> ByteBuffer? {
    guard case .audio(let buffer) = action else { return nil }
    return buffer
  }
}

extension VoskSession.State: ProtocolSessionState {}
extension VoskSession.Action: ProtocolSessionAction {
  var streamAction: VoskSession.Stream.Action? {
    guard case .stream(let action) = self else { return nil }
    return action
  }
}
