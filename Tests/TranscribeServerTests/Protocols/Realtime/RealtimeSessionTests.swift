import Architecture
import Clocks
import Foundation
import NIOCore
import SpeechClient
import SpeechRecognitionFeature
import Synchronization
import Testing

@testable import TranscribeServer

/// The Realtime transcription session as a reducer, told with `TestStore` and `TestClock`: the
/// session's settings, the input buffer, server VAD's items from recognition results, the
/// client's commits, each bad event, idle and trickling clients, and a shutdown.
@MainActor
struct RealtimeSessionTests {
  /// The decoder's side of the recognition tasks the test drives (one per run).
  let results = Locked<[AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation]>([])
  /// The audios the runs' recognition read, as the speech client got them.
  let requested = RequestedAudios()
  let clock = TestClock()
  let finishes = Locked(0)

  /// A value behind a lock, shared with the test's dependencies.
  final class Locked<Value: Sendable>: Sendable {
    private let value: Mutex<Value>
    init(_ value: Value) { self.value = Mutex(value) }
    func withLock<R: Sendable>(_ body: (inout Value) -> R) -> R { value.withLock { body(&$0) } }
  }

  func makeStore(
    limits: ServerConfiguration = ServerConfiguration()
  ) -> TestStoreOf<RealtimeSession> {
    let results = self.results
    let finishes = self.finishes
    let requested = self.requested
    let store = TestStore(initialState: RealtimeSession.State(id: "test")) {
      RealtimeSession(limits: limits)
    } withDependencies: {
      $0.continuousClock = clock
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { request in
        requested.record(request)
        let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
          .makeStream()
        results.withLock { $0.append(continuation) }
        return stream
      }
      $0.speechClient.finishTask = { finishes.withLock { $0 += 1 } }
    }
    store.exhaustivity = .off(showSkippedAssertions: false)
    return store
  }

  /// The current run's decoder delivers `result`.
  func hear(_ result: SpeechRecognitionResult, _ store: TestStoreOf<RealtimeSession>) async {
    results.withLock { $0.last }?.yield(result)
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard)
  }

  /// The current run's decoder delivers `result` as its last and ends.
  func hearLast(_ result: SpeechRecognitionResult, _ store: TestStoreOf<RealtimeSession>) async {
    let continuation = results.withLock { $0.last }
    continuation?.yield(result)
    continuation?.finish()
    await store.receive(\.recognition.speech.success)
    await store.receive(\.recognition.delegate.heard)
    await store.receive(\.recognition.recognitionFinished)
    await store.receive(\.recognition.delegate.ended)
  }

  /// A result: `finished` utterances then the partial `words`, with the decoder at `position`.
  /// With `probabilities`, each partial word is one token the decoder found that likely (as
  /// Moonshine's are); without, partial words have no tokens (as pocketsphinx's).
  nonisolated static func heard(
    _ words: String, finished: [String] = [], at position: TimeInterval, isFinal: Bool = false,
    probabilities: [Double]? = nil
  ) -> SpeechRecognitionResult {
    var segments: [TranscriptionSegment] = []
    var time = 0.5
    for (utterance, isFinished) in finished.map({ ($0, true) }) + [(words, false)] {
      let tokens = utterance.split(separator: " ").map(String.init)
      for (index, token) in tokens.enumerated() {
        var segment = TranscriptionSegment(
          substring: token, timestamp: time, duration: 0.2, confidence: isFinished ? 0.5 : 0,
          endsUtterance: isFinished && index == tokens.count - 1)
        if !isFinished, let probabilities {
          segment.tokens = [.init(bytes: Array(token.utf8), logprob: log(probabilities[index]))]
        }
        segments.append(segment)
        time += 0.2
      }
      time += 1
    }
    return SpeechRecognitionResult(
      bestTranscription: Transcription(segments: segments), isFinal: isFinal,
      progress: RecognitionProgress(audioDuration: position))
  }

  /// `input_audio_buffer.append` of `seconds` of silence in `format`.
  nonisolated static func append(
    seconds: Double, format: RealtimeAudioFormat = .pcm, eventID: String? = nil
  ) -> String {
    let bytes = Int(seconds * Double(format.sampleRate)) * format.bytesPerSample
    let audio = Data(repeating: format == .pcm ? 0 : 0xFF, count: bytes).base64EncodedString()
    let id = eventID.map { #", "event_id": "\#($0)""# } ?? ""
    return #"{"type": "input_audio_buffer.append", "audio": "\#(audio)"\#(id)}"#
  }

  static let commit = #"{"type": "input_audio_buffer.commit", "event_id": "c1"}"#
  static let turnDetectionOff =
    #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": null}}}}"#

  /// The events in the outbox, acknowledged.
  func takeEvents(_ store: TestStoreOf<RealtimeSession>) async -> [RealtimeServerEvent] {
    let outputs = store.state.stream.outbox
    await store.send(.stream(.written(through: store.state.stream.written + outputs.count)))
    return outputs.compactMap { if case .event(let event) = $0 { event } else { nil } }
  }

  /// A session that asked for logprobs, its first second of audio sent and its events taken.
  func startRunWithLogprobs() async -> TestStoreOf<RealtimeSession> {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "include": ["item.input_audio_transcription.logprobs"]}}"#
      ))
    await startRun(store, seconds: 1)
    _ = await takeEvents(store)
    return store
  }

  /// Sends the first audio and lets the run's recognition start.
  func startRun(
    _ store: TestStoreOf<RealtimeSession>, seconds: Double = 0.5,
    format: RealtimeAudioFormat = .pcm
  ) async {
    await store.send(.read(Self.append(seconds: seconds, format: format)))
    await store.receive(\.recognition.start)
    await store.receive(\.recognition.authorizationResponse)
    await store.receive(\.recognition.recognitionStarted)
  }

  /// Lets effects run until `condition` holds (at most a few thousand turns).
  func until(_ condition: () -> Bool) async {
    for _ in 0..<5_000 where !condition() { await Task.yield() }
  }

  func leave(_ store: TestStoreOf<RealtimeSession>) async {
    await store.send(.stream(.clientLeft))
    await store.receive(\.stream.delegate.end)
    await store.skipReceivedActions(strict: false)
    await store.finish()
  }

  // MARK: - Session

  /// A run's recognition keeps only its latest utterances (a session open for hours): the words
  /// not in an item yet are found by the utterances' numbers.
  @Test func pendingWordsCountUtterancesByNumberThoughOnlyTheLatestAreKept() {
    var state = RealtimeSession.State(id: "test")
    state.run = .init(
      recognition: SpeechRecognition.State(
        request: SpeechRecognitionRequest(source: .pushed(PushedAudio()))),
      rate: 24_000, start: 0)
    var builder = TranscriptionBuilder(keepingLast: 1)
    func word(_ text: String) -> TranscriptionSegment {
      TranscriptionSegment(substring: text, timestamp: 0, duration: 0.3, confidence: 1)
    }
    for text in ["one", "two", "three"] { builder.appendUtterance([word(text)]) }
    builder.partialSegments = [word("four")]
    state.run?.recognition.result = SpeechRecognitionResult(
      bestTranscription: builder.transcription, isFinal: false)
    state.run?.takenUtterances = 2
    #expect(state.recognition?.result?.bestTranscription.finishedUtterances.indices == 2..<3)
    #expect(state.pendingWords.map(\.substring) == ["three", "four"])
  }

  @Test func theSessionIsCreatedOnConnectAndAnUpdateSaysWhatWasApplied() async {
    let store = makeStore()
    await store.send(.stream(.start))
    #expect(await takeEvents(store) == [.session(RealtimeConfiguration(), isUpdate: false)])
    await store.send(
      .read(
        #"""
        {"type": "session.update", "event_id": "u1", "session": {"type": "transcription",
         "audio": {"input": {"format": {"type": "audio/pcmu"},
           "transcription": {"model": "gpt-4o-transcribe", "language": "en", "prompt": "cards"},
           "turn_detection": {"type": "server_vad", "threshold": 0.6, "prefix_padding_ms": 200,
             "silence_duration_ms": 700, "idle_timeout_ms": 6000},
           "noise_reduction": {"type": "near_field"}}},
         "include": ["item.input_audio_transcription.logprobs"]}}
        """#))
    var expected = RealtimeConfiguration()
    expected.format = .pcmu
    expected.model = "gpt-4o-transcribe"
    expected.language = "en"
    expected.prompt = "cards"
    expected.turnDetection = .init(
      threshold: 0.6, prefixPaddingMilliseconds: 200, silenceMilliseconds: 700,
      idleTimeoutMilliseconds: 6000)
    expected.includesLogprobs = true
    expected.noiseReduction = .object([("type", .string("near_field"))])
    #expect(await takeEvents(store) == [.session(expected, isUpdate: true)])
    #expect(store.state.configuration == expected)
    #expect(store.state.stream.allowedMessages == 2)
    // Server VAD's settings reach the recognizer's detector.
    #expect(
      expected.voiceActivity
        == VoiceActivityTuning(threshold: 0.6, minimumSilence: 0.7, judgesSentences: false))
    // The description as the wire has it.
    let json = RealtimeServerEvent.session(expected, isUpdate: true).json(
      eventID: "event_1", sessionID: "sess_test", defaultModel: "moonshine")
    #expect(
      json.contains(
        #""type":"session.updated","event_id":"event_1","session":{"type":"transcription""#))
    #expect(json.contains(#""format":{"type":"audio/pcmu"}"#))
    #expect(json.contains(#""include":["item.input_audio_transcription.logprobs"]"#))
    await leave(store)
  }

  @Test func semanticVADAsksForSentenceEndpointingWithPausesByEagerness() async {
    let store = makeStore()
    await store.send(.stream(.start))
    _ = await takeEvents(store)
    let expectations: [(String, VoiceActivityTuning)] = [
      (#"{"type": "semantic_vad"}"#, VoiceActivityTuning(judgesSentences: true)),
      (
        #"{"type": "semantic_vad", "eagerness": "medium"}"#,
        VoiceActivityTuning(judgesSentences: true)
      ),
      (
        #"{"type": "semantic_vad", "eagerness": "high", "create_response": false}"#,
        VoiceActivityTuning(minimumSilence: 0.15, judgesSentences: true, maximumSilence: 1)
      ),
      (
        #"{"type": "semantic_vad", "eagerness": "low"}"#,
        VoiceActivityTuning(minimumSilence: 0.5, judgesSentences: true, maximumSilence: 2.5)
      ),
    ]
    for (detection, tuning) in expectations {
      await store.send(
        .read(
          #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": "#
            + detection + "}}}}"))
      let events = await takeEvents(store)
      guard case .session(let configuration, isUpdate: true)? = events.first else {
        Issue.record("\(detection): \(events)")
        continue
      }
      #expect(configuration.voiceActivity == tuning, "\(detection)")
      let json = RealtimeServerEvent.session(configuration, isUpdate: true).json(
        eventID: "event_1", sessionID: "sess_test", defaultModel: "moonshine")
      let eagerness = configuration.turnDetection?.eagerness ?? "none"
      #expect(
        json.contains(#""turn_detection":{"type":"semantic_vad","eagerness":"\#(eagerness)"}"#),
        "\(json)")
    }
    // Back to server VAD: a fixed pause again.
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": {"type": "server_vad"}}}}}"#
      ))
    _ = await takeEvents(store)
    #expect(
      store.state.configuration.voiceActivity
        == VoiceActivityTuning(threshold: 0.5, minimumSilence: 0.5, judgesSentences: false))
    await leave(store)
  }

  @Test func aWrongSettingIsAnErrorEventAndChangesNothing() async {
    let store = makeStore()
    await store.send(.stream(.start))
    _ = await takeEvents(store)
    let cases: [(String, String, String?)] = [
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}}}"#,
        "invalid_value", "session.audio.input.format.rate"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/opus"}}}}}"#,
        "invalid_value", "session.audio.input.format"
      ),
      (
        #"{"type": "session.update", "session": {"type": "realtime"}}"#, "invalid_value",
        "session.type"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "voice": "alloy"}}"#,
        "unknown_parameter", "session.voice"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": {"type": "client_vad"}}}}}"#,
        "invalid_value", "session.audio.input.turn_detection.type"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": {"type": "semantic_vad", "eagerness": "eager"}}}}}"#,
        "invalid_value", "session.audio.input.turn_detection.eagerness"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": {"type": "semantic_vad", "threshold": 0.5}}}}}"#,
        "unknown_parameter", "session.audio.input.turn_detection.threshold"
      ),
      (
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"transcription": {"language": "fr"}}}}}"#,
        "invalid_value", "session.audio.input.transcription.language"
      ),
      (#"{"type": "session.update"}"#, "missing_required_parameter", "session"),
    ]
    for (index, (text, code, param)) in cases.enumerated() {
      await store.send(.read(text))
      let events = await takeEvents(store)
      guard case .error(let error)? = events.first, events.count == 1 else {
        Issue.record("\(text): \(events)")
        continue
      }
      #expect(error.code == code, "\(text)")
      #expect(error.param == param, "\(text)")
      #expect(error.type == "invalid_request_error")
      #expect(store.state.stream.allowedMessages == index + 2)
    }
    #expect(store.state.configuration == RealtimeConfiguration())
    await leave(store)
  }

  // MARK: - Bad events

  @Test func eachBadEventIsAnOpenAIErrorEventAndTheSessionGoesOn() async {
    var limits = ServerConfiguration()
    limits.maxFrameBytes = 4_096
    let store = makeStore(limits: limits)
    await store.send(.stream(.start))
    _ = await takeEvents(store)
    let oversized = Self.append(seconds: 0.2)
    let cases: [(RealtimeSession.Action, String, String?, String?)] = [
      (.read("{not json"), "invalid_json", nil, nil),
      (.read(#"["type"]"#), "invalid_json", nil, nil),
      (.read(#"{"event_id": "e0"}"#), "missing_required_parameter", "type", "e0"),
      (.read(#"{"type": "response.create", "event_id": "e1"}"#), "invalid_value", "type", "e1"),
      (
        .read(#"{"type": "input_audio_buffer.append", "audio": "%%%", "event_id": "e2"}"#),
        "invalid_value", "audio", "e2"
      ),
      (
        .read(#"{"type": "input_audio_buffer.append"}"#), "missing_required_parameter", "audio", nil
      ),
      (
        .read(#"{"type": "input_audio_buffer.append", "audio": "AQID"}"#), "invalid_value",
        "audio", nil
      ),
      (.read(Self.commit), "input_audio_buffer_commit_empty", nil, "c1"),
      (.read(oversized, limit: 4_096), "message_too_large", nil, nil),
      (.binary(100), "invalid_value", nil, nil),
    ]
    for (index, (action, code, param, eventID)) in cases.enumerated() {
      await store.send(action)
      let events = await takeEvents(store)
      guard case .error(let error)? = events.first, events.count == 1 else {
        Issue.record("\(action): \(events)")
        continue
      }
      #expect(error.code == code, "\(action)")
      #expect(error.param == param, "\(action)")
      #expect(error.eventID == eventID, "\(action)")
      #expect(store.state.stream.allowedMessages == index + 2, "\(action)")
    }
    // The message names what was wrong.
    let unknown = RealtimeClientEvent.parse(#"{"type": "response.create"}"#).error
    #expect(unknown?.message.contains("'input_audio_buffer.append'") == true)
    // An error event as OpenAI shapes it.
    let json = RealtimeServerEvent.error(.commitEmpty(milliseconds: 0)).json(
      eventID: "event_9", sessionID: "sess_test", defaultModel: "moonshine")
    #expect(
      json
        == #"{"type":"error","event_id":"event_9","error":{"type":"invalid_request_error","code":"input_audio_buffer_commit_empty","message":"Error committing input audio buffer: buffer too small. Expected at least 100ms of audio, but buffer only has 0.00ms of audio.","param":null,"event_id":null}}"#
    )
    // Nothing was decoded, and the session still runs.
    #expect(store.state.recognition == nil)
    #expect(store.state.phase == .streaming)
    await leave(store)
  }

  @Test func theFormatCannotChangeWhileTheBufferHoldsAudio() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startRun(store)
    _ = await takeEvents(store)
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/pcma"}}}}}"#
      ))
    #expect(await takeEvents(store) == [.error(.formatChangeWithAudio)])
    await store.send(.read(#"{"type": "input_audio_buffer.clear"}"#))
    #expect(await takeEvents(store) == [.cleared])
    #expect(store.state.recognition == nil)
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/pcma"}}}}}"#
      ))
    #expect(store.state.configuration.format == .pcma)
    await leave(store)
  }

  // MARK: - Audio

  @Test func thePromptsNamesAreTheRunsHotwords() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"transcription": {"prompt": "Turn on the Kallax lamp in Siobhan's room."}}}}}"#
      ))
    await startRun(store)
    #expect(
      store.state.recognition?.request.hotwords == Hotwords(["Turn", "Kallax", "Siobhan"]))
    await leave(store)
  }

  @Test func audioIsDecodedFromBase64AndG711AtItsOwnRate() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"format": {"type": "audio/pcmu"}}}}}"#
      ))
    await startRun(store, seconds: 0.25, format: .pcmu)
    await store.send(.read(Self.append(seconds: 0.25, format: .pcmu)))
    // 8 kHz μ-law: 2,000 bytes a message, pushed as 4,000 bytes of 16-bit PCM.
    #expect(store.state.audio?.sampleRate == 8_000)
    let append = RealtimeSession.Action.read(Self.append(seconds: 0.25, format: .pcmu))
    #expect(RealtimeSession.pcm(of: append, in: store.state)?.readableBytes == 4_000)
    #expect(store.state.bufferMilliseconds == 500)
    #expect(RealtimeAudioFormat.muLaw(0xFF) == 0)
    #expect(RealtimeAudioFormat.muLaw(0x80) == 32_124)
    #expect(RealtimeAudioFormat.muLaw(0x00) == -32_124)
    #expect(RealtimeAudioFormat.aLaw(0xD5) == 8)
    #expect(RealtimeAudioFormat.aLaw(0x55) == -8)
    #expect(RealtimeAudioFormat.aLaw(0xAA) == 32_256)
    #expect(RealtimeAudioFormat.pcmu.pcm([0xFF, 0x80]) == [0, 0, 0x7C, 0x7D])
    await leave(store)
  }

  @Test func moreAudioIsReadOnlyOnceTheDecoderIsWithinTheBufferedLimit() async {
    var limits = ServerConfiguration()
    limits.maxBufferedAudio = .seconds(1)
    let store = makeStore(limits: limits)
    await store.send(.stream(.start))
    await startRun(store, seconds: 0.6)
    #expect(store.state.stream.allowedMessages == 2)
    await store.send(.read(Self.append(seconds: 0.6)))
    // 1.2 s wait to be decoded: the next message waits.
    #expect(store.state.stream.allowedMessages == 2)
    await hear(Self.heard("", at: 0.3), store)
    #expect(store.state.stream.allowedMessages == 3)
    await leave(store)
  }

  // MARK: - Server VAD

  @Test func serverVADMakesAnItemOfEachUtteranceWithDeltasWhileItIsSpoken() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startRun(store, seconds: 1)
    _ = await takeEvents(store)
    // The first word: speech has started (300 ms of padding before it); the word may change.
    await hear(Self.heard("go", at: 1), store)
    #expect(
      await takeEvents(store) == [
        .speechStarted(itemID: "item_test_1", audioStartMilliseconds: 200)
      ]
    )
    // Two looks agree on "go" and a word follows it: it goes out.
    await hear(Self.heard("go for", at: 1.1), store)
    #expect(await takeEvents(store) == [.delta(itemID: "item_test_1", text: "go", logprobs: nil)])
    // "for" becomes "forward": nothing yet.
    await hear(Self.heard("go forward", at: 1.2), store)
    #expect(await takeEvents(store) == [])
    await hear(Self.heard("go forward ten", at: 1.4), store)
    #expect(
      await takeEvents(store) == [.delta(itemID: "item_test_1", text: " forward", logprobs: nil)])
    // The pause ends the utterance: stopped, committed, the rest, completed.
    await hear(Self.heard("", finished: ["go forward ten meters"], at: 2.2), store)
    #expect(
      await takeEvents(store) == [
        .speechStopped(itemID: "item_test_1", audioEndMilliseconds: 2200),
        .committed(itemID: "item_test_1", previousItemID: nil),
        .delta(itemID: "item_test_1", text: " ten meters", logprobs: nil),
        .completed(
          itemID: "item_test_1", transcript: "go forward ten meters", words: 4, logprobs: nil),
      ])
    // The next utterance is the next item, after the first.
    await hear(Self.heard("stop", finished: ["go forward ten meters"], at: 3), store)
    await hear(Self.heard("", finished: ["go forward ten meters", "stop"], at: 3.5), store)
    #expect(
      await takeEvents(store) == [
        .speechStarted(itemID: "item_test_2", audioStartMilliseconds: 2200),
        .speechStopped(itemID: "item_test_2", audioEndMilliseconds: 3500),
        .committed(itemID: "item_test_2", previousItemID: "item_test_1"),
        .delta(itemID: "item_test_2", text: "stop", logprobs: nil),
        .completed(itemID: "item_test_2", transcript: "stop", words: 1, logprobs: nil),
      ])
    #expect(
      RealtimeServerEvent.completed(
        itemID: "item_test_2", transcript: "stop", words: 1, logprobs: nil
      ).json(eventID: "event_7", sessionID: "sess_test", defaultModel: "moonshine")
        == #"{"type":"conversation.item.input_audio_transcription.completed","event_id":"event_7","item_id":"item_test_2","content_index":0,"transcript":"stop","usage":{"type":"tokens","input_tokens":0,"output_tokens":1,"total_tokens":1}}"#
    )
    await leave(store)
  }

  @Test func aRevisedWordKeepsTheDeltasGoingAndCompletedHasTheFinalWords() async {
    let store = await startRunWithLogprobs()
    await hear(Self.heard("so far", at: 1), store)
    await hear(Self.heard("so far away", at: 1.1), store)
    #expect(
      await takeEvents(store) == [
        .speechStarted(itemID: "item_test_1", audioStartMilliseconds: 200),
        .delta(itemID: "item_test_1", text: "so far", logprobs: nil),
      ])
    // "so" becomes "go": the deltas go on from the words not sent yet.
    await hear(Self.heard("go forward ten", at: 1.3), store)
    await hear(Self.heard("go forward ten meters", at: 1.4), store)
    #expect(
      await takeEvents(store) == [.delta(itemID: "item_test_1", text: " ten", logprobs: nil)])
    await hear(Self.heard("", finished: ["go forward ten meters"], at: 2), store)
    let events = await takeEvents(store)
    guard case .completed(_, let transcript, _, let logprobs?) = events.last else {
      Issue.record("\(events)")
      return
    }
    #expect(transcript == "go forward ten meters")
    // Decided words carry log probabilities: one per word without tokens.
    #expect(logprobs.map(\.token) == ["go", "forward", "ten", "meters"])
    #expect(logprobs.allSatisfy { abs($0.logprob - log(0.5)) < 1e-9 })
    guard case .delta(_, " meters", let deltaLogprobs?) = events.dropLast().last else {
      Issue.record("\(events)")
      return
    }
    #expect(deltaLogprobs.map(\.token) == ["meters"])
    await leave(store)
  }

  @Test func aWordTheDecoderIsSureOfGoesOutAfterOneLookWithItsLogprobs() async {
    let store = await startRunWithLogprobs()
    // One look, and the decoder is 95 % sure of "go" (a word follows it): it goes out, with
    // the log probability the decoder gave it.
    await hear(Self.heard("go for", at: 1, probabilities: [0.95, 0.4]), store)
    let events = await takeEvents(store)
    #expect(events.first == .speechStarted(itemID: "item_test_1", audioStartMilliseconds: 200))
    guard case .delta(_, "go", let logprobs?) = events.dropFirst().first, events.count == 2
    else {
      Issue.record("\(events)")
      return
    }
    #expect(logprobs.map(\.token) == ["go"])
    #expect(abs(logprobs[0].logprob - log(0.95)) < 1e-9)
    // Two looks agree on "far", but the decoder finds it 30 % likely: it waits.
    await hear(Self.heard("go far away", at: 1.1, probabilities: [0.95, 0.3, 0.4]), store)
    await hear(Self.heard("go far away now", at: 1.2, probabilities: [0.95, 0.3, 0.4, 0.4]), store)
    #expect(await takeEvents(store) == [])
    // Once it is 60 % likely, the two looks that agree on it settle it.
    await hear(
      Self.heard("go far away now then", at: 1.3, probabilities: [0.95, 0.6, 0.6, 0.4, 0.4]), store)
    let later = await takeEvents(store)
    guard case .delta(_, " far away", _) = later.first, later.count == 1 else {
      Issue.record("\(later)")
      return
    }
    await leave(store)
  }

  @Test func idleTimeoutMillisecondsOfQuietCommitAnEmptyItem() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(
      .read(
        #"{"type": "session.update", "session": {"type": "transcription", "audio": {"input": {"turn_detection": {"type": "server_vad", "idle_timeout_ms": 5000}}}}}"#
      ))
    await startRun(store, seconds: 0.5)
    for _ in 2...9 { await store.send(.read(Self.append(seconds: 0.5))) }
    _ = await takeEvents(store)
    // The tenth half second makes 5 s without speech.
    await store.send(.read(Self.append(seconds: 0.5)))
    #expect(
      await takeEvents(store) == [
        .timeoutTriggered(
          itemID: "item_test_1", audioStartMilliseconds: 0, audioEndMilliseconds: 5000),
        .committed(itemID: "item_test_1", previousItemID: nil),
        .completed(itemID: "item_test_1", transcript: "", words: 0, logprobs: nil),
      ])
    // Speech holds the timeout off; the next counts from the end of the quiet item.
    await store.send(.read(Self.append(seconds: 0.5)))
    #expect(await takeEvents(store) == [])
    #expect(
      RealtimeServerEvent.timeoutTriggered(
        itemID: "item_test_1", audioStartMilliseconds: 0, audioEndMilliseconds: 5000
      ).json(eventID: "event_5", sessionID: "sess_test", defaultModel: "moonshine")
        == #"{"type":"input_audio_buffer.timeout_triggered","event_id":"event_5","audio_start_ms":0,"audio_end_ms":5000,"item_id":"item_test_1"}"#
    )
    await leave(store)
  }

  // MARK: - Commits

  @Test func withTurnDetectionOffTheClientCommitsAndGetsTheItemsWordsAfterwards() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await store.send(.read(Self.turnDetectionOff))
    await startRun(store, seconds: 1)
    _ = await takeEvents(store)
    // No speech events and no deltas before the commit: the client has no item yet.
    await hear(Self.heard("go forward", at: 0.8), store)
    await hear(Self.heard("go forward ten", at: 1), store)
    #expect(await takeEvents(store) == [])
    await store.send(.read(Self.commit))
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    // The words two looks agreed on go out as soon as the client knows the item.
    let committed = await takeEvents(store)
    #expect(
      committed == [
        .committed(itemID: "item_test_1", previousItemID: nil),
        .delta(itemID: "item_test_1", text: "go forward", logprobs: nil),
      ], "\(committed)")
    // The next message waits for the item's words.
    #expect(store.state.stream.allowedMessages == 3)
    #expect(store.state.phase == .committing)
    // The same words again are not another look.
    await hear(Self.heard("go forward ten", at: 1), store)
    #expect(await takeEvents(store) == [])
    // The last result's words are a finished utterance's: settled, whatever the looks.
    await hearLast(Self.heard("", finished: ["go forward ten meters"], at: 1, isFinal: true), store)
    #expect(
      await takeEvents(store) == [
        .delta(itemID: "item_test_1", text: " ten meters", logprobs: nil),
        .completed(
          itemID: "item_test_1", transcript: "go forward ten meters", words: 4, logprobs: nil),
      ])
    #expect(store.state.stream.allowedMessages == 4)
    #expect(store.state.recognition == nil)
    #expect(store.state.phase == .streaming)
    // The next audio is a new run, and its commit the next item.
    await startRun(store, seconds: 0.5)
    await store.send(.read(Self.commit))
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await hearLast(Self.heard("", at: 0.5, isFinal: true), store)
    #expect(
      await takeEvents(store) == [
        .committed(itemID: "item_test_2", previousItemID: "item_test_1"),
        .completed(itemID: "item_test_2", transcript: "", words: 0, logprobs: nil),
      ])
    await until { finishes.withLock { $0 } == 2 }
    // Each run read an audio of its own, ended by its commit.
    #expect(
      requested.summary == [
        .init(rate: 24_000, isFinished: true), .init(rate: 24_000, isFinished: true),
      ])
    #expect(requested.all.count == 2 && requested.all[0] !== requested.all[1])
    await leave(store)
  }

  @Test func aClearDropsTheBufferAndItsItem() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startRun(store, seconds: 1)
    await hear(Self.heard("go", at: 1), store)
    _ = await takeEvents(store)
    await store.send(.read(#"{"type": "input_audio_buffer.clear"}"#))
    #expect(await takeEvents(store) == [.cleared])
    #expect(store.state.item == nil)
    #expect(store.state.recognition == nil)
    await store.send(.read(Self.commit))
    guard case .error(let error)? = await takeEvents(store).first else {
      Issue.record("no error")
      return
    }
    #expect(error.code == "input_audio_buffer_commit_empty")
    await leave(store)
  }

  // MARK: - Limits and shutdown

  @Test func anIdleSessionIsClosedAndATrickleToo() async {
    var limits = ServerConfiguration()
    limits.idleTimeout = .seconds(5)
    let store = makeStore(limits: limits)
    await store.send(.stream(.start))
    _ = await takeEvents(store)
    await clock.advance(by: .seconds(5))
    await store.receive(\.stream.idleTimeoutElapsed)
    await store.receive(\.stream.delegate.mustClose)
    let events = await takeEvents(store)
    guard case .error(let error)? = events.first else {
      Issue.record("\(events)")
      return
    }
    #expect(error.code == "idle_timeout")
    #expect(store.state.stream.outbox == [])
    #expect(store.state.stream.ending == .problem(.session(.idle(.seconds(5)))))
    await store.finish()

    // 50 ms of audio a message, each 4 s: too little to renew the idle time.
    let trickle = makeStore(limits: limits)
    await trickle.send(.stream(.start))
    await startRun(trickle, seconds: 0.05)
    await clock.advance(by: .seconds(4))
    await trickle.send(.read(Self.append(seconds: 0.04)))
    await clock.advance(by: .seconds(1))
    await trickle.receive(\.stream.idleTimeoutElapsed)
    await trickle.receive(\.stream.delegate.mustClose)
    #expect(
      trickle.state.phase
        == .finishing(
          closing: .session(
            .tooLittleAudio(
              received: .milliseconds(90), within: .seconds(5), renewal: .milliseconds(100)))))
    await trickle.receive(\.stream.audioEnded)
    await trickle.receive(\.recognition.finish)
    await hearLast(Self.heard("", at: 0.09, isFinal: true), trickle)
    let last = await takeEvents(trickle)
    guard case .error(let trickleError)? = last.last else {
      Issue.record("\(last)")
      return
    }
    #expect(trickleError.code == "idle_timeout")
    #expect(trickle.state.stream.ending != nil)
    await trickle.skipReceivedActions(strict: false)
    await trickle.finish()
  }

  @Test func aRunWhoseRecognitionFailsClosesTheSessionAtOnceWith1011() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startRun(store, seconds: 1)
    _ = await takeEvents(store)
    results.withLock { $0.last }?.finish(
      throwing: SpeechClient.Failure.decoderFailure("out of memory"))
    await store.receive(\.recognition.delegate.ended)
    let error = WebSocketSessionError.session(
      .recognitionFailed("the speech decoder failed (out of memory)"))
    #expect(
      store.state.stream.outbox == [
        .event(.error(RealtimeError(closing: error))), .close(error),
      ])
    #expect(store.state.stream.ending == .problem(error))
    #expect(error.closeCode == 1011)
    await store.finish()
  }

  @Test func aShutdownDeliversTheLastWordsThenClosesWith1001() async {
    let store = makeStore()
    await store.send(.stream(.start))
    await startRun(store, seconds: 1)
    await hear(Self.heard("go", at: 1), store)
    _ = await takeEvents(store)
    await store.send(.stream(.shutdown))
    await store.receive(\.stream.delegate.mustClose)
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await hearLast(Self.heard("", finished: ["go forward"], at: 1, isFinal: true), store)
    let outputs = store.state.stream.outbox
    #expect(
      outputs.dropLast(2) == [
        .event(.speechStopped(itemID: "item_test_1", audioEndMilliseconds: 1000)),
        .event(.committed(itemID: "item_test_1", previousItemID: nil)),
        .event(.delta(itemID: "item_test_1", text: "go forward", logprobs: nil)),
        .event(
          .completed(itemID: "item_test_1", transcript: "go forward", words: 2, logprobs: nil)),
      ])
    #expect(outputs.last == .close(.session(.shuttingDown)))
    guard case .event(.error(let error)) = outputs.dropLast().last else {
      Issue.record("\(outputs)")
      return
    }
    #expect(error.code == "server_shutting_down")
    #expect(error.type == "server_error")
    #expect(store.state.stream.ending == .problem(.session(.shuttingDown)))
    await store.finish()
  }

  @Test func aSessionPastItsMaximumLengthIsClosedAfterItsLastWords() async {
    var limits = ServerConfiguration()
    limits.maxSessionDuration = .seconds(60)
    limits.idleTimeout = .seconds(600)
    let store = makeStore(limits: limits)
    await store.send(.stream(.start))
    await store.send(.read(Self.turnDetectionOff))
    await startRun(store, seconds: 1)
    await clock.advance(by: .seconds(60))
    await store.receive(\.stream.maxDurationElapsed)
    await store.receive(\.stream.delegate.mustClose)
    await store.receive(\.stream.audioEnded)
    await store.receive(\.recognition.finish)
    await hearLast(Self.heard("", finished: ["hello"], at: 1, isFinal: true), store)
    let events = await takeEvents(store)
    #expect(
      events.map(\.type).suffix(4) == [
        "input_audio_buffer.committed", "conversation.item.input_audio_transcription.delta",
        "conversation.item.input_audio_transcription.completed", "error",
      ])
    #expect(
      store.state.stream.outbox == []
        && store.state.stream.ending == .problem(.session(.tooLong(.seconds(60)))))
    await store.finish()
  }
}

extension RealtimeSession.Action {
  /// A text message from the client, read as ``RealtimeCodec`` reads it.
  static func read(_ text: String, limit: Int = ServerConfiguration().maxFrameBytes) -> Self {
    .message(RealtimeClientMessage(text: text, limit: limit))
  }
}
