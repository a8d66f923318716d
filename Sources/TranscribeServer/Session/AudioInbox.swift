import Dependencies
import NIOCore
import SpeechClient
import Synchronization

/// Where a session's audio goes on its way to the decoder: the one place a session reducer's
/// effects hand audio to, so the reducer itself holds values only.
///
/// A session opens the inbox once, when its first audio arrives, and puts the source it gets
/// into its recognition request; then each audio message is pushed by an effect, numbered from
/// 1, and the end of the audio is an effect too. Effects run as tasks and may start in any
/// order, so the inbox takes the numbers as the order: message `n` is handed on after every
/// message before it, and the end after the message it follows.
///
/// A session that recognizes one utterance after another on one connection (Wyoming) starts
/// each one's audio with ``start`` instead, under a number of its own in the same count: the
/// messages after that number go to that audio, and the audio before it ends after the last of
/// its messages.
///
/// The host makes one live inbox per session (``live()``); tests override only the endpoints
/// their story uses.
///
/// ```swift
/// let source = audioInbox.open(16_000)          // in the reducer: a value for the request
/// return .run { _ in audioInbox.push(1, bytes) } // the audio, by an effect
/// ```
@DependencyClient
struct AudioInbox: Sendable {
  /// Opens the inbox for audio at `sampleRate` Hz and returns the source recognition reads.
  /// Opening again returns the same source.
  var open: @Sendable (_ sampleRate: Int) -> SpeechRecognitionRequest.AudioSource = { _ in
    .pushed(PushedAudio())
  }
  /// Starts another audio at `sampleRate` Hz under `number` (no bytes are pushed under it): the
  /// messages numbered after it are its audio, and the audio before it ends after message
  /// `number - 1`. Returns the source recognition of that audio reads.
  var start: @Sendable (_ sampleRate: Int, _ number: Int) -> SpeechRecognitionRequest.AudioSource =
    {
      _, _ in .pushed(PushedAudio())
    }
  /// Hands on message `number`'s bytes (16-bit little-endian PCM) after every message before it.
  var push: @Sendable (_ number: Int, _ bytes: ByteBuffer) -> Void
  /// Ends the audio once every message up to `number` has been handed on (0: at once); returns
  /// when it has ended, so a stop that follows cannot overtake the last messages. With
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
  /// A live inbox over ``PushedAudio``, and for the host's own figures (how much the decoder
  /// has taken): the audio itself once opened (the latest one started), and the seconds the
  /// decoder has taken from all the audios so far.
  static func live() -> (
    inbox: AudioInbox, audio: @Sendable () -> PushedAudio?,
    consumedSeconds: @Sendable () -> Double
  ) {
    let state = Mutex(LiveState())
    return (
      AudioInbox(
        open: { sampleRate in
          .pushed(state.withLock { $0.open(sampleRate: sampleRate) })
        },
        start: { sampleRate, number in
          .pushed(state.withLock { $0.start(sampleRate: sampleRate, at: number) })
        },
        push: { number, bytes in
          state.withLock { $0.push(number, bytes) }
        },
        finish: { number in
          await state.withLock { $0.finish(afterMessage: number) }?.wait()
        }),
      { state.withLock { $0.parts.last?.audio } },
      { state.withLock { $0.consumedSeconds } }
    )
  }

  /// The audios and the messages that arrived ahead of their turn.
  private struct LiveState {
    /// One audio: the messages after `start` up to `last`.
    struct Part {
      /// The number it starts under (0 for the audio ``open`` opens).
      var start: Int
      var audio: PushedAudio
      /// The message after which it ends, once known.
      var last: Int?
      /// Raised once it has ended.
      let ended = Latch()
    }

    var parts: [Part] = []
    /// The number of the next message to hand on.
    var next = 1
    var early: [Int: ByteBuffer] = [:]
    /// The seconds the decoder took from the audios let go.
    var consumedBefore = 0.0

    /// The seconds the decoder has taken from all the audios.
    var consumedSeconds: Double {
      parts.reduce(consumedBefore) { $0 + $1.audio.consumedDuration }
    }

    mutating func open(sampleRate: Int) -> PushedAudio {
      if let first = parts.first { return first.audio }
      return start(sampleRate: sampleRate, at: 0)
    }

    mutating func start(sampleRate: Int, at number: Int) -> PushedAudio {
      if let current = parts.indices.last {
        parts[current].last = min(parts[current].last ?? number - 1, number - 1)
      }
      let audio = PushedAudio(sampleRate: sampleRate)
      parts.append(Part(start: number, audio: audio))
      handOn()
      return audio
    }

    mutating func push(_ number: Int, _ bytes: ByteBuffer) {
      guard number >= next else { return }
      early[number] = bytes
      handOn()
    }

    /// Marks the end of the audio message `number` belongs to; returns what to wait for, `nil`
    /// when there is no audio to end.
    mutating func finish(afterMessage number: Int) -> Latch? {
      guard let index = parts.lastIndex(where: { $0.start <= number }) else { return nil }
      parts[index].last = min(parts[index].last ?? number, number)
      handOn()
      return parts[index].ended
    }

    /// Hands on every message whose turn has come, then the ends that are due.
    private mutating func handOn() {
      while true {
        if parts.contains(where: { $0.start == next }) {
          next += 1
        } else if let bytes = early.removeValue(forKey: next) {
          // A message after its audio's end changes nothing.
          if let part = parts.last(where: { $0.start < next }), !part.ended.isRaised {
            part.audio.push(littleEndian: bytes.readableBytesView)
          }
          next += 1
        } else {
          break
        }
      }
      for part in parts where !part.ended.isRaised {
        guard let last = part.last, next > last else { continue }
        part.audio.finish()
        part.ended.raise()
      }
      // Ended audios before the latest are not needed any more.
      while parts.count > 1, parts[0].ended.isRaised {
        consumedBefore += parts.removeFirst().audio.consumedDuration
      }
    }
  }
}
