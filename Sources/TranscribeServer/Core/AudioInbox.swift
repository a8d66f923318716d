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
  /// Hands on message `number`'s bytes (16-bit little-endian PCM) after every message before it.
  var push: @Sendable (_ number: Int, _ bytes: ByteBuffer) -> Void
  /// Ends the audio once every message up to `number` has been handed on (0: at once); returns
  /// when it has ended, so a stop that follows cannot overtake the last messages.
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
  /// A live inbox over ``PushedAudio``, and the audio itself once opened, for the host's own
  /// figures (how much the decoder has taken).
  static func live() -> (inbox: AudioInbox, audio: @Sendable () -> PushedAudio?) {
    let state = Mutex(LiveState())
    let ended = Latch()
    return (
      AudioInbox(
        open: { sampleRate in
          .pushed(state.withLock { $0.open(sampleRate: sampleRate) })
        },
        push: { number, bytes in
          state.withLock { $0.push(number, bytes) }
        },
        finish: { number in
          if state.withLock({ $0.finish(afterMessage: number) }) { ended.raise() }
          await ended.wait()
        }),
      { state.withLock { $0.audio } }
    )
  }

  /// The audio and the messages that arrived ahead of their turn.
  private struct LiveState {
    var audio: PushedAudio?
    /// The number of the next message to hand on.
    var next = 1
    var early: [Int: ByteBuffer] = [:]
    /// The message after which the audio ends, once known.
    var last: Int?

    mutating func open(sampleRate: Int) -> PushedAudio {
      if let audio { return audio }
      let audio = PushedAudio(sampleRate: sampleRate)
      self.audio = audio
      return audio
    }

    mutating func push(_ number: Int, _ bytes: ByteBuffer) {
      guard number >= next else { return }
      early[number] = bytes
      handOn()
    }

    /// Returns whether the audio has ended (or there is none to end).
    mutating func finish(afterMessage number: Int) -> Bool {
      last = min(last ?? number, number)
      return handOn()
    }

    /// Hands on every message whose turn has come, then the end if it is due; returns whether
    /// the audio has ended.
    @discardableResult
    private mutating func handOn() -> Bool {
      guard let audio else { return last != nil }
      while let bytes = early.removeValue(forKey: next) {
        audio.push(littleEndian: bytes.readableBytesView)
        next += 1
      }
      guard let last, next > last else { return false }
      early = [:]
      audio.finish()
      return true
    }
  }
}
