import Architecture
import Clocks
import ConcurrencyExtras
import Foundation
import KeyboardClient
import SpeechClient
import SpeechRecognitionFeature
import Testing

@testable import DictationFeature

/// A result whose finished utterances are `utterances` (then `partial` words), as a task's
/// results grow.
func result(
  _ utterances: [String], partial: String = "", isFinal: Bool = false
)
  -> SpeechRecognitionResult
{
  var segments: [TranscriptionSegment] = []
  for utterance in utterances {
    let words = utterance.split(separator: " ").map(String.init)
    for (index, word) in words.enumerated() {
      segments.append(
        TranscriptionSegment(
          substring: word, timestamp: Double(segments.count) * 0.3, duration: 0.3,
          confidence: 0.9, endsUtterance: index == words.count - 1))
    }
  }
  for word in partial.split(separator: " ") {
    segments.append(
      TranscriptionSegment(
        substring: String(word), timestamp: Double(segments.count) * 0.3, duration: 0.3,
        confidence: 0.9))
  }
  return SpeechRecognitionResult(
    bestTranscription: Transcription(segments: segments), isFinal: isFinal)
}

/// What the keyboard client was asked to do, in order: text typed, `⌫n` for n Backspaces.
typealias Keystrokes = LockIsolated<[String]>

/// The text a window shows after the keyboard client's keystrokes.
enum DictateScreen {
  static func apply(_ keystrokes: [String]) -> String {
    var screen = ""
    for keys in keystrokes {
      if keys.hasPrefix("⌫"), let count = Int(keys.dropFirst()) {
        screen.removeLast(min(count, screen.count))
      } else if keys != "finish" {
        screen += keys
      }
    }
    return screen
  }
}

/// A speech session the test drives: results go in through `continuation`; `finishTask` sends
/// the final result (`finalUtterances`) and ends the stream, unless the session holds its finish
/// for the test to do it with ``finish()`` (so the test decides what comes first).
final class SpeechSession: Sendable {
  let stream: AsyncThrowingStream<SpeechRecognitionResult, any Error>
  let continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation
  let finalUtterances = LockIsolated<[String]>([])
  let starts = LockIsolated(0)
  let holdsFinish: Bool

  init(holdsFinish: Bool = false) {
    (stream, continuation) = AsyncThrowingStream.makeStream()
    self.holdsFinish = holdsFinish
  }

  /// Sends the final result.
  func sendFinalResult() {
    continuation.yield(result(finalUtterances.value, isFinal: true))
  }
}

/// A gate a keyboard client's typing waits at until the test opens it.
final class Gate: Sendable {
  let stream: AsyncStream<Void>
  let continuation: AsyncStream<Void>.Continuation

  init() {
    (stream, continuation) = AsyncStream.makeStream()
  }

  func wait() async {
    for await _ in stream { return }
  }

  func open() {
    continuation.yield(())
  }
}

@MainActor
struct DictationTests {
  /// A store for dictation whose speech client authorizes and answers with the sessions in
  /// `sessions` (one per start), and whose keyboard records what it is asked to type.
  func store(
    _ state: Dictation.State = Dictation.State(speech: SpeechRecognition.State()),
    sessions: [SpeechSession], keystrokes: Keystrokes,
    type: (@Sendable (String) async throws -> Void)? = nil
  ) -> TestStoreOf<Dictation> {
    let next = LockIsolated(0)
    return TestStore(initialState: state) {
      Dictation()
    } withDependencies: {
      $0.continuousClock = TestClock()
      $0.speechClient.requestAuthorization = { .authorized }
      $0.speechClient.startTask = { _ in
        let session = next.withValue { index in
          defer { index += 1 }
          return sessions[index]
        }
        session.starts.withValue { $0 += 1 }
        return session.stream
      }
      $0.speechClient.finishTask = {
        let session = sessions[next.value - 1]
        guard !session.holdsFinish else { return }
        session.sendFinalResult()
        session.continuation.finish()
      }
      $0.keyboardClient.type = { text in
        if let type { try await type(text) }
        keystrokes.withValue { $0.append(text) }
      }
      $0.keyboardClient.erase = { count in keystrokes.withValue { $0.append("⌫\(count)") } }
      $0.keyboardClient.finish = { keystrokes.withValue { $0.append("finish") } }
    }
  }

  /// Sends `action` (start or resume) and receives the speech session's start.
  func listen(_ store: TestStoreOf<Dictation>, _ action: Dictation.Action) async {
    await store.send(action) {
      $0.isPaused = false
      $0.isListening = true
      $0.resumesWhenIdle = false
      $0.takenUtterances = 0
      $0.speech.result = nil
    }
    await store.receive(\.speech.start) {
      $0.speech.isRecording = true
      $0.speech.status = .authorizing
      $0.speech.outcome = nil
    }
    await store.receive(\.speech.authorizationResponse) {
      $0.speech.status = .starting
    }
    await store.receive(\.speech.recognitionStarted) {
      $0.speech.status = .recording
    }
  }

  /// Receives the result `utterances` (already yielded) and the typing of the new ones; the
  /// names the model wrote with a capital inside a sentence are then `names`, when given.
  func hear(
    _ store: TestStoreOf<Dictation>, _ session: SpeechSession, _ utterances: [String],
    typing entries: [Dictation.Entry], names: [String]? = nil
  ) async {
    session.continuation.yield(result(utterances))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(utterances)
    }
    await store.receive(\.speech.delegate.heard) {
      if let names { $0.names.learned = names }
      $0.takenUtterances = utterances.count
      $0.entries += entries
      $0.typingEntry = entries.first(where: { $0.status == .waiting })?.id ?? $0.typingEntry
    }
  }

  @Test func eachUtteranceIsTypedSpacedAndCapitalisedAsAPersonTypes() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    // Partial words are not typed.
    session.continuation.yield(result([], partial: "turn on"))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result([], partial: "turn on")
    }
    await store.receive(\.speech.delegate.heard)
    await hear(
      store, session, ["Turn on the kitchen lights."],
      typing: [
        Dictation.Entry(
          id: 0, heard: "Turn on the kitchen lights.", text: "Turn on the kitchen lights.")
      ])
    await typed(store, 0)
    await hear(
      store, session, ["Turn on the kitchen lights.", "and the hall"],
      typing: [Dictation.Entry(id: 1, heard: "and the hall", text: " And the hall")])
    await typed(store, 1)
    await hear(
      store, session, ["Turn on the kitchen lights.", "and the hall", "Please."],
      typing: [Dictation.Entry(id: 2, heard: "Please.", text: " please.")])
    await typed(store, 2)
    #expect(keystrokes.value == ["Turn on the kitchen lights.", " And the hall", " please."])
    await stop(store, session, keystrokes)
  }

  /// Receives the end of entry `id`'s typing.
  func typed(_ store: TestStoreOf<Dictation>, _ id: Int) async {
    await store.receive(\.typed) {
      $0.typingEntry = nil
      $0.entries[id].status = .typed
    }
  }

  /// Stops a listening dictation whose last words are none, and receives its end.
  func stop(
    _ store: TestStoreOf<Dictation>, _ session: SpeechSession, _ keystrokes: Keystrokes
  ) async {
    await store.send(.stop) { $0.isStopping = true }
    await store.receive(\.speech.finish) {
      $0.speech.isRecording = false
      $0.speech.status = .finishing
    }
    let final = result(session.finalUtterances.value, isFinal: true)
    await store.receive(\.speech.speech.success) {
      $0.speech.result = final
    }
    await store.receive(\.speech.delegate.heard)
    await store.receive(\.speech.recognitionFinished) {
      $0.speech.status = .idle
      $0.speech.outcome = .finished
    }
    await store.receive(\.speech.delegate.ended) {
      $0.isListening = false
      $0.isReleasing = true
    }
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    #expect(keystrokes.value.last == "finish")
  }

  @Test func aFragmentCutByALongPauseIsJoinedBeforeTheNextWords() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    await hear(
      store, session, ["Turn on the."],
      typing: [Dictation.Entry(id: 0, heard: "Turn on the.", text: "Turn on the.")])
    await typed(store, 0)
    session.continuation.yield(result(["Turn on the.", "Kitchen lights."]))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(["Turn on the.", "Kitchen lights."])
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 2
      $0.entries[0].text = "Turn on the"
      $0.entries.append(
        Dictation.Entry(id: 1, heard: "Kitchen lights.", text: " kitchen lights.", erase: 1))
      $0.typingEntry = 1
    }
    await typed(store, 1)
    #expect(keystrokes.value == ["Turn on the.", "⌫1", " kitchen lights."])
    await stop(store, session, keystrokes)
  }

  @Test func namesFromTheHotwordsOrWrittenWithACapitalInsideASentenceKeepIt() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    var request = SpeechRecognitionRequest()
    request.hotwords = Hotwords(["Kallax", "living room"])
    let store = store(
      Dictation.State(speech: SpeechRecognition.State(request: request)),
      sessions: [session], keystrokes: keystrokes)
    #expect(store.state.names.given == ["kallax"])
    await listen(store, .start)
    var heard = ["Put the books on the"]
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 0, heard: heard[0], text: "Put the books on the")])
    await typed(store, 0)
    heard.append("Kallax.")
    await hear(
      store, session, heard, typing: [Dictation.Entry(id: 1, heard: "Kallax.", text: " Kallax.")])
    await typed(store, 1)
    heard.append("Good morning,")
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 2, heard: "Good morning,", text: " Good morning,")])
    await typed(store, 2)
    // Not known for a name yet: the model's capital at the start of an utterance says nothing.
    heard.append("Dave.")
    await hear(
      store, session, heard, typing: [Dictation.Entry(id: 3, heard: "Dave.", text: " dave.")])
    await typed(store, 3)
    heard.append("I told Dave, and")
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 4, heard: "I told Dave, and", text: " I told Dave, and")],
      names: ["dave"])
    await typed(store, 4)
    heard.append("Dave agreed.")
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 5, heard: "Dave agreed.", text: " Dave agreed.")])
    await typed(store, 5)
    #expect(
      keystrokes.value.joined()
        == "Put the books on the Kallax. Good morning, dave. I told Dave, and Dave agreed.")
    await stop(store, session, keystrokes)
  }

  /// Yields a result that revises the last utterance (the recognizer heard it again with what
  /// followed), and receives it and the revising entry's typing.
  func revise(
    _ store: TestStoreOf<Dictation>, _ session: SpeechSession, _ utterances: [String],
    _ update: @escaping (inout Dictation.State) -> Void
  ) async {
    session.continuation.yield(result(utterances))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(utterances)
    }
    await store.receive(\.speech.delegate.heard) {
      update(&$0)
    }
  }

  @Test func aSentenceThatWentOnIsErasedBackToWhereItChangedAndRetyped() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    let made = "He might even have been made."
    await hear(
      store, session, [made], typing: [Dictation.Entry(id: 0, heard: made, text: made)])
    await typed(store, 0)
    // Speech resumed soon after: the recognizer revises the last utterance.
    let whole = "He might even have been made amiable himself."
    await revise(store, session, [whole]) {
      $0.entries[0].text = "He might even have been made"
      $0.entries.append(
        Dictation.Entry(id: 1, heard: whole, text: " amiable himself.", erase: 1, revises: 0))
      $0.typingEntry = 1
    }
    await typed(store, 1)
    // Revised again (a longer pause, more words): erased back to where the text changed.
    let longer = "He might even have been made amiable, himself a proud man."
    await revise(store, session, [longer]) {
      $0.entries[1].text = " amiable"
      $0.entries.append(
        Dictation.Entry(id: 2, heard: longer, text: ", himself a proud man.", erase: 9, revises: 0))
      $0.typingEntry = 2
    }
    await typed(store, 2)
    // The next utterance follows the revised sentence.
    await hear(
      store, session, [longer, "Yes."],
      typing: [Dictation.Entry(id: 3, heard: "Yes.", text: " Yes.")])
    await typed(store, 3)
    #expect(
      keystrokes.value == [
        made, "⌫1", " amiable himself.", "⌫9", ", himself a proud man.", " Yes.",
      ])
    #expect(
      DictateScreen.apply(keystrokes.value)
        == "He might even have been made amiable, himself a proud man. Yes.")
    await stop(store, session, keystrokes)
  }

  @Test func scratchThatAfterARevisionTakesBackTheWholeSentence() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    await hear(
      store, session, ["Call me."],
      typing: [Dictation.Entry(id: 0, heard: "Call me.", text: "Call me.")])
    await typed(store, 0)
    await revise(store, session, ["Call me tomorrow."]) {
      $0.entries[0].text = "Call me"
      $0.entries.append(
        Dictation.Entry(
          id: 1, heard: "Call me tomorrow.", text: " tomorrow.", erase: 1, revises: 0))
      $0.typingEntry = 1
    }
    await typed(store, 1)
    session.continuation.yield(result(["Call me tomorrow.", "Scratch that."]))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(["Call me tomorrow.", "Scratch that."])
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 2
      $0.entries[0].status = .scratched
      $0.entries[1].status = .scratched
      $0.entries.append(
        Dictation.Entry(
          id: 2, heard: "Scratch that.", text: "", command: .scratchThat, erase: 17))
      $0.typingEntry = 2
    }
    await typed(store, 2)
    #expect(keystrokes.value == ["Call me.", "⌫1", " tomorrow.", "⌫17"])
    #expect(DictateScreen.apply(keystrokes.value) == "")
    await stop(store, session, keystrokes)
  }

  @Test func aRevisionOfAnUtteranceNotOnScreenTypesOnlyTheNewWords() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    // "Scratch that." with nothing to take back, then heard again with what followed.
    session.continuation.yield(result(["Scratch that."]))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(["Scratch that."])
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 1
      $0.entries = [
        Dictation.Entry(
          id: 0, heard: "Scratch that.", text: "", command: .scratchThat, status: .typed)
      ]
    }
    let whole = "Scratch that and turn it off."
    await revise(store, session, [whole]) {
      $0.entries.append(Dictation.Entry(id: 1, heard: whole, text: "And turn it off."))
      $0.typingEntry = 1
    }
    await typed(store, 1)
    #expect(keystrokes.value == ["And turn it off."])
    await stop(store, session, keystrokes)
  }

  @Test func spokenCommandsBreakLinesAndScratchTheLastUtterance() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    var heard = ["Dear Ann, new line."]
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 0, heard: "Dear Ann, new line.", text: "Dear Ann,\n")],
      names: ["ann"])
    await typed(store, 0)
    heard.append("the meeting moved.")
    await hear(
      store, session, heard,
      typing: [
        Dictation.Entry(id: 1, heard: "the meeting moved.", text: "The meeting moved.")
      ])
    await typed(store, 1)
    heard.append("Scratch that.")
    session.continuation.yield(result(heard))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(heard)
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 3
      $0.entries[1].status = .scratched
      $0.entries.append(
        Dictation.Entry(
          id: 2, heard: "Scratch that.", text: "", command: .scratchThat, erase: 18))
      $0.typingEntry = 2
    }
    await typed(store, 2)
    heard.append("It is cancelled. New paragraph.")
    await hear(
      store, session, heard,
      typing: [
        Dictation.Entry(
          id: 3, heard: "It is cancelled. New paragraph.", text: "It is cancelled.\n\n")
      ])
    await typed(store, 3)
    #expect(
      keystrokes.value == [
        "Dear Ann,\n", "The meeting moved.", "⌫18", "It is cancelled.\n\n",
      ])
    await stop(store, session, keystrokes)
  }

  @Test func withoutCommandsTheWordsAreTyped() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(
      Dictation.State(speech: SpeechRecognition.State(), recognizesCommands: false),
      sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    await hear(
      store, session, ["Scratch that."],
      typing: [Dictation.Entry(id: 0, heard: "Scratch that.", text: "Scratch that.")])
    await typed(store, 0)
    #expect(keystrokes.value == ["Scratch that."])
    await stop(store, session, keystrokes)
  }

  @Test func pauseTypesTheLastWordsAndReleasesTheMicrophoneUntilResumed() async {
    let first = SpeechSession(holdsFinish: true)
    let second = SpeechSession()
    first.finalUtterances.setValue(["Hello."])
    let keystrokes = Keystrokes([])
    let store = store(sessions: [first, second], keystrokes: keystrokes)
    await listen(store, .start)
    // The pause finishes the session: its last words are typed, then nothing runs.
    await store.send(.toggle) { $0.isPaused = true }
    await store.receive(\.speech.finish) {
      $0.speech.isRecording = false
      $0.speech.status = .finishing
    }
    first.sendFinalResult()
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(["Hello."], isFinal: true)
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 1
      $0.entries = [Dictation.Entry(id: 0, heard: "Hello.", text: "Hello.")]
      $0.typingEntry = 0
    }
    await typed(store, 0)
    first.continuation.finish()
    await store.receive(\.speech.recognitionFinished) {
      $0.speech.status = .idle
      $0.speech.outcome = .finished
    }
    await store.receive(\.speech.delegate.ended) {
      $0.isListening = false
    }
    // Pausing again does nothing; resuming starts a new session whose words follow on.
    await store.send(.pause)
    await store.send(.toggle) {
      $0.isPaused = false
      $0.isListening = true
      $0.takenUtterances = 0
      $0.speech.result = nil
    }
    await store.receive(\.speech.start) {
      $0.speech.isRecording = true
      $0.speech.status = .authorizing
      $0.speech.outcome = nil
    }
    await store.receive(\.speech.authorizationResponse) { $0.speech.status = .starting }
    await store.receive(\.speech.recognitionStarted) { $0.speech.status = .recording }
    #expect(first.starts.value == 1 && second.starts.value == 1)
    await hear(
      store, second, ["Goodbye."],
      typing: [Dictation.Entry(id: 1, heard: "Goodbye.", text: " Goodbye.")])
    await typed(store, 1)
    #expect(keystrokes.value == ["Hello.", " Goodbye."])
    await stop(store, second, keystrokes)
  }

  @Test func startingPausedListensOnlyOnceResumedAndStopWhilePausedEndsAtOnce() async {
    let keystrokes = Keystrokes([])
    let store = store(
      Dictation.State(speech: SpeechRecognition.State(), startsPaused: true),
      sessions: [], keystrokes: keystrokes)
    await store.send(.start)
    await store.send(.stop) {
      $0.isStopping = true
      $0.isReleasing = true
    }
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    // Nothing was listened to, typed, or can be resumed.
    await store.send(.resume)
    #expect(keystrokes.value == ["finish"])
  }

  @Test func aResumeWhileThePausedSessionFinishesStartsANewOneOnceItIsOver() async {
    let first = SpeechSession(holdsFinish: true)
    let second = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [first, second], keystrokes: keystrokes)
    await listen(store, .start)
    await store.send(.pause) { $0.isPaused = true }
    await store.receive(\.speech.finish) {
      $0.speech.isRecording = false
      $0.speech.status = .finishing
    }
    await store.send(.resume) {
      $0.isPaused = false
      $0.resumesWhenIdle = true
    }
    first.sendFinalResult()
    first.continuation.finish()
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result([], isFinal: true)
    }
    await store.receive(\.speech.delegate.heard)
    await store.receive(\.speech.recognitionFinished) {
      $0.speech.status = .idle
      $0.speech.outcome = .finished
    }
    await store.receive(\.speech.delegate.ended) {
      $0.speech.result = nil
      $0.resumesWhenIdle = false
    }
    await store.receive(\.speech.start) {
      $0.speech.isRecording = true
      $0.speech.status = .authorizing
      $0.speech.outcome = nil
    }
    await store.receive(\.speech.authorizationResponse) { $0.speech.status = .starting }
    await store.receive(\.speech.recognitionStarted) { $0.speech.status = .recording }
    #expect(second.starts.value == 1)
    await stop(store, second, keystrokes)
  }

  @Test func aTyperFailingMidSentenceWarnsOnceAndLosesNothing() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let failures = LockIsolated(2)
    let store = store(
      sessions: [session], keystrokes: keystrokes,
      type: { _ in
        // The window is gone for two utterances, then back.
        let fails = failures.withValue { count in
          defer { count -= 1 }
          return count > 0
        }
        if fails { throw KeyboardClient.Failure.noFocusedWindow }
      })
    await listen(store, .start)
    var heard = ["Turn on the"]
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 0, heard: "Turn on the", text: "Turn on the")])
    await store.receive(\.typed) {
      $0.typingEntry = nil
      $0.entries[0].status = .notTyped
      $0.typingFailure = .noFocusedWindow
    }
    heard.append("kitchen lights.")
    // Written out, the first utterance is not on screen: the next begins a sentence there.
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 1, heard: "kitchen lights.", text: "Kitchen lights.")])
    await store.receive(\.typed) {
      $0.typingEntry = nil
      $0.entries[1].status = .notTyped
    }
    heard.append("Thanks.")
    await hear(
      store, session, heard,
      typing: [Dictation.Entry(id: 2, heard: "Thanks.", text: "Thanks.")])
    await typed(store, 2)
    #expect(keystrokes.value == ["Thanks."])
    await stop(store, session, keystrokes)
  }

  @Test func stopWaitsForTheLastWordsToBeTyped() async {
    let session = SpeechSession()
    session.finalUtterances.setValue(["One more thing."])
    let keystrokes = Keystrokes([])
    let gate = Gate()
    let store = store(sessions: [session], keystrokes: keystrokes, type: { _ in await gate.wait() })
    await listen(store, .start)
    await store.send(.stop) { $0.isStopping = true }
    await store.receive(\.speech.finish) {
      $0.speech.isRecording = false
      $0.speech.status = .finishing
    }
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(["One more thing."], isFinal: true)
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 1
      $0.entries = [Dictation.Entry(id: 0, heard: "One more thing.", text: "One more thing.")]
      $0.typingEntry = 0
    }
    // The session is over, the typing is not: dictation is not finished yet.
    await store.receive(\.speech.recognitionFinished) {
      $0.speech.status = .idle
      $0.speech.outcome = .finished
    }
    await store.receive(\.speech.delegate.ended) {
      $0.isListening = false
    }
    gate.open()
    await store.receive(\.typed) {
      $0.typingEntry = nil
      $0.entries[0].status = .typed
      $0.isReleasing = true
    }
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    #expect(keystrokes.value == ["One more thing.", "finish"])
  }

  /// A second Ctrl-C: the typing under way is abandoned (its effect cancelled, which kills the
  /// tool), and the keyboard still gives back what it borrowed before dictation is over.
  @Test func anInterruptAbandonsTheTypingAndStillGivesTheKeyboardBack() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let gate = Gate()
    let store = store(
      sessions: [session], keystrokes: keystrokes,
      type: { _ in
        await gate.wait()
        try Task.checkCancellation()
      })
    await listen(store, .start)
    await hear(
      store, session, ["Turn on the kitchen lights."],
      typing: [
        Dictation.Entry(
          id: 0, heard: "Turn on the kitchen lights.", text: "Turn on the kitchen lights.")
      ])
    await store.send(.interrupt) {
      $0.isStopping = true
      $0.typingEntry = nil
      $0.isReleasing = true
    }
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    #expect(keystrokes.value == ["finish"])
    // A second interrupt does not give the keyboard back twice.
    await store.send(.interrupt)
    #expect(keystrokes.value == ["finish"])
    // The host exits now; the speech session is left to the process's end.
    await store.skipInFlightEffects()
  }

  /// An interrupt while the keyboard is already being given back waits for that.
  @Test func anInterruptDuringTheReleaseDoesNotReleaseTwice() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    let gate = Gate()
    store.dependencies.keyboardClient.finish = {
      await gate.wait()
      keystrokes.withValue { $0.append("finish") }
    }
    await listen(store, .start)
    await store.send(.stop) { $0.isStopping = true }
    await store.receive(\.speech.finish) {
      $0.speech.isRecording = false
      $0.speech.status = .finishing
    }
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result([], isFinal: true)
    }
    await store.receive(\.speech.delegate.heard)
    await store.receive(\.speech.recognitionFinished) {
      $0.speech.status = .idle
      $0.speech.outcome = .finished
    }
    await store.receive(\.speech.delegate.ended) {
      $0.isListening = false
      $0.isReleasing = true
    }
    await store.send(.interrupt)
    gate.open()
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    #expect(keystrokes.value == ["finish"])
  }

  /// A day of dictation keeps only the recent utterances: the oldest typed ones are dropped
  /// beyond ``Dictation/State/keptEntries``, and "scratch that" still takes back the last.
  @Test func onlyTheRecentUtterancesAreKept() async {
    var state = Dictation.State(speech: SpeechRecognition.State())
    state.keptEntries = 2
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(state, sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    var heard: [String] = []
    for index in 0..<5 {
      heard.append("Word \(index).")
      let text = index == 0 ? "Word 0." : " Word \(index)."
      session.continuation.yield(result(heard))
      await store.receive(\.speech.speech.success) { [heard] in
        $0.speech.result = result(heard)
      }
      await store.receive(\.speech.delegate.heard) { [heard] in
        $0.takenUtterances = heard.count
        $0.entries.append(Dictation.Entry(id: index, heard: "Word \(index).", text: text))
        if $0.entries.count > 2 { $0.entries.removeFirst() }
        $0.typingEntry = index
      }
      await store.receive(\.typed) {
        $0.typingEntry = nil
        $0.entries[$0.entries.count - 1].status = .typed
      }
    }
    #expect(store.state.entries.map(\.id) == [3, 4])
    // "scratch that" erases the last utterance, which is still there.
    heard.append("scratch that")
    session.continuation.yield(result(heard))
    await store.receive(\.speech.speech.success) { [heard] in
      $0.speech.result = result(heard)
    }
    await store.receive(\.speech.delegate.heard) { [heard] in
      $0.takenUtterances = heard.count
      $0.entries[1].status = .scratched
      $0.entries.append(
        Dictation.Entry(
          id: 5, heard: "scratch that", text: "", command: .scratchThat, erase: 8))
      $0.entries.removeFirst()
      $0.typingEntry = 5
    }
    await store.receive(\.typed) {
      $0.typingEntry = nil
      $0.entries[1].status = .typed
    }
    #expect(keystrokes.value.last == "⌫8")
    await stop(store, session, keystrokes)
  }

  /// A speech client that keeps only the latest utterances (`keptUtterances`, as dictation asks
  /// of the live one): each utterance is still typed once, and the last is still revised.
  @Test func aTranscriptThatForgetsOldUtterancesIsTypedOnceAndItsLastStillRevised() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    var builder = TranscriptionBuilder(keepingLast: 1)
    func utterance(_ text: String) -> [TranscriptionSegment] {
      text.split(separator: " ").map {
        TranscriptionSegment(substring: String($0), timestamp: 0, duration: 0.3, confidence: 0.9)
      }
    }
    func yield(_ update: @escaping (inout Dictation.State) -> Void) async {
      let heard = SpeechRecognitionResult(bestTranscription: builder.transcription, isFinal: false)
      session.continuation.yield(heard)
      await store.receive(\.speech.speech.success) { $0.speech.result = heard }
      await store.receive(\.speech.delegate.heard) { update(&$0) }
    }
    let sentences = ["Good morning.", "Turn on the lights.", "He might even have been made."]
    for (index, sentence) in sentences.enumerated() {
      builder.appendUtterance(utterance(sentence))
      await yield {
        $0.takenUtterances = index + 1
        $0.entries.append(
          Dictation.Entry(id: index, heard: sentence, text: index == 0 ? sentence : " " + sentence))
        $0.typingEntry = index
      }
      await typed(store, index)
    }
    // The client forgot the first two; utterance numbers go on from the start.
    #expect(store.state.speech.result?.bestTranscription.finishedUtterances.indices == 2..<3)
    let whole = "He might even have been made amiable himself."
    builder.replaceLastUtterance(utterance(whole))
    await yield {
      $0.entries[2].text = " He might even have been made"
      $0.entries.append(
        Dictation.Entry(id: 3, heard: whole, text: " amiable himself.", erase: 1, revises: 2))
      $0.typingEntry = 3
    }
    await typed(store, 3)
    builder.appendUtterance(utterance("Yes."))
    await yield {
      $0.takenUtterances = 4
      $0.entries.append(Dictation.Entry(id: 4, heard: "Yes.", text: " Yes."))
      $0.typingEntry = 4
    }
    await typed(store, 4)
    #expect(
      DictateScreen.apply(keystrokes.value)
        == "Good morning. Turn on the lights. He might even have been made amiable himself. Yes.")
    await stop(store, session, keystrokes)
  }

  /// An utterance still waiting to be typed is never dropped, however many are kept.
  @Test func utterancesWaitingToBeTypedAreNotDropped() async {
    var state = Dictation.State(speech: SpeechRecognition.State())
    state.keptEntries = 1
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let gate = Gate()
    let store = store(
      state, sessions: [session], keystrokes: keystrokes, type: { _ in await gate.wait() })
    await listen(store, .start)
    // Three utterances at once while the first is being typed: all wait.
    let heard = ["One.", "Two.", "Three."]
    session.continuation.yield(result(heard))
    await store.receive(\.speech.speech.success) {
      $0.speech.result = result(heard)
    }
    await store.receive(\.speech.delegate.heard) {
      $0.takenUtterances = 3
      $0.entries = [
        Dictation.Entry(id: 0, heard: "One.", text: "One."),
        Dictation.Entry(id: 1, heard: "Two.", text: " Two."),
        Dictation.Entry(id: 2, heard: "Three.", text: " Three."),
      ]
      $0.typingEntry = 0
    }
    for id in 0..<3 {
      gate.open()
      await store.receive(\.typed) {
        $0.entries[id].status = .typed
        $0.typingEntry = id < 2 ? id + 1 : nil
      }
    }
    #expect(keystrokes.value == ["One.", " Two.", " Three."])
    await stop(store, session, keystrokes)
  }

  @Test func aSpeechSessionThatEndsByItselfEndsDictation() async {
    let session = SpeechSession()
    let keystrokes = Keystrokes([])
    let store = store(sessions: [session], keystrokes: keystrokes)
    await listen(store, .start)
    // The microphone fails: dictation ends, and the failure is kept for the host.
    session.continuation.finish(throwing: SpeechClient.Failure.audioDeviceFailed("gone"))
    await store.receive(\.speech.speech.failure) {
      $0.speech.isRecording = false
      $0.speech.status = .idle
      $0.speech.failure = .audioDeviceFailed("gone")
      $0.speech.outcome = .failed(.audioDeviceFailed("gone"))
      $0.speech.alert = .audioDeviceProblem
    }
    await store.receive(\.speech.delegate.ended) {
      $0.isListening = false
      $0.isStopping = true
      $0.isReleasing = true
    }
    await store.receive(\.keyboardFinished) { $0.isFinished = true }
    #expect(keystrokes.value == ["finish"])
  }
}
