import Architecture
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature

/// One OpenAI Realtime transcription session (`/v1/realtime?intent=transcription`), from
/// `session.created` to the close, as a reducer.
///
/// Audio appended to the input buffer is decoded as it arrives by ``SpeechRecognition`` (the
/// feature every protocol runs), in *runs*: a run is one recognition task over one audio the
/// host pushes into (``pcm(of:in:)``), from the first audio after the start, a commit or a
/// clear, to the next commit or clear. Items come out of runs:
/// - with `turn_detection` `server_vad` (the default), each utterance the recognizer ends at a
///   pause is an item: `input_audio_buffer.speech_started` when its first words are heard,
///   `conversation.item.input_audio_transcription.delta` as the words grow, then
///   `speech_stopped`, `committed` and `completed` once the pause ends it;
/// - a client's `input_audio_buffer.commit` (whatever the turn detection) ends the run: every
///   word not in an item yet makes the committed item, whose deltas and completion follow once
///   the recognizer has its last words. With turn detection off, an item's deltas start at its
///   commit (the client has no item id before).
///
/// Deltas carry each word once, as first decided: a word goes out once two results in a row
/// agree on it and another word follows it, or once the item is final. A word revised after it
/// went out is not sent again (a delta cannot be taken back); `completed` carries the item's
/// final transcript. With `idle_timeout_ms`, that much audio without speech is committed as an
/// empty item after `input_audio_buffer.timeout_triggered`. The server VAD's threshold and
/// silence go with the run's request to the recognizer's detector.
///
/// Nothing here touches the socket or the audio buffer: the state holds values only (see
/// ``VoskSession``). What every streaming session shares is ``StreamSession``'s, in
/// ``State/stream``: the host writes its outbox and acknowledges it, and reads a message only
/// while its allowance allows: after every message, unless more than
/// ``ServerConfiguration/maxBufferedAudio`` waits to be decoded or a commit waits for its last
/// words. Errors in a client's event are
/// `error` events and the session goes on; the idle timeout, the maximum length and a
/// shutdown first deliver the last words, then an `error` event and the close.
@Reducer
struct RealtimeSession: ProtocolSession, Sendable {
  /// Something for the host to write to the socket.
  enum Output: Equatable, Sendable {
    case event(RealtimeServerEvent)
    /// The close frame: normal closure for `nil`, else the error's code and reason.
    case close(WebSocketSessionError?)
  }

  /// How a session ends: with an `error` event and the WebSocket close codes vosk's protocol
  /// has too.
  typealias Problem = WebSocketSessionError

  /// Where a session is.
  enum Phase: Equatable, Sendable {
    /// Events are read and answered.
    case streaming
    /// A commit ended the run: its last words are awaited, then events are read again.
    case committing
    /// The session is ending for `closing` once the last words are in.
    case finishing(closing: WebSocketSessionError)
  }

  /// The item the words being heard belong to.
  struct Item: Equatable, Sendable {
    var id: String
    /// Whether the client knows the item's id (`speech_started` or `committed` went out), so
    /// deltas may go out.
    var isAnnounced = false
    var isCommitted = false
    /// The words sent in deltas so far.
    var sentWords = 0
  }

  /// One run of recognition, from the first audio after the start, a commit or a clear to the
  /// next commit or clear: what belongs to it alone goes with it.
  struct Run: RecognitionHolder {
    var recognition: SpeechRecognition.State
    /// Its sample rate.
    var rate: Int
    /// Where it starts in the session's audio, in milliseconds.
    var start: Double
    /// Samples taken.
    var samples = 0
    /// Finished utterances already in items.
    var takenUtterances = 0
    /// The looks at the words not in an item yet, for the ones that have settled
    /// (``SettledWords``): kept before the client knows the item too, so the words two looks
    /// agreed on go out as soon as it does.
    var heard = SettledWords()
  }

  struct State: Equatable {
    /// The session's id (`sess_…` in `session.created`), and the stem of its items' ids.
    let id: String
    var configuration = RealtimeConfiguration()
    /// The current run, while one goes.
    var run: Run?
    /// Audio messages taken so far, and the runs' starts: one for each.
    var audioMessages = 0
    /// The audio written to the buffer in the session, in milliseconds.
    var bufferMilliseconds = 0.0
    /// The audio appended since the last commit, clear or end of an item, in milliseconds.
    var uncommittedMilliseconds = 0.0
    /// Where the last item's speech ended, in milliseconds of the session's audio.
    var lastItemEnd = 0.0
    /// Where the audio without speech began, for server VAD's `idle_timeout_ms`: the end of
    /// the last item or of the last timeout.
    var quietStart = 0.0
    var item: Item?
    /// Items made so far.
    var items = 0
    /// The last item committed.
    var lastItemID: String?
    var phase = Phase.streaming
    /// The outbox, the allowance, the limits and the ending.
    var stream = RealtimeSession.Stream.State()

    init(id: String) {
      self.id = id
    }

    /// The current run's recognition.
    var recognition: SpeechRecognition.State? { run?.recognition }

    /// The samples of the current run the decoder has reached, as it last reported.
    var decodedSamples: Int {
      guard let run, let progress = run.recognition.progress else { return 0 }
      return Int((progress.audioDuration * Double(run.rate)).rounded())
    }

    /// Whether the current run's recognition is over.
    var isRunOver: Bool {
      recognition?.isOver ?? true
    }
  }

  enum Action: Equatable, Sendable {
    /// The host's start (`session.created` goes out and the timers start) and
    /// acknowledgements, the limits, and what they decide.
    case stream(RealtimeSession.Stream.Action)
    /// A text message from the client, as the codec read it (``RealtimeClientMessage``).
    case message(RealtimeClientMessage)
    /// A binary message (not part of the protocol).
    case binary(Int)
    case recognition(SpeechRecognition.Action)
  }

  /// The limits the session runs under (the server's configuration).
  let limits: ServerConfiguration

  init(limits: ServerConfiguration = ServerConfiguration()) {
    self.limits = limits
  }

  var body: some ReducerOf<Self> {
    sessionBody(recognition: \.run, action: \.recognition) { Recognizing<Run>() }
  }

  /// What the protocol does with an action once its stream has taken it (``sessionBody``).
  func reduceProtocol(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .stream(.start):
      state.stream.outbox.append(.event(.session(state.configuration, isUpdate: false)))
      return .none

    case .stream:
      return .none

    case .message(let message):
      guard state.takeMessage(), state.phase == .streaming else { return .none }
      switch message {
      case .tooLarge(let bytes):
        return reject(&state, .messageTooLarge(bytes: bytes, limit: limits.maxFrameBytes))
      case .invalid(let error):
        return reject(&state, error)
      case .event(let event, let eventID):
        return handle(event, eventID: eventID, &state)
      }

    case .binary(let bytes):
      guard state.takeMessage(), state.phase == .streaming else { return .none }
      guard bytes <= limits.maxFrameBytes else {
        return reject(&state, .messageTooLarge(bytes: bytes, limit: limits.maxFrameBytes))
      }
      return reject(&state, .binaryMessage)

    case .recognition(.delegate(.heard)):
      // Only a new result is a new look at the words.
      return recognitionChanged(&state, isNewResult: true)

    case .recognition(.delegate(.ended)):
      return recognitionChanged(&state)

    case .recognition:
      return .none

    }
  }

  // MARK: - Client events

  private func handle(
    _ event: RealtimeClientEvent, eventID: String?, _ state: inout State
  ) -> Effect<Action> {
    switch event {
    case .sessionUpdate(let session):
      let next: RealtimeConfiguration
      do throws(RealtimeError) {
        next = try state.configuration.updated(
          with: session, engines: limits.engines, languages: limits.languages)
      } catch {
        return reject(&state, error, eventID: eventID)
      }
      if next.format != state.configuration.format, state.recognition != nil {
        return reject(&state, .formatChangeWithAudio, eventID: eventID)
      }
      state.configuration = next
      state.stream.outbox.append(.event(.session(next, isUpdate: true)))
      allowNextMessage(&state)
      return .none

    case .append(let bytes):
      let format = state.configuration.format
      guard bytes.count % format.bytesPerSample == 0 else {
        return reject(&state, .oddLength(bytes: bytes.count), eventID: eventID)
      }
      guard !bytes.isEmpty else {
        allowNextMessage(&state)
        return .none
      }
      // G.711 expands to 16-bit PCM in the push, off the main actor: a byte a sample.
      let samples = bytes.count / format.bytesPerSample
      let milliseconds = Double(samples) * 1000 / Double(format.sampleRate)
      let start = startRun(&state)
      state.audioMessages += 1
      state.run?.samples += samples
      state.bufferMilliseconds += milliseconds
      state.uncommittedMilliseconds += milliseconds
      state.stream.wantsMessage = true
      let renew = timers.audioArrived(
        &state.stream.idleAudio, IdleAudio.duration(samples: samples, sampleRate: format.sampleRate)
      )
      state.triggerTimeoutIfQuiet()
      allowNextMessageIfBuffered(&state)
      return .merge(start, renew)

    case .commit:
      guard state.uncommittedMilliseconds >= ServerConfiguration.realtimeMinimumCommitMilliseconds,
        state.recognition != nil
      else {
        return reject(
          &state, .commitEmpty(milliseconds: state.uncommittedMilliseconds), eventID: eventID)
      }
      var item = state.item ?? state.newItem()
      item.isAnnounced = true
      item.isCommitted = true
      state.item = item
      state.stream.outbox.append(
        .event(.committed(itemID: item.id, previousItemID: state.lastItemID)))
      state.lastItemID = item.id
      state.uncommittedMilliseconds = 0
      state.quietStart = state.bufferMilliseconds
      state.phase = .committing
      state.sendDelta(words: state.pendingWords)
      var effects = [timers.awaitLastWords(shuttingDown: false), finishRun(&state)]
      if state.isRunOver { effects.append(recognitionChanged(&state)) }
      return .merge(effects)

    case .clear:
      state.item = nil
      state.uncommittedMilliseconds = 0
      state.quietStart = state.bufferMilliseconds
      state.stream.outbox.append(.event(.cleared))
      let end = endAudio(state)
      // Dropping the run cancels its recognition (its effects go with its state).
      state.run = nil
      allowNextMessage(&state)
      return end
    }
  }

  /// Answers a client event with an `error` event; the session goes on.
  private func reject(
    _ state: inout State, _ error: RealtimeError, eventID: String? = nil
  ) -> Effect<Action> {
    var error = error
    if let eventID { error.eventID = eventID }
    state.stream.outbox.append(.event(.error(error)))
    allowNextMessage(&state)
    return .none
  }

  // MARK: - Runs and items

  /// Starts a run of recognition when none is going.
  private func startRun(_ state: inout State) -> Effect<Action> {
    guard state.run == nil else { return .none }
    state.audioMessages += 1
    let rate = state.configuration.format.sampleRate
    let audio = PushedAudio(sampleRate: rate, identifier: "audio \(state.audioMessages)")
    var request = SpeechRecognitionRequest(source: .pushed(audio))
    request.keptUtterances = ServerConfiguration.streamKeptUtterances
    if let engine = state.configuration.engine, limits.engines.contains(engine) {
      request.engine = engine.defaultEngine
    }
    request.voiceActivity = state.configuration.voiceActivity
    request.hotwords = state.configuration.hotwords
    // Another language than English is Whisper's (the client's default engine for it), and
    // the prompt is its initial prompt.
    request.language =
      state.configuration.language.flatMap(limits.servedLanguage) ?? limits.defaultLanguage
    request.prompt = state.configuration.prompt
    if !request.language.isEnglish, request.engine.name != .whisper {
      request.engine = .automatic
    }
    state.run = Run(
      recognition: SpeechRecognition.State(request: request), rate: rate,
      start: state.bufferMilliseconds)
    return .send(.recognition(.start))
  }

  /// Ends the current run's audio and asks recognition for its last words.
  private func finishRun(_ state: inout State) -> Effect<Action> {
    guard state.recognition != nil else { return .none }
    return LastWords.ask(
      state.recognition, endAudio: endAudio(state),
      audioEnded: .stream(.audioEnded(after: state.audioMessages)))
  }

  private func recognitionChanged(
    _ state: inout State, isNewResult: Bool = false
  ) -> Effect<Action> {
    guard !state.isOver, state.recognition != nil else { return .none }
    if let problem = recognitionFailure(state) { return close(&state, problem) }
    switch state.phase {
    case .streaming, .finishing:
      if state.configuration.turnDetection != nil, state.item?.isCommitted != true {
        state.takeUtterances()
      }
    case .committing:
      break
    }
    let words = state.pendingWords
    if let first = words.first, state.configuration.turnDetection != nil,
      state.item?.isCommitted != true, state.phase == .streaming
    {
      state.announceSpeech(firstWord: first)
    }
    if isNewResult { state.sendDelta(words: words) }
    guard state.isRunOver else {
      allowNextMessageIfBuffered(&state)
      return .none
    }
    switch state.phase {
    case .committing:
      state.complete(words: words)
      state.run = nil
      state.phase = .streaming
      allowNextMessage(&state)
      return timers.stop(.finalWait)
    case .finishing(let closing):
      if var item = state.item ?? (words.isEmpty ? nil : state.newItem()) {
        if !item.isCommitted {
          state.stream.outbox.append(
            .event(.committed(itemID: item.id, previousItemID: state.lastItemID)))
          state.lastItemID = item.id
          item.isAnnounced = true
          item.isCommitted = true
        }
        state.item = item
        state.complete(words: words)
      }
      return close(&state, closing)
    case .streaming:
      // The run ended by itself (it should not before a commit): the next audio starts
      // another.
      if !words.isEmpty, state.item != nil { state.complete(words: words) }
      state.run = nil
      return .none
    }
  }

  /// Lets the next message in once the audio waiting to be decoded is within
  /// ``ServerConfiguration/maxBufferedAudio``.
  private func allowNextMessageIfBuffered(_ state: inout State) {
    guard !state.isOver, state.phase == .streaming else { return }
    let waiting =
      state.run.map { Double($0.samples - state.decodedSamples) / Double($0.rate) } ?? 0
    state.stream.allowNextMessage(waitingSeconds: waiting, within: limits.maxBufferedAudio)
  }

  /// Lets the host read one message more than it has, while events are read.
  private func allowNextMessage(_ state: inout State) {
    guard !state.isOver, state.phase == .streaming else { return }
    state.stream.allowNextMessage()
  }

  // MARK: - Ending

  /// Ends the session because of `error`: after the last words for a limit or a shutdown, at
  /// once otherwise.
  func fail(_ state: inout State, _ error: WebSocketSessionError) -> Effect<Action> {
    guard !state.isOver else { return .none }
    switch state.phase {
    case .streaming, .committing: break
    case .finishing: return .none
    }
    let stopTimers = timers.stopLimits()
    guard error.deliversLastWords, state.recognition != nil else {
      return .merge(stopTimers, close(&state, error))
    }
    let wasCommitting = state.phase == .committing
    state.phase = .finishing(closing: error)
    var effects = [
      stopTimers, timers.awaitLastWords(shuttingDown: error == .session(.shuttingDown)),
    ]
    if !wasCommitting { effects.append(finishRun(&state)) }
    if state.isRunOver { effects.append(recognitionChanged(&state)) }
    return .merge(effects)
  }

  /// An `error` event, then the close with the error's code; a normal close for `nil`.
  static func closing(_ error: WebSocketSessionError?) -> [Output] {
    guard let error else { return [.close(nil)] }
    return [.event(.error(RealtimeError(closing: error))), .close(error)]
  }

  /// The last words of a commit or of the end are late: the session closes saying so.
  func lastWordsLate(_ state: inout State, _ late: WebSocketSessionError) -> Effect<Action> {
    guard !state.isOver else { return .none }
    switch state.phase {
    case .committing, .finishing: return close(&state, late)
    case .streaming: return .none
    }
  }

  // MARK: - Audio

  /// An `input_audio_buffer.append`'s audio as 16-bit PCM (G.711 expands: a byte a sample).
  static func pcm(of action: Action, in state: State) -> ByteBuffer? {
    guard case .message(.event(.append(let bytes), _)) = action else { return nil }
    return ByteBuffer(bytes: state.configuration.format.pcm(bytes))
  }
}

extension RealtimeSession.State: ProtocolSessionState {}
extension RealtimeSession.Action: ProtocolSessionAction {
  var streamAction: RealtimeSession.Stream.Action? {
    guard case .stream(let action) = self else { return nil }
    return action
  }
}
