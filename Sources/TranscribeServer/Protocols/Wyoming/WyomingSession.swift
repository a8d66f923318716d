import Architecture
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature

/// One Wyoming connection, from its first event to the close, as a reducer.
///
/// A connection may ask `describe` (answered with `info`) and transcribe utterances, one after
/// another: `transcribe` (optional: `name` picks the model, `language`), `audio-start`,
/// `audio-chunk`s and `audio-stop`, answered with `transcript`. While the audio arrives the
/// words heard so far stream out as `transcript-start` and `transcript-chunk`s (text appended
/// to what went before), and `transcript-stop` follows the final `transcript`. With
/// endpointing on, the end of the first utterance the voice-activity detector hears (a pause
/// of `--silence`) is the end of the command: its `transcript` goes out at once, without
/// waiting for `audio-stop`, and the rest of that audio is ignored.
///
/// Every problem is an `error` event (``WyomingProblem``), then the close; the server's limits
/// (idle, too little audio, maximum length) and a shutdown first deliver the transcript of the
/// audio so far. Time follows the rule every streaming protocol shares (``SessionTimers``):
/// only audio renews the idle time, so a connection sending `describe` or `ping` over and over,
/// or a trickle of tiny chunks, is closed after the idle timeout like a silent one.
///
/// Nothing here touches the socket or the audio buffer: the state holds values only. The host
/// pushes each audio chunk the session takes into the utterance's audio (``pcm(of:in:)``), and
/// how far the decoder has got comes back as recognition's own results (their progress), so pacing is
/// decided from the state alone. What every streaming session shares is ``StreamSession``'s, in
/// ``State/stream``: the outbox the host writes and acknowledges, the allowance (one event more
/// each time, unless more than ``ServerConfiguration/maxBufferedAudio`` of the audio pushed
/// waits to be decoded), the limits and the ending.
@Reducer
struct WyomingSession: ProtocolSession, Sendable {
  /// Something for the host to write.
  enum Output: Equatable, Sendable {
    case event(WyomingEvent)
    /// The end: the host closes the connection.
    case close
  }

  /// How a connection ends: with an `error` event; `finished` once the client finished sending
  /// and everything it asked for was answered.
  typealias Problem = WyomingProblem

  /// Where a connection is.
  enum Phase: Equatable, Sendable {
    /// Between utterances: `describe`, `transcribe` and `audio-start` may come.
    case ready
    /// After `audio-start`: audio arrives until `audio-stop` or the end of speech.
    case streaming
    /// The audio is over; the last words are awaited, then the transcript, then the close
    /// with `closing` if there is one.
    case finishing(closing: WyomingProblem?)
    /// The transcript went out at the end of speech: the utterance's remaining audio is
    /// ignored until its `audio-stop` (or the next `transcribe` or `audio-start`).
    case endpointed
  }

  /// What `transcribe` asked of the next utterance; it goes when the utterance ends.
  struct Request: Equatable, Sendable {
    /// The model (`name`), `nil` for the default.
    var model: WyomingModel?
    /// The language, as the client named it.
    var language: String?
    /// That language as the server decodes it.
    var servedLanguage: SpeechRecognitionRequest.Language?
  }

  /// One utterance, from `audio-start` to its transcript: what belongs to it alone goes with
  /// it.
  struct Utterance: RecognitionHolder {
    /// Its recognition; the request reads the audio the host pushes the chunks into.
    var recognition: SpeechRecognition.State
    /// The format `audio-start` gave.
    var format: WyomingAudioFormat
    /// The samples taken so far (frames at its rate).
    var pushedSamples = 0
    /// The words streamed out as `transcript-chunk`s.
    var streamedWords: [String] = []
    /// The looks at its words so far, for the ones that have settled.
    var heardWords = SettledWords()
  }

  struct State: Equatable {
    var phase = Phase.ready
    /// What the last `transcribe` asked of the next utterance.
    var request = Request()
    /// The phrases the last `transcribe` asked to favour (``WyomingHotwords``).
    var hotwords = Hotwords()
    /// The utterance streaming or finishing now.
    var utterance: Utterance?
    /// Audio chunks taken so far, and the utterances' starts: one for each.
    var audioMessages = 0
    /// Whether the client has finished sending (its side of the connection is closed).
    var isClientDone = false
    /// The transcripts sent.
    var transcripts = 0
    /// The audio decoded by the utterances that are over, in seconds as the decoder reported
    /// them, by engine.
    var decoded: [SpeechRecognitionRequest.EngineName: Double] = [:]
    /// The outbox, the allowance (in events), the limits and the ending.
    var stream = WyomingSession.Stream.State()

    init() {}

    /// The audio decoded by the utterances that are over, in seconds.
    var decodedSeconds: Double { decoded.values.reduce(0, +) }

    /// The utterance's recognition.
    var recognition: SpeechRecognition.State? { utterance?.recognition }

    /// The samples of the utterance the decoder has reached, as it last reported.
    var decodedSamples: Int {
      guard let progress = recognition?.progress, let format = utterance?.format else { return 0 }
      return Int((progress.audioDuration * Double(format.rate)).rounded())
    }
  }

  enum Action: Equatable, Sendable {
    /// The host's start and acknowledgements, the limits, and what they decide.
    case stream(WyomingSession.Stream.Action)
    /// An event from the client.
    case received(WyomingEvent)
    /// The client's bytes broke the framing or a limit.
    case malformed(WyomingProblem)
    /// The client closed its side: it sends nothing more, but may wait for answers.
    case clientFinishedSending
    case recognition(SpeechRecognition.Action)
  }

  /// The limits the session runs under (the server's configuration).
  let limits: ServerConfiguration
  /// The installed models, the server's default first.
  let models: [WyomingModel]
  /// The version `info` reports.
  let version: String

  init(
    limits: ServerConfiguration = ServerConfiguration(),
    models: [WyomingModel]? = nil,
    version: String = "0.1.0"
  ) {
    self.limits = limits
    self.models = models ?? limits.engines.map(WyomingModel.init)
    self.version = version
  }

  var body: some ReducerOf<Self> {
    sessionBody(recognition: \.utterance, action: \.recognition) { Recognizing<Utterance>() }
  }

  /// What the protocol does with an action once its stream has taken it (``sessionBody``).
  func reduceProtocol(into state: inout State, action: Action) -> Effect<Action> {
    switch action {
    case .stream:
      return .none

    case .received(let event):
      guard state.takeMessage() else { return .none }
      // Only audio renews the idle time (in `push`): other events hold no place.
      let effect = received(event, &state)
      guard !state.isOver else { return effect }
      allowNextEventIfBuffered(&state, wanted: true)
      return effect

    case .malformed(let problem):
      return close(&state, problem)

    case .clientFinishedSending:
      state.isClientDone = true
      guard !state.isOver else { return .none }
      switch state.phase {
      case .ready, .endpointed:
        return close(&state, nil)
      case .streaming:
        // The end of its sending is the end of its audio: it gets the transcript, then the
        // close (a client that is gone altogether fails the write, which ends it).
        return finishAudio(&state, closing: nil)
      case .finishing:
        return .none
      }

    case .recognition(.delegate):
      return recognitionChanged(&state)

    case .recognition:
      return .none

    }
  }

  // MARK: - Events

  private func received(_ event: WyomingEvent, _ state: inout State) -> Effect<Action> {
    switch event.type {
    case "describe":
      state.stream.outbox.append(
        .event(
          WyomingModel.info(
            models: models, endpointing: limits.wyoming.endpointing, version: version,
            languages: limits.languages)
        ))
      return .none

    case "ping":
      var data: [String: JSONValue] = [:]
      if let text = event.data["text"] { data["text"] = text }
      state.stream.outbox.append(.event(WyomingEvent("pong", data: data)))
      return .none

    case "transcribe":
      guard state.phase == .ready || state.phase == .endpointed else {
        return unexpected("transcribe", &state)
      }
      state.phase = .ready
      do throws(WyomingProblem) {
        state.request = try Request(event, models: models, limits: limits)
      } catch {
        return close(&state, error)
      }
      state.hotwords = WyomingHotwords.hotwords(in: event.data)
      if let problem = state.hotwords.problem {
        return close(&state, .badHotwords(problem))
      }
      return .none

    case "audio-start":
      guard state.phase == .ready || state.phase == .endpointed else {
        return unexpected("audio-start", &state)
      }
      let format: WyomingAudioFormat
      do throws(WyomingProblem) {
        format = try WyomingAudioFormat(
          event.data, event: "audio-start", rates: limits.sampleRates)
      } catch {
        return close(&state, error)
      }
      return startUtterance(format, &state)

    case "audio-chunk":
      switch state.phase {
      case .ready:
        return close(&state, .audioBeforeStart(event: "audio-chunk"))
      case .streaming:
        return push(event, &state)
      case .finishing, .endpointed:
        // The utterance's transcript is on its way or sent: the rest of its audio is not heard.
        return .none
      }

    case "audio-stop":
      switch state.phase {
      case .ready:
        return close(&state, .audioBeforeStart(event: "audio-stop"))
      case .streaming:
        return finishAudio(&state, closing: nil)
      case .endpointed:
        state.phase = .ready
        return .none
      case .finishing:
        return .none
      }

    default:
      // Events of other services (and of later versions) are not this server's: ignored, as
      // Wyoming servers do.
      return .none
    }
  }

  private func unexpected(_ event: String, _ state: inout State) -> Effect<Action> {
    let expected: ProtocolProblem.Wyoming.Phase =
      switch state.phase {
      case .streaming: .streaming
      case .finishing: .finishing
      default: .idle
      }
    return close(&state, .unexpectedEvent(event: event, expected: expected))
  }

  /// Starts recognizing an utterance in `format`.
  private func startUtterance(
    _ format: WyomingAudioFormat, _ state: inout State
  ) -> Effect<Action> {
    state.audioMessages += 1
    let audio = PushedAudio(sampleRate: format.rate, identifier: "audio \(state.audioMessages)")
    state.phase = .streaming
    let engine = state.request.model?.engine.defaultEngine ?? .automatic
    var request = SpeechRecognitionRequest(source: .pushed(audio), engine: engine)
    request.hotwords = state.hotwords
    request.language = state.request.servedLanguage ?? limits.defaultLanguage
    state.utterance = Utterance(
      recognition: SpeechRecognition.State(request: request), format: format)
    state.stream.outbox.append(.event(WyomingEvent("transcript-start", data: state.languageData)))
    return .send(.recognition(.start))
  }

  /// Pushes an audio chunk's samples, converted to 16-bit mono, and counts them towards the
  /// idle time.
  private func push(_ event: WyomingEvent, _ state: inout State) -> Effect<Action> {
    guard let start = state.utterance?.format else { return .none }
    var format = start
    if event.data["rate"] != nil || event.data["width"] != nil || event.data["channels"] != nil {
      do throws(WyomingProblem) {
        format = try WyomingAudioFormat(
          event.data, event: "audio-chunk", rates: limits.sampleRates)
      } catch {
        return close(&state, error)
      }
      guard format.rate == start.rate else {
        return close(
          &state,
          .input(.rateChanged(rate: format.rate, startedAt: start.rate)))
      }
    }
    guard let payload = event.payload else { return .none }
    let frames: Int
    do throws(WyomingProblem) {
      frames = try format.frames(in: payload)
    } catch {
      return close(&state, error)
    }
    state.audioMessages += 1
    state.utterance?.pushedSamples += frames
    let duration = IdleAudio.duration(samples: frames, sampleRate: format.rate)
    return timers.audioArrived(&state.stream.idleAudio, duration)
  }

  /// Lets the next event in once the audio waiting to be decoded (pushed, and not reached by
  /// the decoder as it last reported) is within ``ServerConfiguration/maxBufferedAudio``.
  private func allowNextEventIfBuffered(_ state: inout State, wanted: Bool = false) {
    if wanted { state.stream.wantsMessage = true }
    let waiting =
      state.utterance.map {
        Double($0.pushedSamples - state.decodedSamples) / Double($0.format.rate)
      }
      ?? 0
    state.stream.allowNextMessage(waitingSeconds: waiting, within: limits.maxBufferedAudio)
  }

  private func recognitionChanged(_ state: inout State) -> Effect<Action> {
    allowNextEventIfBuffered(&state)
    guard !state.isOver, let recognition = state.recognition else { return .none }
    switch state.phase {
    case .streaming:
      if let problem = recognitionFailure(state) { return close(&state, problem) }
      if limits.wyoming.endpointing,
        let utterances = recognition.result?.bestTranscription.finishedUtterances,
        let first = utterances.first(where: { !$0.isEmpty })
      {
        // The speaker paused: the command is over.
        return sendTranscript(first.map(\.substring), &state, then: .endpointed)
      }
      state.streamNewWords(state.settledWords())
      return .none
    case .finishing(let closing):
      guard recognition.isOver else { return .none }
      return lastWordsArrived(&state, closing: closing)
    case .ready, .endpointed:
      return .none
    }
  }

  /// Sends the utterance's transcript (after its last chunk) and `transcript-stop`, and ends
  /// the utterance: its recognition is dropped (cancelled if it still runs).
  private func sendTranscript(
    _ words: [String], _ state: inout State, then phase: Phase
  ) -> Effect<Action> {
    state.streamNewWords(words)
    var data = state.languageData
    data["text"] = .string(words.joined(separator: " "))
    state.stream.outbox.append(.event(WyomingEvent("transcript", data: data)))
    state.stream.outbox.append(.event(WyomingEvent("transcript-stop")))
    state.transcripts += 1
    let endAudio = endUtterance(&state)
    state.phase = phase
    return .merge(endAudio, timers.stop(.finalWait))
  }

  /// Drops the utterance's recognition (the `ifLet` cancels what still runs) and ends its
  /// audio.
  private func endUtterance(_ state: inout State) -> Effect<Action> {
    // Once the utterance is finishing, its audio has ended already.
    let isFinishing = if case .finishing = state.phase { true } else { false }
    let endAudio = isFinishing ? .none : self.endAudio(state)
    if let progress = state.recognition?.progress,
      let engine = state.request.model?.engine ?? models.first?.engine
    {
      state.decoded[engine, default: 0] += progress.audioDuration
    }
    state.utterance = nil
    state.request = Request()
    return endAudio
  }

  // MARK: - Ending

  /// Finishes the audio and stops recognition; the last words are awaited.
  private func finishAudio(_ state: inout State, closing: WyomingProblem?) -> Effect<Action> {
    state.phase = .finishing(closing: closing)
    return awaitLastWords(&state, closing: closing) { lastWordsArrived(&$0, closing: closing) }
  }

  /// The last words are in: the transcript goes out, then the close if there is one.
  private func lastWordsArrived(
    _ state: inout State, closing: WyomingProblem?
  ) -> Effect<Action> {
    if let problem = LastWords.problem(state.recognition, orNotAuthorized: true) {
      return .merge(
        timers.stop(.finalWait),
        close(&state, closing ?? .session(SessionProblem(problem))))
    }
    let effect = sendTranscript(state.words, &state, then: .ready)
    if let closing {
      return .merge(effect, close(&state, closing))
    }
    if state.isClientDone {
      return .merge(effect, close(&state, nil))
    }
    return effect
  }

  /// Ends the connection because of `problem`: at once for the client's mistakes and
  /// failures, after the transcript so far for the server's limits and a shutdown.
  func fail(_ state: inout State, _ problem: WyomingProblem) -> Effect<Action> {
    guard !state.isOver else { return .none }
    switch state.phase {
    case .streaming where problem.deliversLastWords:
      return .merge(timers.stopLimits(), finishAudio(&state, closing: problem))
    case .finishing(let closing):
      // The transcript is on its way: a shutdown closes after it, a limit changes nothing.
      if problem == .session(.shuttingDown) {
        state.phase = .finishing(closing: closing ?? problem)
      }
      return .none
    case .ready, .streaming, .endpointed:
      return close(&state, problem)
    }
  }

  /// The error event, then the close; only the close for `nil`.
  static func closing(_ problem: WyomingProblem?) -> [Output] {
    guard let problem else { return [.close] }
    return [.event(problem.event), .close]
  }

  /// The last words are late: the connection closes with its limit's problem, or says so.
  func lastWordsLate(_ state: inout State, _ late: WyomingProblem) -> Effect<Action> {
    guard !state.isOver, case .finishing(let closing) = state.phase else { return .none }
    return close(&state, closing ?? late)
  }

  /// The utterance goes with the connection.
  func ending(_ state: inout State) -> Effect<Action> {
    endUtterance(&state)
  }

  // MARK: - Audio

  /// An `audio-chunk`'s payload as 16-bit mono PCM, in the chunk's own format when it names
  /// one (the session checked it when it took the chunk), else the utterance's.
  static func pcm(of action: Action, in state: State) -> ByteBuffer? {
    guard case .received(let event) = action, event.type == "audio-chunk",
      let payload = event.payload, let start = state.utterance?.format
    else { return nil }
    let format =
      (try? WyomingAudioFormat(event.data, event: event.type, rates: 1...Int.max)) ?? start
    return format.monoPCM(payload)
  }
}

extension WyomingSession.State: ProtocolSessionState {}
extension WyomingSession.Action: ProtocolSessionAction {
  var streamAction: WyomingSession.Stream.Action? {
    guard case .stream(let action) = self else { return nil }
    return action
  }
}
