import Dependencies
import NIOCore
import SpeechClient
import Synchronization

/// Where a session's audio goes on its way to the decoder: the one place a session reducer's
/// effects hand audio to, so the reducer itself holds values only.
///
/// A session's reducer makes the audio its recognition reads as a value of its state — a
/// ``PushedAudio`` named for its place in the session (`"audio 3"`), equal to any other so
/// named — and an effect hands it to the inbox with ``start``, under a number in the count of
/// the session's audio messages. Each audio message is then pushed by an effect, numbered from
/// 1, and the end of the audio is an effect too. Effects run as tasks and may start in any
/// order, so the inbox takes the numbers as the order: message `n` is handed on after every
/// message before it (and after the audio it belongs to has started), and the end after the
/// message it follows.
///
/// A session that recognizes one run or utterance after another on one connection (Realtime,
/// Wyoming) starts each one's audio under a number of its own in the same count: the messages
/// after that number go to that audio, and the audio before it ends after the last of its
/// messages. A session with one audio (vosk) starts it under 0.
///
/// The host makes one live inbox per session (``live()``); tests override only the endpoints
/// their story uses.
///
/// ```swift
/// // In the reducer: a value for the request, and effects for the rest.
/// let audio = PushedAudio(sampleRate: 16_000, identifier: "audio 1")
/// state.recognition = SpeechRecognition.State(request: .init(source: .pushed(audio)))
/// return .merge(
///   .run { _ in audioInbox.start(audio, 1) },
///   .run { _ in audioInbox.push(2, bytes) })
/// ```
@DependencyClient
struct AudioInbox: Sendable {
  /// Hands the messages numbered after `number` to `audio` (no bytes are pushed under
  /// `number` itself); the audio started before it ends after message `number - 1`.
  var start: @Sendable (_ audio: PushedAudio, _ number: Int) -> Void
  /// Hands on message `number`'s bytes (16-bit little-endian PCM) after every message before it.
  var push: @Sendable (_ number: Int, _ bytes: ByteBuffer) -> Void
  /// Ends the audio once every message up to `number` has been handed on and it has started;
  /// returns when it has ended, so a stop that follows cannot overtake the last messages. With
  /// several audios, the one that message `number` belongs to (or that starts under it) ends.
  var finish: @Sendable (_ afterMessage: Int) async -> Void
}

extension AudioInbox: TestDependencyKey {
  /// Every endpoint fails the test when called without an override.
  static let testValue = AudioInbox()
}

extension DependencyValues {
  /// The audio inbox of the session this store runs.
  var audioInbox: AudioInbox {
    get { self[AudioInbox.self] }
    set { self[AudioInbox.self] = newValue }
  }
}

extension AudioInbox {
  /// A live inbox, and for the host's own figures (how much the decoder has taken): the latest
  /// audio started, and the seconds the decoder has taken from all the audios so far.
  static func live() -> (
    inbox: AudioInbox, audio: @Sendable () -> PushedAudio?,
    consumedSeconds: @Sendable () -> Double
  ) {
    let state = Mutex(LiveState())
    return (
      AudioInbox(
        start: { audio, number in
          state.withLock { $0.start(audio, at: number) }
        },
        push: { number, bytes in
          state.withLock { $0.push(number, bytes) }
        },
        finish: { number in
          await state.withLock { $0.finish(afterMessage: number) }.wait()
        }),
      { state.withLock { $0.parts.last?.audio } },
      { state.withLock { $0.consumedSeconds } }
    )
  }

  /// The audios, the messages that arrived ahead of their turn, and the ends asked for.
  private struct LiveState {
    /// One audio: the messages after `start` up to `last`.
    struct Part {
      /// The number it starts under.
      var start: Int
      var audio: PushedAudio
      /// The message after which it ends, once asked (``finish(afterMessage:)``); it also ends
      /// where the next audio starts.
      var last: Int?
      /// Raised once it has ended.
      let ended = Latch()
    }

    var parts: [Part] = []
    /// The number of the next message to hand on.
    var next = 1
    var early: [Int: ByteBuffer] = [:]
    /// Ends asked for (``finish(afterMessage:)``) whose message has not been handed on yet,
    /// with the flag each waiter waits for.
    var finishes: [(afterMessage: Int, done: Latch)] = []
    /// Ends asked for whose audio is known: raise `done` once `ended` is raised.
    var endWaiters: [(ended: Latch, done: Latch)] = []
    /// The seconds the decoder took from the audios let go.
    var consumedBefore = 0.0
    /// The number the first audio let go started under: every audio from there up to the
    /// first of ``parts`` has ended and was let go.
    var startOfFirstLetGo: Int?

    /// The seconds the decoder has taken from all the audios.
    var consumedSeconds: Double {
      parts.reduce(consumedBefore) { $0 + $1.audio.consumedDuration }
    }

    /// Adds an audio in the order of the numbers: starts may run in any order too.
    mutating func start(_ audio: PushedAudio, at number: Int) {
      let index = parts.firstIndex { $0.start > number } ?? parts.endIndex
      parts.insert(Part(start: number, audio: audio), at: index)
      handOn()
    }

    mutating func push(_ number: Int, _ bytes: ByteBuffer) {
      guard number >= next else { return }
      early[number] = bytes
      handOn()
    }

    /// Asks for the end of the audio that message `number` belongs to (or starts under);
    /// returns what is raised once it has ended.
    ///
    /// Which audio that is is known once every message up to `number` has been handed on and
    /// the audio has started: an audio's start is an effect too, and may run after the finish.
    mutating func finish(afterMessage number: Int) -> Latch {
      let done = Latch()
      finishes.append((number, done))
      handOn()
      return done
    }

    /// Hands on every message whose turn has come, ending each audio as soon as its last
    /// message is in: a message after its audio's end changes nothing.
    private mutating func handOn() {
      while true {
        settleEnds()
        if parts.contains(where: { $0.start == next }) {
          next += 1
        } else if let part = parts.last(where: { $0.start < next }),
          let bytes = early.removeValue(forKey: next)
        {
          if !part.ended.isRaised {
            part.audio.push(littleEndian: bytes.readableBytesView)
          }
          next += 1
        } else {
          break
        }
      }
      // Ended audios before the latest are not needed any more.
      while parts.count > 1, parts[0].ended.isRaised {
        let part = parts.removeFirst()
        consumedBefore += part.audio.consumedDuration
        if startOfFirstLetGo == nil { startOfFirstLetGo = part.start }
      }
    }

    /// Places the ends asked for whose messages are all handed on, and ends the audios whose
    /// last message is.
    private mutating func settleEnds() {
      var waiting: [(afterMessage: Int, done: Latch)] = []
      for finish in finishes {
        guard finish.afterMessage < next else {
          waiting.append(finish)
          continue
        }
        guard let index = parts.lastIndex(where: { $0.start <= finish.afterMessage }) else {
          if let letGo = startOfFirstLetGo, letGo <= finish.afterMessage {
            // Its audio ended and was let go (audios are let go in order, so one asked for
            // late, after later audios were let go too, is among them).
            finish.done.raise()
          } else {
            // Its audio has not started yet: an audio started under 0 does not hold back the
            // messages after it, so the end may come first.
            waiting.append(finish)
          }
          continue
        }
        parts[index].last = min(parts[index].last ?? finish.afterMessage, finish.afterMessage)
        endWaiters.append((parts[index].ended, finish.done))
      }
      finishes = waiting
      for (index, part) in parts.enumerated() where !part.ended.isRaised {
        // An audio also ends where the next one starts.
        let following = parts.index(after: index)
        let beforeNext = following < parts.endIndex ? parts[following].start - 1 : nil
        guard let last = [part.last, beforeNext].compactMap(\.self).min(), next > last else {
          continue
        }
        part.audio.finish()
        part.ended.raise()
      }
      endWaiters.removeAll { ended, done in
        guard ended.isRaised else { return false }
        done.raise()
        return true
      }
    }
  }
}
