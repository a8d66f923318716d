import Foundation

extension MoonshineModel {
  /// One transcription's decoder state: the values it owns, released by ``release()``.
  struct Decoding {
    let model: MoonshineModel
    let api: ONNXRuntimeAPI
    let hidden: OpaquePointer
    /// The current past keys/values, by decoder input index (nil for other inputs).
    var pasts: [OpaquePointer?]
    /// The last step's presents (by output index) until ``keep(length:)`` takes them.
    var presents: [Int: OpaquePointer] = [:]
    /// Values (and the buffers under them) to release at the end.
    var owned: [OpaquePointer] = []
    var buffers: [UnsafeMutableRawPointer] = []
    /// `use_cache_branch` false and true, over `flags`.
    var useCache: [OpaquePointer] = []
    let flags: UnsafeMutablePointer<Bool>
    var steps = 0

    init(model: MoonshineModel, hidden: OpaquePointer) {
      self.model = model
      self.api = model.runtime.api
      self.hidden = hidden
      self.pasts = Array(repeating: nil, count: model.layout.inputs.count)
      self.flags = .allocate(capacity: 2)
      flags.initialize(repeating: false, count: 2)
      flags[1] = true
    }

    mutating func release() {
      for case let value? in pasts where !owned.contains(value) { api.releaseValue(value) }
      for value in owned + useCache + presents.values { api.releaseValue(value) }
      for buffer in buffers { buffer.deallocate() }
      flags.deallocate()
      pasts = []
      presents = [:]
      owned = []
      useCache = []
      buffers = []
    }

    func tensor(
      _ data: UnsafeMutableRawPointer, bytes: Int, shape: [Int64], type: ONNXRuntimeAPI.ElementType
    ) throws(ONNXRuntimeAPI.Failure) -> OpaquePointer {
      try api.make("CreateTensorWithDataAsOrtValue") {
        api.createTensorWithDataAsOrtValue(
          model.runtime.cpuMemory.pointer, data, bytes, shape, shape.count, type.rawValue, $0)
      }
    }

    /// Runs one decoder step over `ids` and returns the logits (released by the caller); the
    /// presents wait in ``presents`` for ``keep(length:)``.
    mutating func step(
      _ ids: [Int32], first: Bool
    ) throws(ONNXRuntimeAPI.Failure) -> OpaquePointer {
      steps += 1
      let layout = model.layout
      let idBuffer = UnsafeMutablePointer<Int64>.allocate(capacity: ids.count)
      defer { idBuffer.deallocate() }
      for (index, id) in ids.enumerated() { idBuffer[index] = Int64(id) }
      let idTensor = try tensor(
        idBuffer, bytes: ids.count * 8, shape: [1, Int64(ids.count)], type: .int64)
      defer { api.releaseValue(idTensor) }
      var inputs: [OpaquePointer?] = []
      for (index, input) in layout.inputs.enumerated() {
        switch input {
        case .tokens: inputs.append(idTensor)
        case .encoderOutput: inputs.append(hidden)
        case .useCache: inputs.append(useCache[first ? 0 : 1])
        case .past: inputs.append(pasts[index])
        }
      }
      // The first step makes the encoder's keys/values too; later steps keep those.
      var wanted = [layout.logits]
      for input in layout.inputs {
        if case let .past(present, isEncoder) = input, first || !isEncoder {
          wanted.append(present)
        }
      }
      let values = try model.decoder.run(inputs, outputs: wanted)
      for (output, value) in zip(wanted.dropFirst(), values.dropFirst()) {
        presents[output] = value
      }
      return values[0]
    }

    /// Replaces the past keys/values with the last step's presents; the decoder's own are cut to
    /// the first `length` positions when `length` is given (dropping a rejected prefix's tail).
    mutating func keep(length: Int64?) throws(ONNXRuntimeAPI.Failure) {
      for (index, input) in model.layout.inputs.enumerated() {
        guard case let .past(present, isEncoder) = input, let value = presents[present] else {
          continue
        }
        var kept = value
        if !isEncoder, let length {
          kept = try truncated(value, to: length)
          api.releaseValue(value)
        }
        presents[present] = nil
        if let old = pasts[index], !owned.contains(old) { api.releaseValue(old) }
        pasts[index] = kept
        if isEncoder { owned.append(kept) }
      }
    }

    /// A copy of a [1, heads, n, size] tensor with only the first `length` positions.
    mutating func truncated(
      _ value: OpaquePointer, to length: Int64
    ) throws(ONNXRuntimeAPI.Failure) -> OpaquePointer {
      let shape = try api.shape(of: value)
      let heads = Int(shape[1])
      let positions = Int(shape[2])
      let size = Int(shape[3])
      let source = try api.data(of: value).assumingMemoryBound(to: Float.self)
      let count = heads * Int(length) * size
      let buffer = UnsafeMutablePointer<Float>.allocate(capacity: max(count, 1))
      buffers.append(UnsafeMutableRawPointer(buffer))
      for head in 0..<heads {
        (buffer + head * Int(length) * size).update(
          from: source + head * positions * size, count: Int(length) * size)
      }
      return try tensor(
        buffer, bytes: count * 4, shape: [1, shape[1], length, shape[3]], type: .float)
    }

    /// Makes the inputs the first step needs: `use_cache_branch` false and true, and one empty
    /// past for every past input.
    mutating func prepareFirstStep() throws(ONNXRuntimeAPI.Failure) {
      let layout = model.layout
      for index in 0..<2 {
        useCache.append(try tensor(flags + index, bytes: 1, shape: [1], type: .bool))
      }
      let empty = UnsafeMutableRawPointer.allocate(byteCount: 4, alignment: 4)
      buffers.append(empty)
      // One empty value per shape (the decoder's own and the encoder's may differ).
      var emptyPasts: [[Int64]: OpaquePointer] = [:]
      for (index, input) in layout.inputs.enumerated() {
        guard case .past = input, let shape = layout.emptyPastShapes[index] else { continue }
        if emptyPasts[shape] == nil {
          let value = try tensor(empty, bytes: 0, shape: shape, type: .float)
          owned.append(value)
          emptyPasts[shape] = value
        }
        pasts[index] = emptyPasts[shape]
      }
    }

    /// The transcript of the tokens chosen: their words, and what the model expected after the
    /// last word (`expectations[i]`: the distribution token `i` was chosen from; the step after
    /// the last token that is not punctuation is the one that chose the final punctuation, or
    /// the end).
    func transcript(
      tokens: [Int32], probabilities: [Float], expectations: [PauseSignals],
      ending: MoonshineTranscript.Ending, keptPrefix: Int
    ) -> MoonshineTranscript {
      let classes = model.tokenizer.classes
      let lastWord = tokens.lastIndex { classes[Int($0)] == .word }
      let afterLastWord = lastWord.flatMap {
        $0 + 1 < expectations.count ? expectations[$0 + 1] : nil
      }
      let words = model.tokenizer.words(of: tokens).map { word in
        MoonshineTranscript.Word(
          text: word.text,
          confidence: word.tokens.reduce(Float(1)) { $0 * probabilities[$1] },
          tokens: word.tokens)
      }
      return MoonshineTranscript(
        tokens: tokens, probabilities: probabilities,
        tokenBytes: tokens.map { model.tokenizer.bytes(of: $0) },
        text: words.map(\.text).joined(separator: " "), words: words, ending: ending,
        keptPrefixCount: keptPrefix, decoderSteps: steps, afterLastWord: afterLastWord)
    }

    /// Decodes: the prefix in one pass, then greedily one token per step.
    mutating func run(
      prefix: [Int32], limit: Int
    ) throws(ONNXRuntimeAPI.Failure) -> MoonshineTranscript {
      try prepareFirstStep()
      var tokens: [Int32] = []
      var probabilities: [Float] = []
      // What each step's distribution expected, for the signals after the last word.
      var expectations: [PauseSignals] = []
      let classes = model.tokenizer.classes
      var ending = MoonshineTranscript.Ending.tokenLimit
      // The first step: <s> and the prefix.
      let ids = [MoonshineTokenizer.beginningOfText] + prefix
      let logits = try step(ids, first: true)
      defer { api.releaseValue(logits) }
      let (rows, vocabulary) = try logitsShape(logits)
      guard rows == ids.count else {
        throw ONNXRuntimeAPI.Failure(
          code: ONNXRuntimeAPI.errorFail, message: "logits have \(rows) rows for \(ids.count) ids")
      }
      let scores = try api.data(of: logits).assumingMemoryBound(to: Float.self)
      var next = Self.choose(scores, count: vocabulary, classes: classes)
      var row = 0
      // Keep the prefix's tokens while the model predicts them.
      while row + 1 < ids.count, next.token == ids[row + 1], tokens.count < limit {
        tokens.append(next.token)
        probabilities.append(next.probability)
        expectations.append(next.expected)
        row += 1
        next = Self.choose(scores + row * vocabulary, count: vocabulary, classes: classes)
      }
      let keptPrefix = tokens.count
      try keep(length: row + 1 < ids.count ? Int64(row + 1) : nil)

      while tokens.count < limit {
        expectations.append(next.expected)
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
        next = Self.choose(
          try api.data(of: logits).assumingMemoryBound(to: Float.self), count: vocabulary,
          classes: classes)
      }
      return transcript(
        tokens: tokens, probabilities: probabilities, expectations: expectations, ending: ending,
        keptPrefix: keptPrefix)
    }

    func logitsShape(
      _ logits: OpaquePointer
    ) throws(ONNXRuntimeAPI.Failure) -> (rows: Int, vocabulary: Int) {
      let shape = try api.shape(of: logits)
      guard shape.count == 3, shape[2] > 0 else {
        throw ONNXRuntimeAPI.Failure(
          code: ONNXRuntimeAPI.errorFail, message: "logits have the shape \(shape)")
      }
      return (Int(shape[1]), Int(shape[2]))
    }

    /// The most likely token of a row of logits, its probability (softmax), and how the
    /// probability falls on each ``TokenClass`` (ids past `classes` count as words).
    static func choose(
      _ row: UnsafePointer<Float>, count: Int, classes: [TokenClass]
    ) -> (token: Int32, probability: Float, expected: PauseSignals) {
      var best = 0
      var top = row[0]
      for index in 1..<count where row[index] > top {
        best = index
        top = row[index]
      }
      // Sums by class: word, terminal, continuing, other punctuation, end of text.
      var sums: (Float, Float, Float, Float, Float) = (0, 0, 0, 0, 0)
      classes.withUnsafeBufferPointer { classes in
        for index in 0..<count {
          let weight = expf(row[index] - top)
          switch index < classes.count ? classes[index] : .word {
          case .word: sums.0 += weight
          case .terminal: sums.1 += weight
          case .continuing: sums.2 += weight
          case .punctuation: sums.3 += weight
          case .endOfText: sums.4 += weight
          }
        }
      }
      let sum = sums.0 + sums.1 + sums.2 + sums.3 + sums.4
      let expected = PauseSignals(
        terminal: sums.1 / sum, continuing: sums.2 / sum, word: sums.0 / sum)
      return (Int32(best), 1 / sum, expected)
    }
  }
}
