import CMalloc
import Foundation
import Recognition
import Synchronization

/// Moonshine base-en loaded into ONNX Runtime: the encoder and merged decoder sessions and the
/// tokenizer, shared by every recognizer and thread of the process.
///
/// Load it with ``shared(_:)``: there is one model per process for each model directory (and
/// runtime library and thread count), so memory does not grow with the number of recognizers.
/// ``transcribe(_:prefix:hotwords:)`` may be called from any number of threads at once: each
/// call keeps its own decoding state, and ONNX Runtime sessions accept concurrent runs.
///
/// Decoding is greedy, with the decoder's key/value cache: the first step feeds `<s>` (and the
/// prefix, if any) with empty past tensors, every later step the last token alone with the
/// previous step's decoder keys/values and the first step's encoder keys/values. It stops at
/// `</s>`, at ``maximumTokens(forSamples:)``, or when the text ends in a loop.
///
/// ```swift
/// let model = try MoonshineModel.shared(MoonshineConfiguration())
/// let samples: [Float] = pcm16.map { Float($0) / 32768 }
/// let transcript = try samples.withUnsafeBufferPointer { try model.transcribe($0) }
/// print(transcript.text)  // "Go forward ten meters."
/// ```
public final class MoonshineModel: Sendable {
  /// The directory the model was loaded from.
  public let modelDirectory: URL
  /// The encoder file loaded (`.onnx`, or `.ort`).
  public let encoderFile: URL
  /// The decoder file loaded.
  public let decoderFile: URL
  /// The ONNX Runtime library the model runs in.
  public let runtime: MoonshineRuntime.Library

  let tokenizer: MoonshineTokenizer
  let encoder: ONNXRuntimeSession
  let decoder: ONNXRuntimeSession
  let layout: DecoderLayout
  /// The vocabulary indexed for hotwords, built the first time a list is compiled.
  let hotwordVocabulary = Mutex<HotwordVocabulary?>(nil)

  /// Samples per second of the audio the model takes.
  public static let sampleRate = RecognitionAudio.sampleRate
  /// The most tokens a second of audio may produce; fast speech makes about 4–5.
  public static let maximumTokensPerSecond = 6.5
  /// Tokens allowed on top of ``maximumTokensPerSecond`` (for very short audio).
  public static let extraTokens = 4
  /// Audio shorter than this (in samples) is too short for the encoder and transcribes as
  /// nothing: 0.1 s.
  public static let minimumSamples = sampleRate / 10

  // MARK: Loading

  /// The model for `configuration`, loaded on first use and then shared by the whole process.
  ///
  /// - Throws: what ``MoonshineConfiguration/validate()`` throws;
  ///   `RecognitionFailure.runtimeUnavailable` when ONNX Runtime is missing or too old;
  ///   `.modelCorrupt` naming the file when ONNX Runtime cannot load a model file or the graph is
  ///   not Moonshine's.
  public static func shared(
    _ configuration: MoonshineConfiguration
  ) throws(RecognitionFailure) -> MoonshineModel {
    let key = CacheKey(configuration)
    return try cache.withLock { (models) throws(RecognitionFailure) -> MoonshineModel in
      if let model = models[key] { return model }
      let model = try MoonshineModel(configuration: configuration)
      models[key] = model
      return model
    }
  }

  /// What makes two configurations load different models.
  private struct CacheKey: Hashable {
    var directory: String
    var runtime: String?
    var threads: Int

    init(_ configuration: MoonshineConfiguration) {
      directory = configuration.modelDirectory.standardizedFileURL.path
      runtime = configuration.runtimeLibrary?.standardizedFileURL.path
      threads = configuration.threadsPerRun
    }
  }

  /// The models loaded so far. Loading holds the lock, so two threads asking for the same model
  /// at once load it once.
  private static let cache = Mutex<[CacheKey: MoonshineModel]>([:])

  /// Loads the model (not shared: use ``shared(_:)``).
  init(configuration: MoonshineConfiguration) throws(RecognitionFailure) {
    try configuration.validate()
    let files = try MoonshineModelFiles(directory: configuration.modelDirectory)
    let runtime = try MoonshineRuntime.load(configuration.runtimeLibrary)
    let api = runtime.api
    tokenizer = try MoonshineTokenizer(contentsOf: files.tokenizer)

    func load(_ file: URL) throws(RecognitionFailure) -> ONNXRuntimeSession {
      let options = try Self.sessionOptions(
        api, threads: configuration.threadsPerRun, usesArena: file.pathExtension == "ort")
      defer { api.releaseSessionOptions(options) }
      do {
        return try ONNXRuntimeSession(library: runtime, file: file, options: options)
      } catch {
        throw .modelCorrupt("ONNX Runtime could not load \(file.path): \(error.message)")
      }
    }
    encoder = try load(files.encoder)
    decoder = try load(files.decoder)
    // Building the sessions freed much of what it allocated (the weights as read, before ONNX
    // Runtime packed them), and glibc keeps freed memory for reuse: given back now, a file's
    // decoding peaks about 28 MiB lower (`Benchmarks/decode/README.md`, 30 Nov).
    malloc_trim(0)
    guard encoder.inputNames.count == 1, !encoder.outputNames.isEmpty else {
      throw .modelCorrupt(
        "\(files.encoder.path) is not Moonshine's encoder: it has inputs "
          + "\(encoder.inputNames) and outputs \(encoder.outputNames)")
    }
    do {
      layout = try DecoderLayout(decoder)
    } catch {
      throw .modelCorrupt("\(files.decoder.path) is not Moonshine's merged decoder: \(error)")
    }
    modelDirectory = configuration.modelDirectory
    encoderFile = files.encoder
    decoderFile = files.decoder
    self.runtime = runtime
  }

  /// Session options: `threads` intra-op threads, one inter-op thread, sequential execution,
  /// every graph optimization, no spinning worker threads (they only burn a shared machine's
  /// cores).
  ///
  /// The CPU memory arena is kept only for `.ort` files: they dequantize every weight again at
  /// every step, and the arena makes those big buffers cheap (measured 77 instead of 200 ms per
  /// step, for 180 MB more). A plain `.onnx` model as `scripts/convert-moonshine.py` writes it
  /// (8-bit weights read by `MatMulNBits`, or with `--float-weights` weights folded at load)
  /// makes no such churn; without the arena, memory a long utterance needed is not held for good.
  ///
  /// Memory patterns are off: ONNX Runtime keeps one per distinct set of input shapes, for the
  /// life of the session, and every utterance's length (and every decoder step's) is a new
  /// shape. A server fed thousands of pieces of odd lengths (corrupt or truncated uploads) grew
  /// by hundreds of MB that way; the allocation plan they save is a small part of a step.
  static func sessionOptions(
    _ api: ONNXRuntimeAPI, threads: Int, usesArena: Bool
  ) throws(RecognitionFailure) -> OpaquePointer {
    let options: OpaquePointer
    do {
      options = try api.make("CreateSessionOptions") { api.createSessionOptions($0) }
    } catch {
      throw .decoderFailure("ONNX Runtime could not create session options: \(error.message)")
    }
    do {
      try api.check(api.setIntraOpNumThreads(options, Int32(max(1, threads))))
      try api.check(api.setInterOpNumThreads(options, 1))
      try api.check(api.setSessionExecutionMode(options, ONNXRuntimeAPI.sequential))
      try api.check(
        api.setSessionGraphOptimizationLevel(options, ONNXRuntimeAPI.optimizationAll))
      try api.check(api.addSessionConfigEntry(options, "session.intra_op.allow_spinning", "0"))
      if !usesArena { try api.check(api.disableCpuMemArena(options)) }
      try api.check(api.disableMemPattern(options))
    } catch {
      api.releaseSessionOptions(options)
      throw .decoderFailure("ONNX Runtime rejected the session options: \(error.message)")
    }
    return options
  }

  /// Where each of the merged decoder's inputs comes from, read from the session's names.
  struct DecoderLayout {
    enum Input {
      case tokens
      case encoderOutput
      case useCache
      /// A `past_key_values.*` input fed from output `present` (same name after the prefix).
      case past(present: Int, isEncoder: Bool)
    }
    var inputs: [Input]
    var logits: Int
    /// Output indices of the decoder's own (self-attention) keys and values.
    var decoderPresents: [Int]
    /// The shape of each past input's empty value for the first step, by input index: one
    /// batch, the declared heads and size, no positions ([1, heads, 0, head size], or [1, heads,
    /// head size, 0] for encoder keys a converter stored transposed).
    var emptyPastShapes: [Int: [Int64]]

    /// The empty past for a past input declared with `dimensions` (-1 where symbolic): one
    /// batch, the declared heads and size, no positions; `nil` when the input is not [batch,
    /// heads, length, size], or for an encoder key, [batch, heads, size, length] (as format 4
    /// of `scripts/convert-moonshine.py` stores them: transposed, as the attention reads them).
    static func emptyPastShape(declared dimensions: [Int64], isEncoder: Bool) -> [Int64]? {
      let lengthAxis = isEncoder ? dimensions.lastIndex(of: -1) : 2
      guard dimensions.count == 4, dimensions[1] > 0, let lengthAxis, lengthAxis >= 2,
        dimensions[2...].filter({ $0 > 0 }).count == 1, dimensions[lengthAxis] == -1
      else { return nil }
      var empty = dimensions
      empty[0] = 1
      empty[lengthAxis] = 0
      return empty
    }

    init(_ session: ONNXRuntimeSession) throws(ProblemDescription) {
      let outputs = session.outputNames
      guard let logits = outputs.firstIndex(of: "logits") else {
        throw ProblemDescription("it has no output `logits` (outputs: \(outputs))")
      }
      self.logits = logits
      inputs = []
      decoderPresents = []
      emptyPastShapes = [:]
      for (index, name) in session.inputNames.enumerated() {
        switch name {
        case "input_ids": inputs.append(.tokens)
        case "encoder_hidden_states": inputs.append(.encoderOutput)
        case "use_cache_branch": inputs.append(.useCache)
        case _ where name.hasPrefix("past_key_values."):
          let present = "present." + name.dropFirst("past_key_values.".count)
          guard let output = outputs.firstIndex(of: present) else {
            throw ProblemDescription("input `\(name)` has no output `\(present)`")
          }
          let isEncoder = name.contains(".encoder.")
          inputs.append(.past(present: output, isEncoder: isEncoder))
          if !isEncoder { decoderPresents.append(output) }
          let dimensions = (try? session.inputDimensions(index)) ?? []
          guard let empty = Self.emptyPastShape(declared: dimensions, isEncoder: isEncoder) else {
            throw ProblemDescription(
              "its past key/value input `\(name)` is not [batch, heads, length, size]")
          }
          emptyPastShapes[index] = empty
        default:
          throw ProblemDescription("it has an unexpected input `\(name)`")
        }
      }
      for required in ["input_ids", "encoder_hidden_states", "use_cache_branch"]
      where !session.inputNames.contains(required) {
        throw ProblemDescription("it has no input `\(required)`")
      }
      guard !decoderPresents.isEmpty else {
        throw ProblemDescription("it has no past key/value inputs of its own")
      }
    }
  }

  // MARK: Transcribing

  /// The most tokens a transcription of `count` samples may have, so that audio cut off
  /// mid-word cannot make the decoder loop for long ("Mr. John, Mr. John, …").
  public static func maximumTokens(forSamples count: Int) -> Int {
    Int(Double(count) / Double(sampleRate) * maximumTokensPerSecond) + extraTokens
  }

  /// The silence put before audio that starts in sound: 0.05 s (0.1 s turned a hotword test's
  /// "Set a timer" into "Saoirse timer").
  static let leadInSamples = 800

  /// Whether the first 20 ms of `samples` are louder than -40 dBFS (RMS): audio cut in the middle
  /// of a sound rather than before it.
  static func startsInSound(_ samples: UnsafeBufferPointer<Float>) -> Bool {
    let count = min(320, samples.count)
    guard count > 0 else { return false }
    var energy: Float = 0
    for sample in samples[..<count] { energy += sample * sample }
    return energy / Float(count) > 1e-4
  }

  /// Transcribes 16 kHz mono samples in [-1, 1] greedily.
  ///
  /// - Parameters:
  ///   - samples: the audio; shorter than ``minimumSamples`` gives an empty transcript.
  ///   - prefix: token ids believed to start the text (the previous partial result's
  ///     ``MoonshineTranscript/reusableTokens`` for a longer piece of the same audio). They go
  ///     through the decoder in one pass; the tokens the model still predicts are kept, the rest
  ///     dropped, and decoding continues from there, so the result is what decoding from scratch
  ///     would give, sooner.
  /// - Throws: `RecognitionFailure.decoderFailure` with ONNX Runtime's message when a run fails.
  ///   - hotwords: phrases to favour (see ``MoonshineHotwords``); `nil` or an empty list decodes
  ///     plainly.
  public func transcribe(
    _ samples: UnsafeBufferPointer<Float>, prefix: [Int32] = [],
    hotwords: MoonshineHotwords? = nil
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    try transcribe(samples, prefix: prefix, hotwords: hotwords, listensAgain: true)
  }

  /// Transcribes as ``transcribe(_:prefix:hotwords:)`` does; `listensAgain` allows the second
  /// look that phrases get when the text ended at once against the model's own odds.
  func transcribe(
    _ samples: UnsafeBufferPointer<Float>, prefix: [Int32], hotwords: MoonshineHotwords?,
    listensAgain: Bool
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    guard samples.count >= Self.minimumSamples, let base = samples.baseAddress else {
      return MoonshineTranscript()
    }
    if Self.startsInSound(samples) {
      // Audio that starts in the middle of a sound (a stream or file whose first sample is
      // speech, as a synthesizer writes it) gets a moment of silence first: without it the
      // model may end the text at once ("Lock the Nuki lock on the front door." as espeak-ng
      // writes it decodes to nothing; with 20 ms of silence before it, to its words).
      return try transcribe(
        samples, after: Self.leadInSamples, prefix: prefix, hotwords: hotwords,
        listensAgain: listensAgain)
    }
    let clock = ContinuousClock()
    let start = clock.now
    let hidden: OpaquePointer
    do {
      hidden = try encode(UnsafeMutableRawPointer(mutating: base), count: samples.count)
    } catch {
      throw .decoderFailure("ONNX Runtime failed to run Moonshine's encoder: \(error.message)")
    }
    defer { runtime.api.releaseValue(hidden) }
    let encoded = clock.now
    var transcript: MoonshineTranscript
    var endedAgainstWords = false
    do {
      var decoding = Decoding(model: self, hidden: hidden)
      defer { decoding.release() }
      let limit = Self.maximumTokens(forSamples: samples.count)
      if let hotwords, !hotwords.isEmpty {
        (transcript, endedAgainstWords) = try decoding.run(
          prefix: Array(prefix.prefix(limit)), limit: limit, hotwords: hotwords)
      } else {
        transcript = try decoding.run(prefix: Array(prefix.prefix(limit)), limit: limit)
      }
    } catch {
      throw .decoderFailure("ONNX Runtime failed to run Moonshine's decoder: \(error.message)")
    }
    transcript.encoderSeconds = (encoded - start).seconds
    transcript.decoderSeconds = (clock.now - encoded).seconds
    if listensAgain, endedAgainstWords {
      // With phrases, a text that ended at once though the model found words likelier in all
      // gets a second look with more silence before the audio: "Set the Tado thermostat…" as
      // espeak-ng says it decodes to nothing after 0.05 s of lead-in and to its words after
      // 0.15 s. (Ending the text later instead, at the first step, made tones and hums into
      // "Hmm." and "You"; with the longer lead-in they still decode to nothing.)
      var again = try transcribe(
        samples, after: Self.secondLookLeadInSamples, prefix: prefix, hotwords: hotwords,
        listensAgain: false)
      again.encoderSeconds += transcript.encoderSeconds
      again.decoderSeconds += transcript.decoderSeconds
      again.decoderSteps += transcript.decoderSteps
      return again
    }
    return transcript
  }

  /// Transcribes `samples` with `silence` samples of silence before them.
  private func transcribe(
    _ samples: UnsafeBufferPointer<Float>, after silence: Int, prefix: [Int32],
    hotwords: MoonshineHotwords?, listensAgain: Bool
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    let padded = [Float](repeating: 0, count: silence) + Array(samples)
    return try padded.withUnsafeBufferPointer { padded throws(RecognitionFailure) in
      try transcribe(padded, prefix: prefix, hotwords: hotwords, listensAgain: listensAgain)
    }
  }

  /// The silence put before the audio for the second look (see
  /// ``transcribe(_:prefix:hotwords:listensAgain:)``): 0.1 s.
  static let secondLookLeadInSamples = 1600

  /// Runs the encoder over the samples (not copied: the tensor is made over them).
  func encode(
    _ samples: UnsafeMutableRawPointer, count: Int
  ) throws(ONNXRuntimeAPI.Failure) -> OpaquePointer {
    let api = runtime.api
    let shape: [Int64] = [1, Int64(count)]
    let input = try api.make("CreateTensorWithDataAsOrtValue") {
      api.createTensorWithDataAsOrtValue(
        runtime.cpuMemory.pointer, samples, count * MemoryLayout<Float>.stride, shape, 2,
        ONNXRuntimeAPI.ElementType.float.rawValue, $0)
    }
    defer { api.releaseValue(input) }
    return try encoder.run([input], outputs: [0])[0]
  }

  /// Where a loop at the end of `tokens` starts: the index after the first copy of an n-gram
  /// that ends the tokens repeated 3 times or more in a row (8 times for a single token, 4 for a
  /// pair, since "no, no, no" is speech), or `tokens.count` when there is none.
  static func loopStart(in tokens: [Int32]) -> Int {
    for length in 1...12 {
      let repeats = max(3, (8 + length - 1) / length)
      guard tokens.count >= length * repeats else { continue }
      let end = tokens.count
      let last = tokens[(end - length)..<end]
      var matched = 1
      while matched < repeats {
        let start = end - length * (matched + 1)
        guard tokens[start..<(start + length)].elementsEqual(last) else { break }
        matched += 1
      }
      if matched == repeats {
        // Extend back over further copies, then keep the first one.
        var start = end - length * repeats
        while start >= length, tokens[(start - length)..<start].elementsEqual(last) {
          start -= length
        }
        return start + length
      }
    }
    return tokens.count
  }
}

extension Duration {
  /// The duration in seconds.
  var seconds: TimeInterval {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) * 1e-18
  }
}
