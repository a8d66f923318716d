import Foundation

/// How far the decoding of a ``FileRecognitionBatch`` has come, over all its files: what a host
/// shows as one progress line for the whole batch.
///
/// Files are decoded ahead of their results being taken, so this runs ahead of what has been
/// delivered.
///
/// ```swift
/// if let fraction = batch.progress.fractionCompleted {
///   print("\(batch.progress.finishedFiles)/\(batch.progress.fileCount) files, \(Int(fraction * 100))%")
/// }
/// ```
public struct FileBatchProgress: Equatable, Sendable {
  /// The files decoded to their end (or that failed, or were stopped).
  public var finishedFiles: Int
  /// The files in the batch.
  public var fileCount: Int
  /// Seconds of audio decoded so far, over all files.
  public var decodedAudio: TimeInterval
  /// Seconds of audio in all the files, once every file's length is known (a file that cannot
  /// be opened counts as empty); `nil` before.
  public var totalAudio: TimeInterval?

  /// Creates a progress report.
  public init(
    finishedFiles: Int, fileCount: Int, decodedAudio: TimeInterval, totalAudio: TimeInterval?
  ) {
    self.finishedFiles = finishedFiles
    self.fileCount = fileCount
    self.decodedAudio = decodedAudio
    self.totalAudio = totalAudio
  }

  /// The part of all the audio decoded, from 0 to 1: 1 once every file is finished; `nil` while
  /// the total is unknown.
  public var fractionCompleted: Double? {
    if fileCount > 0, finishedFiles >= fileCount { return 1 }
    guard let totalAudio else { return nil }
    guard totalAudio > 0 else { return 0 }
    return min(1, max(0, decodedAudio / totalAudio))
  }
}
