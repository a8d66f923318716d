import Architecture
import Foundation
import KeyboardClient
import SpeechClient
import SpeechRecognitionFeature

/// Dictation: what ``SpeechRecognition`` hears is typed into the focused window.
///
/// The reducer scopes the speech feature (which owns the microphone session) and types each
/// finished utterance through the keyboard client, spaced and capitalised as a person types
/// (``DictationText``), one piece of typing at a time and in order. Spoken commands ("new line",
/// "new paragraph", "scratch that") are obeyed unless ``State/recognizesCommands`` is off.
/// When the recognizer revises the last utterance (a sentence it took for finished went on after
/// a thinking pause, and heard together the two read as one: ``resumptionWindow``), dictation
/// erases what it typed back to where the new text differs and types the rest.
///
/// Control comes from the host (a hotkey through the control socket, a signal):
/// - ``Action/pause`` finishes the speech session, so its last words are typed, the microphone
///   is released and nothing is decoded; ``Action/resume`` starts a new one; ``Action/toggle``
///   does whichever applies;
/// - ``Action/stop`` types the last words and ends: ``State/isFinished`` turns true once
///   everything heard has been typed and the keyboard client has given back what it borrowed.
///
/// A keyboard client that fails loses nothing: the utterance is kept in ``State/entries``
/// marked ``Entry/Status/notTyped`` for the host to write out instead, the first failure is
/// kept in ``State/typingFailure`` for one warning, and dictation goes on listening (and tries
/// to type the next utterance: the window may be back).
///
/// ```swift
/// let store = Store(initialState: Dictation.State(speech: .init(request: request))) {
///   Dictation()
/// }
/// store.send(.start)
/// ```
@Reducer
public struct Dictation: Sendable {
  @ObservableState
  public struct State: Equatable, Sendable {
    /// The speech session: what is listened to, and what was heard.
    public var speech: SpeechRecognition.State
    /// Whether dictation is paused: nothing is decoded or typed.
    public var isPaused = false
    /// Whether spoken commands are obeyed.
    public var recognizesCommands = true
    /// The names that keep their capital at the start of an utterance that continues a
    /// sentence: the request's hotwords written with a capital, and those the model writes with
    /// one inside a sentence (``DictationText/Names``).
    public var names: DictationText.Names
    /// The recent utterances heard, with what became of them, oldest first: those still to be
    /// typed, and the last ``keptEntries`` of those settled (typed, written out or scratched).
    public var entries: [Entry] = []
    /// How many settled utterances ``entries`` keeps: enough for "scratch that" to take back
    /// recent ones and for the host to report each; older ones are dropped, so a day of
    /// dictation holds no more than a minute of it.
    public var keptEntries = 50
    /// The first failure of the keyboard client, for one warning.
    public var typingFailure: KeyboardClient.Failure?
    /// Whether a stop was asked for (or the speech session ended by itself).
    public var isStopping = false
    /// Everything heard was typed (or written out) and dictation is over.
    public var isFinished = false
    /// Whether a speech session runs (from its start until its outcome).
    var isListening = false
    /// Whether a resume came while the paused session was finishing.
    var resumesWhenIdle = false
    /// Whether the keyboard client is giving back what it borrowed, at the end.
    var isReleasing = false
    /// Finished utterances of the current speech session already taken.
    var takenUtterances = 0
    /// The entry being typed.
    var typingEntry: Int?

    /// The indices of the entries that type the last utterance taken: the last entry, and the
    /// ones it revises (``Entry/revises``).
    var lastUtterance: ClosedRange<Int>? {
      entries.indices.last.map(utterance(endingAt:))
    }

    /// The indices of the entries that type the utterance entry `last` ends: it, and the ones
    /// it revises (``Entry/revises``).
    func utterance(endingAt last: Int) -> ClosedRange<Int> {
      let first = entries[last].revises.flatMap { id in entries.firstIndex { $0.id == id } }
      return (first ?? last)...last
    }

    /// What the text on screen ends with: the entries typed or waiting, scratched ones left out.
    var context: DictationText.Context { context(before: entries.count) }

    /// What the text on screen ends with before entry `end` (an index in ``entries``).
    func context(before end: Int) -> DictationText.Context {
      var tail = ""
      for entry in entries[..<end].reversed()
      where entry.status == .typed || entry.status == .waiting {
        tail = entry.text + tail
        if tail.count >= DictationText.Context.kept { break }
      }
      return DictationText.Context(tail: tail)
    }

    /// Creates the state for a speech session.
    public init(
      speech: SpeechRecognition.State, startsPaused: Bool = false, recognizesCommands: Bool = true
    ) {
      self.speech = speech
      self.names = DictationText.Names(hotwords: speech.request.hotwords.phrases)
      self.isPaused = startsPaused
      self.recognizesCommands = recognizesCommands
    }
  }

  /// One utterance heard, and what became of it.
  public struct Entry: Equatable, Sendable, Identifiable {
    /// The position of the utterance, from 0.
    public let id: Int
    /// The utterance as recognized.
    public var heard: String
    /// What it was typed as: spacing, capitals and line breaks included, commands applied
    /// ("" for "scratch that").
    public var text: String
    /// The command it held, if it was one.
    public var command: DictationText.Command?
    /// How many characters are erased before ``text`` is typed: a fragment's full stop, or
    /// the utterance "scratch that" takes back.
    public var erase: Int
    /// Where it is.
    public var status: Status
    /// For an entry that revises an utterance typed before it (the recognizer heard that one
    /// again with what followed, as one sentence): the id of the first entry that typed it.
    /// Its ``heard`` is the whole revised utterance.
    public var revises: Int?

    /// Where an utterance is.
    public enum Status: Equatable, Sendable {
      /// Waiting to be typed.
      case waiting
      /// Typed into the window.
      case typed
      /// The keyboard client failed: the host writes ``Entry/text`` out instead.
      case notTyped
      /// Typed, then erased by "scratch that".
      case scratched
    }

    /// Creates an entry.
    public init(
      id: Int, heard: String, text: String, command: DictationText.Command? = nil,
      erase: Int = 0, status: Status = .waiting, revises: Int? = nil
    ) {
      self.id = id
      self.heard = heard
      self.text = text
      self.command = command
      self.erase = erase
      self.status = status
      self.revises = revises
    }
  }

  public enum Action: Equatable, Sendable {
    /// The speech session's actions.
    case speech(SpeechRecognition.Action)
    /// Starts dictation: listens, unless it starts paused.
    case start
    /// Pauses: the last words are typed, then nothing is decoded or typed.
    case pause
    /// Resumes listening after a pause.
    case resume
    /// Pauses when listening, resumes when paused.
    case toggle
    /// Types the last words and ends.
    case stop
    /// A piece of typing is done; the keyboard client's failure, if it failed.
    case typed(entry: Int, failure: KeyboardClient.Failure?)
    /// Ends at once, without the last words (a second Ctrl-C, output that cannot be written):
    /// the typing under way is abandoned (its tool killed), and the keyboard client gives back
    /// what it borrowed (the keys xdotool bound) before dictation is over.
    case interrupt
    /// The keyboard client gave back what it borrowed: dictation is over.
    case keyboardFinished
  }

  enum CancelID {
    case typing
  }

  @Dependency(\.keyboardClient) var keyboard

  /// How long after an utterance that ended a sentence speech may resume and still be heard as
  /// the same sentence (``SpeechClient/SpeechRecognitionRequest/resumptionWindow``), in seconds
  /// from the end of its speech: when it then reads as one sentence with what came before, the
  /// recognizer revises the last utterance and dictation erases back to where the two differ
  /// and types the rest. Measured in `Benchmarks/dictation/README.md`.
  public static let resumptionWindow: TimeInterval = 2

  /// How many of the latest finished utterances dictation asks the speech client to keep
  /// (``SpeechClient/SpeechRecognitionRequest/keptUtterances``): it takes each utterance as it
  /// finishes and looks again only at the last (a revision), so a session never paused holds a
  /// few dozen utterances, not a day's. Measured in `Benchmarks/dictation/README.md`.
  public static let keptUtterances = 16

  /// Creates the reducer.
  public init() {}

  public var body: some ReducerOf<Self> {
    Scope(state: \.speech, action: \.speech) {
      SpeechRecognition()
    }
    Reduce { state, action in
      switch action {
      case .start:
        guard !state.isPaused else { return .none }
        return listen(&state)

      case .pause:
        return pause(&state)

      case .resume:
        return resume(&state)

      case .toggle:
        return state.isPaused ? resume(&state) : pause(&state)

      case .stop:
        guard !state.isStopping else { return .none }
        state.isStopping = true
        if state.isListening { return .send(.speech(.finish)) }
        return finishIfDone(&state)

      case .speech(.delegate(.heard(let result))):
        // Utterance numbers count from the session's start, though the speech client keeps
        // only the latest (``keptUtterances``).
        let utterances = result.bestTranscription.finishedUtterances
        if let last = state.lastUtterance, state.takenUtterances > utterances.startIndex,
          utterances.endIndex >= state.takenUtterances
        {
          let words = utterances[state.takenUtterances - 1].map(\.substring)
            .joined(separator: " ")
          if words != state.entries[last.upperBound].heard {
            // The recognizer heard the last utterance again with what followed it.
            revise(last, as: words, into: &state)
            if utterances.endIndex == state.takenUtterances { return typeNext(&state) }
          }
        }
        guard utterances.endIndex > state.takenUtterances else { return .none }
        for index in utterances.indices(from: state.takenUtterances) {
          let words = utterances[index].map(\.substring).joined(separator: " ")
          take(words, into: &state)
        }
        state.takenUtterances = utterances.endIndex
        trimEntries(&state)
        return typeNext(&state)

      case .speech(.delegate(.ended)):
        // The speech session ended: by a pause, a stop, its --duration, its input, or a
        // failure (which the speech state keeps for the host).
        guard state.isListening, state.speech.status == .idle else { return .none }
        state.isListening = false
        if state.speech.failure == nil {
          if state.isPaused { return .none }
          if state.resumesWhenIdle, !state.isStopping { return listen(&state) }
        }
        state.isStopping = true
        return finishIfDone(&state)

      case .speech:
        return .none

      case .typed(let id, let failure):
        guard state.typingEntry == id else { return .none }
        state.typingEntry = nil
        if let index = state.entries.firstIndex(where: { $0.id == id }) {
          if let failure {
            state.typingFailure = state.typingFailure ?? failure
            if state.entries[index].status == .waiting { state.entries[index].status = .notTyped }
          } else if state.entries[index].status == .waiting {
            state.entries[index].status = .typed
          }
        }
        return .merge(typeNext(&state), finishIfDone(&state))

      case .interrupt:
        state.isStopping = true
        state.typingEntry = nil
        guard !state.isReleasing else { return .none }
        state.isReleasing = true
        return .concatenate(
          .cancel(id: CancelID.typing),
          .run { send in
            await keyboard.finish()
            await send(.keyboardFinished)
          })

      case .keyboardFinished:
        state.isFinished = true
        return .none
      }
    }
  }

  /// Pauses: the speech session finishes (its last words are still typed) and the microphone
  /// is released.
  private func pause(_ state: inout State) -> Effect<Action> {
    guard !state.isPaused, !state.isStopping else { return .none }
    state.isPaused = true
    state.resumesWhenIdle = false
    return state.isListening ? .send(.speech(.finish)) : .none
  }

  /// Resumes: a new speech session starts, once the paused one is over.
  private func resume(_ state: inout State) -> Effect<Action> {
    guard state.isPaused, !state.isStopping else { return .none }
    state.isPaused = false
    guard !state.isListening else {
      // The paused session is still finishing: a new one starts once it is over.
      state.resumesWhenIdle = true
      return .none
    }
    return listen(&state)
  }

  /// Starts a new speech session.
  private func listen(_ state: inout State) -> Effect<Action> {
    state.isListening = true
    state.resumesWhenIdle = false
    state.takenUtterances = 0
    state.speech.result = nil
    return .send(.speech(.start))
  }

  /// Turns an utterance into an entry waiting to be typed.
  private func take(_ words: String, into state: inout State) {
    let pieces = DictationText.pieces(of: words, commands: state.recognizesCommands)
    guard !pieces.isEmpty else { return }
    let id = (state.entries.last?.id ?? -1) + 1
    if pieces == [.command(.scratchThat)] {
      var scratch = Entry(id: id, heard: words, text: "", command: .scratchThat)
      // The last utterance still on screen, or still to be typed (written out ones cannot be
      // taken back).
      if let last = state.entries.lastIndex(where: {
        ($0.status == .typed || $0.status == .waiting) && $0.command != .scratchThat
      }) {
        // With the entries it revised, if it revised an utterance.
        for index in state.utterance(endingAt: last)
        where state.entries[index].status == .typed || state.entries[index].status == .waiting {
          let entry = state.entries[index]
          let isOnScreen = entry.status == .typed || state.typingEntry == entry.id
          // What it typed, less what it erased of the utterance before it (a fragment's full
          // stop, which stays erased); a revision not typed yet has not erased its part yet.
          scratch.erase += isOnScreen ? entry.text.count : entry.revises == nil ? 0 : entry.erase
          state.entries[index].status = .scratched
        }
      }
      if scratch.erase == 0 { scratch.status = .typed }
      state.entries.append(scratch)
      return
    }
    state.names.learn(from: words)
    var entry = typing(pieces, heard: words, id: id, after: state.context, names: state.names)
    if entry.erase > 0,
      let previous = state.entries.lastIndex(where: {
        $0.status == .typed || $0.status == .waiting
      })
    {
      // The fragment's full stop is taken back: the entry before no longer holds it, and one
      // not typed yet is typed without it.
      state.entries[previous].text.removeLast(
        min(entry.erase, state.entries[previous].text.count))
      if state.entries[previous].status == .waiting, state.typingEntry != state.entries[previous].id
      {
        entry.erase = 0
      }
    }
    state.entries.append(entry)
  }

  /// The entry that types an utterance's pieces after `context`.
  private func typing(
    _ pieces: [DictationText.Piece], heard: String, id: Int, after context: DictationText.Context,
    names: DictationText.Names
  ) -> Entry {
    var entry = Entry(id: id, heard: heard, text: "")
    var context = context
    for piece in pieces {
      switch piece {
      case .words(let words):
        let keystrokes = DictationText.keystrokes(for: words, after: context, names: names)
        if entry.text.isEmpty {
          entry.erase = keystrokes.erase
        } else {
          entry.text.removeLast(min(keystrokes.erase, entry.text.count))
        }
        context = context.erasing(keystrokes.erase).after(keystrokes.text)
        entry.text += keystrokes.text
      case .command(let command):
        if pieces.count == 1 { entry.command = command }
        context = context.after(command.keystrokes)
        entry.text += command.keystrokes
      }
    }
    return entry
  }

  /// Revises the last utterance taken (the entries `last`), which the recognizer heard again
  /// together with what followed it (`words` holds both): an entry erases what was typed back to
  /// where the new text differs, and types the rest ("made. Damien" → "made amiable"). When the
  /// utterance is not on screen as typed (scratched, written out, a command), only the words
  /// after it are taken, as a new utterance.
  private func revise(_ last: ClosedRange<Int>, as words: String, into state: inout State) {
    let isOnScreen = state.entries[last].allSatisfy {
      ($0.status == .typed || $0.status == .waiting) && $0.command == nil
    }
    guard isOnScreen else {
      let heardCount = state.entries[last.upperBound].heard.split(whereSeparator: \.isWhitespace)
        .count
      let after = words.split(whereSeparator: \.isWhitespace).dropFirst(heardCount)
      take(after.joined(separator: " "), into: &state)
      state.entries[state.entries.count - 1].heard = words
      return
    }
    let pieces = DictationText.pieces(of: words, commands: state.recognizesCommands)
    state.names.learn(from: words)
    let id = (state.entries.last?.id ?? -1) + 1
    let revised = typing(
      pieces, heard: words, id: id, after: state.context(before: last.lowerBound),
      names: state.names)
    let old = state.entries[last].map(\.text).joined()
    let common = zip(old, revised.text).prefix { $0 == $1 }.count
    guard common < old.count || common < revised.text.count else {
      state.entries[last.upperBound].heard = words
      return
    }
    // What stays on screen of the entries typed before: the beginning the two share.
    var kept = common
    for index in last {
      state.entries[index].text = String(state.entries[index].text.prefix(kept))
      kept -= state.entries[index].text.count
    }
    state.entries.append(
      Entry(
        id: id, heard: words, text: String(revised.text.dropFirst(common)),
        erase: old.count - common, revises: state.entries[last.lowerBound].id))
  }

  /// Drops the oldest settled entries beyond ``State/keptEntries``; an entry still waiting or
  /// being typed is never dropped (nor any after it).
  private func trimEntries(_ state: inout State) {
    let excess = state.entries.count - max(1, state.keptEntries)
    guard excess > 0 else { return }
    let settled = state.entries.prefix(excess).prefix {
      $0.status != .waiting && $0.id != state.typingEntry
    }
    state.entries.removeFirst(settled.count)
  }

  /// Starts typing the next waiting entry when none is being typed.
  private func typeNext(_ state: inout State) -> Effect<Action> {
    guard state.typingEntry == nil,
      let entry = state.entries.first(where: { $0.status == .waiting })
    else { return .none }
    state.typingEntry = entry.id
    return .run { send in
      do {
        if entry.erase > 0 { try await keyboard.erase(entry.erase) }
        if !entry.text.isEmpty { try await keyboard.type(entry.text) }
        await send(.typed(entry: entry.id, failure: nil))
      } catch {
        await send(.typed(entry: entry.id, failure: KeyboardClient.Failure(error)))
      }
    }
    .cancellable(id: CancelID.typing)
  }

  /// Ends dictation once a stop was asked for, the speech session is over and everything heard
  /// has been typed.
  private func finishIfDone(_ state: inout State) -> Effect<Action> {
    guard state.isStopping, !state.isReleasing, !state.isListening, state.typingEntry == nil,
      !state.entries.contains(where: { $0.status == .waiting })
    else { return .none }
    state.isReleasing = true
    return .run { send in
      await keyboard.finish()
      await send(.keyboardFinished)
    }
  }
}
