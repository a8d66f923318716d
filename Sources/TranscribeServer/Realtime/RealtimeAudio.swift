import Dependencies
import NIOCore
import SpeechClient
import Synchronization

/// Where a Realtime session's audio goes on its way to the decoder: an ``AudioInbox`` for each
/// run of recognition (a commit or a clear ends a run; the next audio starts another), so the
/// session reducer holds values only.
///
/// Runs are numbered from 1; within a run, messages are numbered from 1 as in an
/// ``AudioInbox``, which puts them back in order.
@DependencyClient
struct RealtimeAudio: Sendable {
  /// Opens run `run`'s inbox for audio at `sampleRate` Hz and returns the source recognition
  /// reads.
  var open: @Sendable (_ run: Int, _ sampleRate: Int) -> SpeechRecognitionRequest.AudioSource = {
    _, _ in .pushed(PushedAudio())
  }
  /// Hands on message `number` of run `run` (16-bit little-endian PCM).
  var push: @Sendable (_ run: Int, _ number: Int, _ bytes: ByteBuffer) -> Void
  /// Ends run `run`'s audio once every message up to `number` has been handed on.
  var finish: @Sendable (_ run: Int, _ afterMessage: Int) async -> Void
}

extension RealtimeAudio: TestDependencyKey {
  /// Every endpoint fails the test when called without an override.
  static let testValue = RealtimeAudio()
}

extension DependencyValues {
  /// The audio of the Realtime session this store runs.
  var realtimeAudio: RealtimeAudio {
    get { self[RealtimeAudio.self] }
    set { self[RealtimeAudio.self] = newValue }
  }
}

extension RealtimeAudio {
  /// Live inboxes, one per run, and the seconds of audio the decoder has taken from them all
  /// (for the host's figures). A run's inbox is let go once a later run opens.
  static func live() -> (audio: RealtimeAudio, consumedSeconds: @Sendable () -> Double) {
    struct Run: Sendable {
      var inbox: AudioInbox
      var audio: @Sendable () -> PushedAudio?
    }
    struct Runs: Sendable {
      var current: [Int: Run] = [:]
      var consumedBefore = 0.0
    }
    let runs = Mutex(Runs())
    @Sendable func run(_ number: Int) -> Run? { runs.withLock { $0.current[number] } }
    return (
      RealtimeAudio(
        open: { number, sampleRate in
          let inbox = runs.withLock { runs -> AudioInbox in
            if let run = runs.current[number] { return run.inbox }
            for (old, run) in runs.current where old < number {
              runs.consumedBefore += run.audio()?.consumedDuration ?? 0
              runs.current[old] = nil
            }
            let (inbox, audio) = AudioInbox.live()
            runs.current[number] = Run(inbox: inbox, audio: audio)
            return inbox
          }
          return inbox.open(sampleRate)
        },
        push: { number, message, bytes in
          run(number)?.inbox.push(message, bytes)
        },
        finish: { number, message in
          await run(number)?.inbox.finish(message)
        }),
      {
        runs.withLock { runs in
          runs.current.values.reduce(runs.consumedBefore) {
            $0 + ($1.audio()?.consumedDuration ?? 0)
          }
        }
      }
    )
  }
}
