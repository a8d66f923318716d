import AudioInput
import Foundation

extension LiveSpeechConfiguration {
  /// The length of the audio in the file at `url`, in seconds, as its header declares it
  /// (libsndfile reads only the header), or `nil` when the file is not audio libsndfile reads
  /// or does not say.
  ///
  /// A server checks uploads with it before decoding: a few MB of FLAC can declare ten hours
  /// of silence.
  public static func declaredAudioDuration(of url: URL) -> TimeInterval? {
    (try? AudioFile(url: url))?.totalDuration
  }
}
