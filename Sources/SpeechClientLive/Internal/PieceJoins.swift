import ConcurrencyExtras
import Foundation
import Recognition
import SpeechClient

/// Mends the sentences a file's pieces were cut through: with sentence endpointing a file is cut
/// where a live stream would end its utterance whatever was said (a long pause), and also, when
/// speech goes on for longer than an utterance may last, at its quietest point, which can fall
/// inside a sentence (a thinking pause). There the two pieces' words are decoded apart, and the
/// sentence would come out in two halves, the second misheard for want of the first.
///
/// So the pieces pass through here in order on their way to the file's results: at a cut made
/// for length, unless the decoder is sure the sentence before it ended there
/// (`SentenceEnd.isCertain`) and the words after it start a sentence, the utterance before the
/// cut and the one after are transcribed again together, and what that one decode says replaces
/// them: one sentence when the model, hearing both sides, writes no sentence end at the join,
/// else the sentences it does write. When the piece after the cut held only that one utterance
/// and was itself cut for length, the joined sentence is carried on into it, with both pieces'
/// audio, so a sentence that runs over several cuts is decoded whole at the last of them. Other
/// cuts pass as they are. The decode runs on the worker that brought the second of the two
/// pieces, with its recognizer; the pieces after wait in order, so results still come out in
/// the file's order.
final class PieceJoins: Sendable {
  private let recognition: FileRecognition
  /// The longest audio one join may decode, in seconds: an utterance's longest.
  private let longest: TimeInterval
  /// Whether the recognizer is sure its last decode's last sentence ended with its audio.
  private let endsSentence: @Sendable (any SpeechRecognizer) -> Bool
  private let state = LockIsolated(State())

  private struct Piece {
    var result: Result<[RecognitionEvent], SpeechClient.Failure>
    var segment: UtteranceSegmenter.Segment
    /// Whether the decoder is sure the piece's last sentence ends with it.
    var endsSentence: Bool
  }

  private struct State {
    /// Decoded pieces not handed on yet, by index.
    var pieces: [Int: Piece] = [:]
    /// The pieces cut for length: their end may cut a sentence.
    var cutForLength: Set<Int> = []
    /// The next piece to hand on.
    var next = 0
    /// How many pieces the file has, once reading ended.
    var count: Int?
    /// Whether a worker is handing pieces on (one at a time does, in order).
    var isHandingOn = false
  }

  init(
    recognition: FileRecognition, longest: TimeInterval,
    endsSentence: @escaping @Sendable (any SpeechRecognizer) -> Bool = { _ in false }
  ) {
    self.recognition = recognition
    self.longest = longest
    self.endsSentence = endsSentence
  }

  /// Notes that piece `index` was cut for length: it is held until the next one is decoded.
  func cutForLength(_ index: Int) {
    state.withValue { _ = $0.cutForLength.insert(index) }
  }

  /// Says how many pieces the file has: the last is handed on without waiting for another. A
  /// join left to make is decoded with `recognizer` (the caller's, on this thread).
  func readingEnded(pieces count: Int, using recognizer: (any SpeechRecognizer)?) {
    state.withValue { $0.count = count }
    handOn(using: recognizer)
  }

  /// Hands in piece `index`'s result and audio; a join is decoded with `recognizer` (the
  /// caller's, on this thread, before this returns), or not at all without one.
  func decoded(
    _ index: Int, _ result: Result<[RecognitionEvent], SpeechClient.Failure>,
    piece segment: UtteranceSegmenter.Segment, endsSentence: Bool,
    using recognizer: (any SpeechRecognizer)?
  ) {
    state.withValue {
      $0.pieces[index] = Piece(result: result, segment: segment, endsSentence: endsSentence)
    }
    handOn(using: recognizer)
  }

  /// Hands on every piece that is next in order and whose join (if any) can be made now.
  private func handOn(using recognizer: (any SpeechRecognizer)?) {
    let started = state.withValue { state in
      guard !state.isHandingOn else { return false }
      state.isHandingOn = true
      return true
    }
    guard started else { return }
    while let (index, piece, following) = nextReady() {
      var piece = piece
      if let following, let recognizer, !recognition.isStopped {
        let carries = state.withValue { $0.cutForLength.contains(index + 1) }
        if let after = join(&piece, with: following, carrying: carries, using: recognizer) {
          state.withValue { $0.pieces[index + 1] = after }
        }
      }
      recognition.segmentDecoded(index, piece.result)
    }
  }

  /// The next piece to hand on and, when it was cut for length, the one after it (which must be
  /// decoded first); `nil` when it cannot go yet (and then no worker hands on).
  private func nextReady() -> (Int, Piece, Piece?)? {
    state.withValue { state in
      let index = state.next
      guard let piece = state.pieces[index] else {
        state.isHandingOn = false
        return nil
      }
      var following: Piece?
      if state.cutForLength.contains(index) {
        if let after = state.pieces[index + 1] {
          following = after
        } else if state.count.map({ index + 1 < $0 }) ?? true {
          // The piece after is still being decoded (or read): its worker hands on.
          state.isHandingOn = false
          return nil
        }
      }
      state.pieces[index] = nil
      state.next += 1
      return (index, piece, following)
    }
  }

  /// Transcribes the last utterance of `piece` and the first of `following` together, puts
  /// what that decode heard in place of the first, and returns the following piece without its
  /// first utterance; `nil` (both left as they are) when either has no utterance there, either
  /// failed, the two together would be longer than an utterance may be, or the decode fails.
  ///
  /// When `carrying` (the following piece was cut for length too) and that utterance was the
  /// following piece's only one, the joined words go into the following piece instead, which
  /// then holds both pieces' audio: its own cut is judged with them.
  private func join(
    _ piece: inout Piece, with following: Piece, carrying: Bool,
    using recognizer: any SpeechRecognizer
  ) -> Piece? {
    guard case .success(var before) = piece.result,
      case .success(var after) = following.result,
      let last = before.lastIndex(where: \.isUtterance),
      let first = after.firstIndex(where: \.isUtterance),
      let start = before[last].words.first?.timestamp,
      let end = after[first].words.last.map({ $0.timestamp + $0.duration })
    else { return nil }
    // A sentence the decoder is sure ended, followed by one that starts as a sentence does,
    // needs no second look.
    if piece.endsSentence,
      after[first].words.first?.text.first(where: \.isLetter)?.isUppercase == true
    {
      return nil
    }
    let rate = Double(RecognitionAudio.sampleRate)
    let padding = 0.3
    let left = piece.segment
    let right = following.segment
    let from = max(left.start, Int(((start - padding) * rate).rounded(.down)))
    let to = min(
      right.start + right.samples.count, Int(((end + padding) * rate).rounded(.up)))
    guard from < left.start + left.samples.count, to > right.start,
      Double(to - from) <= longest * rate
    else { return nil }
    let samples =
      Array(left.samples[(from - left.start)...]) + Array(right.samples[..<(to - right.start)])
    guard let joined = try? recognizer.decodeSegment(samples, startingAt: Double(from) / rate)
    else { return nil }
    after.remove(at: first)
    var next = following
    if carrying, !after.contains(where: \.isUtterance) {
      // The sentence may go on past the following piece's cut: it is judged there, whole.
      before.removeSubrange(last...)
      next.result = .success(joined + after)
      next.segment = UtteranceSegmenter.Segment(
        start: from, samples: Array(left.samples[(from - left.start)...]) + right.samples,
        isCutForLength: right.isCutForLength)
      next.endsSentence = endsSentence(recognizer)
    } else {
      before.replaceSubrange(last..., with: joined)
      next.result = .success(after)
    }
    piece.result = .success(before)
    return next
  }
}

extension RecognitionEvent {
  fileprivate var isUtterance: Bool {
    if case .utterance = self { return true }
    return false
  }
}
