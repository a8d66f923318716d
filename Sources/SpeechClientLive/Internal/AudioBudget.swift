import Foundation
import Recognition
import SpeechClient

/// What is left of a request's ``SpeechRecognitionRequest/maximumAudioDuration``, in 16 kHz
/// samples: the readers of files, standard input and pushed audio cut what they read to it and
/// read no further once it is spent, so the task ends with the words of exactly that audio.
struct AudioBudget {
  /// Samples still allowed, `nil` without a limit.
  private(set) var remaining: Int?

  init(_ request: SpeechRecognitionRequest) {
    remaining = request.maximumAudioDuration.map { limit in
      let samples = limit.timeInterval * Double(RecognitionAudio.sampleRate)
      return samples.isFinite ? max(0, Int(min(samples.rounded(), Double(Int.max / 2)))) : Int.max
    }
  }

  /// Whether the limit has been reached: nothing more is to be read.
  var isSpent: Bool { remaining == 0 }

  /// Cuts `samples` to what is left of the limit and counts them.
  mutating func take(_ samples: inout [Int16]) {
    guard let left = remaining else { return }
    if samples.count > left { samples.removeSubrange(left...) }
    remaining = left - samples.count
  }

  /// The length an input of `total` seconds has once cut to the limit.
  static func length(
    of total: TimeInterval?, for request: SpeechRecognitionRequest
  ) -> TimeInterval? {
    guard let total, let limit = request.maximumAudioDuration?.timeInterval else { return total }
    return min(total, limit)
  }
}
