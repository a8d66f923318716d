import Foundation

/// The finished utterances of one recognition task, shared by every result the task delivers.
///
/// A recognizer appends utterances as they finish; each ``Transcription`` holds this storage and
/// the number of utterances it saw, so a result costs the same however long the transcript is,
/// and later appends never change an earlier result. Appends and reads may happen on different
/// threads (a decoding thread appends while the host reads), so every access takes the lock.
///
/// A builder that keeps only the latest utterances (``TranscriptionBuilder/keptUtterances``)
/// moves them into a new storage now and then; the new one starts at utterance
/// ``firstUtterance``, and its words' ranges count from its first word's text. Results that hold
/// the old storage keep it, unchanged, until they are released.
final class UtteranceStorage: @unchecked Sendable {
  private let lock = NSLock()
  /// The number of the utterance stored first: how many finished before it and are not kept.
  let firstUtterance: Int
  private var segments: [TranscriptionSegment] = []
  /// For each utterance, the index just after its last segment.
  private var ends: [Int] = []
  /// The length of the finished text (words joined by single spaces) in UTF-16 code units.
  private var utf16Count = 0

  /// What one snapshot sees: a prefix of the storage.
  struct Prefix: Equatable, Sendable {
    var utterances = 0
    var segments = 0
    var utf16Count = 0
  }

  init(firstUtterance: Int = 0) {
    self.firstUtterance = firstUtterance
  }

  /// A new storage holding `prefix` of this one (for a writer whose copy diverged).
  func copy(_ prefix: Prefix) -> UtteranceStorage {
    copy(prefix, droppingFirst: 0).0
  }

  /// A new storage holding `prefix` of this one without its first `dropped` utterances, and
  /// the prefix that is all of it: its words' ranges count from the first kept word's text.
  func copy(_ prefix: Prefix, droppingFirst dropped: Int) -> (UtteranceStorage, Prefix) {
    let dropped = min(max(0, dropped), prefix.utterances)
    let copy = UtteranceStorage(firstUtterance: firstUtterance + dropped)
    let kept = lock.withLock {
      let firstSegment = dropped == 0 ? 0 : ends[dropped - 1]
      // The text of the kept words starts at the first one's; a dropped word's separator goes.
      let shift =
        firstSegment < prefix.segments ? segments[firstSegment].substringRange.location : 0
      copy.segments = segments[firstSegment..<prefix.segments].map {
        var word = $0
        word.substringRange.location -= shift
        return word
      }
      copy.ends = ends[dropped..<prefix.utterances].map { $0 - firstSegment }
      copy.utf16Count = firstSegment < prefix.segments ? prefix.utf16Count - shift : 0
      return Prefix(
        utterances: copy.ends.count, segments: copy.segments.count, utf16Count: copy.utf16Count)
    }
    return (copy, kept)
  }

  /// `prefix` without its last utterance.
  func dropping(lastOf prefix: Prefix) -> Prefix {
    lock.withLock {
      guard prefix.utterances > 0 else { return prefix }
      let utterances = prefix.utterances - 1
      let segmentCount = utterances == 0 ? 0 : ends[utterances - 1]
      // Each word's range ends where its text ends in the finished text.
      let utf16Count =
        segmentCount == 0
        ? 0
        : segments[segmentCount - 1].substringRange.location
          + segments[segmentCount - 1].substringRange.length
      return Prefix(utterances: utterances, segments: segmentCount, utf16Count: utf16Count)
    }
  }

  /// Appends an utterance after `prefix`, giving each word its range in the finished text and
  /// marking the last as ending the utterance. Returns the new prefix, or `nil` when the storage
  /// has grown past `prefix` (another writer shares it) and nothing was appended.
  func append(_ words: [TranscriptionSegment], after prefix: Prefix) -> Prefix? {
    lock.withLock {
      guard segments.count == prefix.segments, ends.count == prefix.utterances else { return nil }
      for var word in words {
        if utf16Count > 0 { utf16Count += 1 }
        let length = word.substring.utf16.count
        word.substringRange = .init(location: utf16Count, length: length)
        word.endsUtterance = false
        utf16Count += length
        segments.append(word)
      }
      if !words.isEmpty { segments[segments.count - 1].endsUtterance = true }
      ends.append(segments.count)
      return Prefix(utterances: ends.count, segments: segments.count, utf16Count: utf16Count)
    }
  }

  /// The segment at `index`.
  func segment(at index: Int) -> TranscriptionSegment {
    lock.withLock { segments[index] }
  }

  /// The words of utterance `index`.
  func utterance(at index: Int) -> ArraySlice<TranscriptionSegment> {
    lock.withLock {
      let start = index == 0 ? 0 : ends[index - 1]
      return segments[start..<ends[index]]
    }
  }

  /// The segments in `range`, copied out.
  func segments(_ range: Range<Int>) -> [TranscriptionSegment] {
    lock.withLock { Array(segments[range]) }
  }

  /// The finished text of `prefix`: its words joined by single spaces.
  func text(of prefix: Prefix) -> String {
    lock.withLock {
      var text = ""
      text.reserveCapacity(prefix.utf16Count)
      for index in 0..<prefix.segments {
        if index > 0 { text += " " }
        text += segments[index].substring
      }
      return text
    }
  }
}
