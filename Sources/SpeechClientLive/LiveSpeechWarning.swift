/// Something about a task's input the user should know, though recognition goes on.
///
/// ```swift
/// let client = SpeechClient.live(LiveSpeechConfiguration(warning: { print($0.message) }))
/// ```
public enum LiveSpeechWarning: Equatable, Sendable {
  /// The input was recorded at this many Hz, below the 16 kHz the model was trained on: it is
  /// converted, but the frequencies it never had are missing and accuracy suffers.
  case lowSampleRate(Int)

  /// One line that says what is wrong and what to do.
  public var message: String {
    switch self {
    case let .lowSampleRate(rate):
      "the audio is sampled at \(rate) Hz; accuracy suffers below 16 kHz (record at 16 kHz or "
        + "more if you can)"
    }
  }
}
