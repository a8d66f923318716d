import Foundation
import Recognition

extension MoonshineModel {
  /// Compiles phrases to favour against the model's vocabulary (see ``MoonshineHotwords``).
  ///
  /// - Parameters:
  ///   - phrases: the phrases; blank ones are left out.
  ///   - boost: what is added to a favoured token's logit (``MoonshineHotwords/defaultBoost``).
  public func hotwords(
    _ phrases: [String], boost: Float = MoonshineHotwords.defaultBoost
  ) -> MoonshineHotwords {
    let vocabulary = hotwordVocabulary.withLock { cached in
      if let cached { return cached }
      let vocabulary = HotwordVocabulary(
        pieces: tokenizer.pieces, first: Int(MoonshineTokenizer.firstVocabularyToken))
      cached = vocabulary
      return vocabulary
    }
    return MoonshineHotwords(phrases: phrases, boost: boost, vocabulary: vocabulary)
  }
}

extension MoonshineTokenizer {
  /// The first token that is text proper: after the special tokens and the 256 raw bytes.
  static let firstVocabularyToken: Int32 = 259
}

extension MoonshineModel.Decoding {
  /// Decodes as ``run(prefix:limit:)`` does, favouring `hotwords`: each choice goes through a
  /// ``HotwordCursor``, and when it takes a choice back, the tokens from there on are dropped,
  /// the decoder's own keys/values cut to match, and the choice made again.
  ///
  /// - Returns: the transcript, and whether it is empty because the text ended at the first
  ///   step though the model found words likelier in all (see ``endsAgainstWords(_:count:)``).
  mutating func run(
    prefix: [Int32], limit: Int, hotwords: MoonshineHotwords
  ) throws(ONNXRuntimeAPI.Failure) -> (transcript: MoonshineTranscript, endedAgainstWords: Bool) {
    try prepareFirstStep()

    var cursor = HotwordCursor(hotwords)
    var tokens: [Int32] = []
    var probabilities: [Float] = []
    // What the model itself expected at each position (without the bonus), for the signals
    // after the last word (see ``PauseSignals``).
    var expectations: [PauseSignals] = []
    let classes = model.tokenizer.classes
    func expected(_ row: UnsafePointer<Float>, _ count: Int) -> PauseSignals {
      MoonshineModel.Decoding.choose(row, count: count, classes: classes).expected
    }
    var ending = MoonshineTranscript.Ending.tokenLimit
    let ids = [MoonshineTokenizer.beginningOfText] + prefix
    let logits = try step(ids, first: true)
    defer { api.releaseValue(logits) }
    let (rows, vocabulary) = try logitsShape(logits)
    guard rows == ids.count else {
      throw ONNXRuntimeAPI.Failure(
        code: ONNXRuntimeAPI.errorFail, message: "logits have \(rows) rows for \(ids.count) ids")
    }
    let scores = try api.data(of: logits).assumingMemoryBound(to: Float.self)
    let firstEndsAgainstWords = Self.endsAgainstWords(scores, count: vocabulary)
    var next = cursor.choose(scores, count: vocabulary, position: 0)
    expectations.append(expected(scores, vocabulary))
    var row = 0
    // Keep the prefix's tokens while the model (with the bonus) predicts them.
    while cursor.takeBack == nil, row + 1 < ids.count, next.token == ids[row + 1],
      tokens.count < limit
    {
      tokens.append(next.token)
      probabilities.append(next.probability)
      row += 1
      next = cursor.choose(scores + row * vocabulary, count: vocabulary, position: tokens.count)
      expectations.append(expected(scores + row * vocabulary, vocabulary))
    }
    var keptPrefix = tokens.count
    try keep(length: row + 1 < ids.count ? Int64(row + 1) : nil)

    while tokens.count < limit {
      if let choice = cursor.goBack() {
        // A phrase was abandoned: make its first changed choice again.
        tokens.removeLast(tokens.count - choice.position)
        probabilities.removeLast(probabilities.count - choice.position)
        keptPrefix = min(keptPrefix, choice.position)
        try cutPasts(to: Int64(choice.position + 1))
        expectations.removeLast(expectations.count - choice.position)
        next = choice.row.withUnsafeBufferPointer { row in
          expectations.append(expected(row.baseAddress!, row.count))
          return cursor.choose(row.baseAddress!, count: row.count, position: choice.position)
        }
        continue
      }
      if next.token == MoonshineTokenizer.endOfText {
        ending = .endOfText
        break
      }
      tokens.append(next.token)
      probabilities.append(next.probability)
      if MoonshineModel.loopStart(in: tokens) < tokens.count {
        ending = .repetition
        break
      }
      guard tokens.count < limit else { break }
      let logits = try step([next.token], first: false)
      defer { api.releaseValue(logits) }
      try keep(length: nil)
      let (_, vocabulary) = try logitsShape(logits)
      let scores = try api.data(of: logits).assumingMemoryBound(to: Float.self)
      next = cursor.choose(scores, count: vocabulary, position: tokens.count)
      expectations.append(expected(scores, vocabulary))
    }
    let result = transcript(
      tokens: tokens, probabilities: probabilities, expectations: expectations, ending: ending,
      keptPrefix: keptPrefix)
    return (result, tokens.isEmpty && ending == .endOfText && firstEndsAgainstWords)
  }

  /// Whether a row of logits makes the end of the text the likeliest token though the model
  /// finds it less likely than all words together (below one half): at the first step, a
  /// text that ends against the model's own odds. Silence and steady noise give the end 0.99
  /// or more; a command espeak-ng says that decoded to nothing gave it 0.28.
  static func endsAgainstWords(_ row: UnsafePointer<Float>, count: Int) -> Bool {
    let end = Int(MoonshineTokenizer.endOfText)
    guard end < count else { return false }
    let top = row[end]
    var sum: Float = 0
    for index in 0..<count {
      if row[index] > top { return false }
      sum += expf(row[index] - top)
    }
    return 1 / sum < 0.5
  }

  /// Cuts the decoder's own past keys/values to their first `length` positions (`<s>` and the
  /// tokens kept).
  private mutating func cutPasts(to length: Int64) throws(ONNXRuntimeAPI.Failure) {
    for (index, input) in model.layout.inputs.enumerated() {
      guard case let .past(_, isEncoder) = input, !isEncoder, let value = pasts[index] else {
        continue
      }
      let kept = try truncated(value, to: length)
      if !owned.contains(value) { api.releaseValue(value) }
      pasts[index] = kept
    }
  }
}
