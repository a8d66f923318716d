import CWhisper
import Foundation
import Moonshine
import Recognition

/// One decoder of Whisper: its own whisper.cpp state over the process's shared
/// ``WhisperModel``, writing down the utterances a ``MoonshineRecognizer`` cuts (see
/// ``WhisperRecognizer``).
///
/// Each utterance is decoded on its own (no text carried over from the last one), with the
/// encoder's window fitted to its length (`audio_ctx`: 50 frames per second of audio and 64 more,
/// rather than a full 30 s window, which costs several times more on short utterances; measured
/// in `Benchmarks/whisper/README.md`), beam search, and the configuration's prompt as Whisper's
/// initial prompt. The phrases favoured (hotwords) are a second decode's prompt, whose text is
/// kept only when it reads as the same speech as the first's, with some words spelled as the
/// phrases spell them (see ``keepsFavoured(_:over:phrases:)``): a list of names as a prompt makes Whisper base write lists,
/// loops and names where ordinary words were said. With ``WhisperConfiguration/Language/automatic``
/// the language is detected once per stream, on its first utterance and over Whisper's full
/// 30 s window (a fitted window detects worse), and kept until ``reset()``.
///
/// Used by one thread at a time.
public final class WhisperTranscriber: UtteranceTranscriber {
  /// The model it decodes with.
  public let model: WhisperModel
  /// The configuration it was made with.
  public let configuration: WhisperConfiguration
  /// The language of the last utterance decoded (detected, or the configuration's).
  public private(set) var language: WhisperLanguage?
  /// The language detected for this stream, until ``reset()``.
  private var detected: WhisperLanguage?
  private let decoder: OpaquePointer
  /// The configuration's language, looked up once.
  private let configuredLanguage: WhisperLanguage?

  /// Audio shorter than this (in samples) is not decoded: 0.1 s.
  static let minimumSamples = RecognitionAudio.sampleRate / 10
  /// Encoder frames per second of audio, and the frames added to an utterance's own.
  static let framesPerSecond = 50.0
  static let extraFrames = 64
  /// The full window, in frames: 30 s.
  static let fullWindow = 1500

  /// Creates a decoder over the shared model for `configuration` (loading it the first time).
  ///
  /// - Throws: what ``WhisperModel/shared(_:)`` throws; `.decoderFailure` when whisper.cpp cannot
  ///   make a state.
  public init(configuration: WhisperConfiguration) throws(RecognitionFailure) {
    let model = try WhisperModel.shared(configuration)
    guard let decoder = transcribe_whisper_decoder_make(model.handle.pointer) else {
      throw .decoderFailure("whisper.cpp cannot make a decoding state")
    }
    self.model = model
    self.configuration = configuration
    self.decoder = decoder
    if case let .code(code) = configuration.language {
      configuredLanguage = WhisperRuntime.language(code)
    } else {
      configuredLanguage = nil
    }
    if !model.isMultilingual, configuration.language != .code("en") || configuration.translates {
      transcribe_whisper_decoder_free(decoder)
      throw .decoderFailure("the Whisper model \(model.file.path) knows English only")
    }
  }

  deinit { transcribe_whisper_decoder_free(decoder) }

  /// The encoder frames for `count` samples: fitted, or 0 for the full window.
  static func audioContext(samples count: Int) -> Int32 {
    let frames =
      Int((Double(count) / Double(RecognitionAudio.sampleRate) * framesPerSecond).rounded(.up))
      + extraFrames
    return frames < fullWindow ? Int32(frames) : 0
  }

  /// The initial prompt: the configuration's, then the phrases favoured, separated by commas.
  static func prompt(_ prompt: String?, phrases: [String]) -> String? {
    let parts = ([prompt ?? ""] + phrases).map { $0.trimmingCharacters(in: .whitespaces) }
      .filter { !$0.isEmpty }
    return parts.isEmpty ? nil : parts.joined(separator: ", ")
  }

  public func transcribe(
    _ audio: UnsafeBufferPointer<Float>, prefix: [Int32], favouring phrases: [String]
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    guard audio.count >= Self.minimumSamples else { return MoonshineTranscript() }
    // Whisper hears an utterance's long pauses shortened (it writes what nobody said into a
    // second of silence); its word times are mapped back.
    let shortened = ShortenedPauses(audio)
    var transcript = try shortened.samples.withUnsafeBufferPointer {
      (audio) throws(RecognitionFailure) -> MoonshineTranscript in
      try transcribe(audio, favouring: phrases)
    }
    if !shortened.cuts.isEmpty, let times = transcript.wordTimes {
      transcript.wordTimes = times.map {
        shortened.originalTime(of: $0.lowerBound)...shortened.originalTime(of: $0.upperBound)
      }
    }
    return Self.withoutRepeatedSentences(transcript)
  }

  /// The transcript with a sentence of four words or more that Whisper wrote twice in a row
  /// written once: Whisper base sometimes says a whole sentence again ("He was not an
  /// ill-disposed young man. He was not an ill-disposed young man."), which its temperature
  /// fallback does not catch, and nobody dictates a sentence that long twice over.
  static func withoutRepeatedSentences(_ transcript: MoonshineTranscript) -> MoonshineTranscript {
    var transcript = transcript
    func endsSentence(_ index: Int) -> Bool {
      transcript.words[index].text.last.map { ".?!".contains($0) } ?? false
    }
    // A repeat is a run of sentences right after the same run, each ending where a sentence may
    // (a word ending in . ? !). Every such end is tried, not only the first: "Mr." ends a run
    // too short to repeat, and the run goes on to the next.
    var words = transcript.words.map { Self.words(of: $0.text).joined(separator: " ") }
    var start = 0
    search: while start < transcript.words.count {
      for end in stride(from: start + 3, to: transcript.words.count, by: 1) where endsSentence(end)
      {
        let length = end - start + 1
        guard end + length < transcript.words.count else { break }
        if endsSentence(end + length),
          words[start...end].elementsEqual(words[end + 1...end + length])
        {
          transcript.words.removeSubrange(end + 1...end + length)
          transcript.wordTimes?.removeSubrange(end + 1...end + length)
          words.removeSubrange(end + 1...end + length)
          transcript.text = transcript.words.map(\.text).joined(separator: " ")
          continue search
        }
      }
      // The next sentence start.
      guard let end = (start..<transcript.words.count).first(where: endsSentence) else { break }
      start = end + 1
    }
    return transcript
  }

  /// Transcribes `audio` as it is: a plain decode, and one with the phrases when there are any.
  private func transcribe(
    _ audio: UnsafeBufferPointer<Float>, favouring phrases: [String]
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    let language = try language(of: audio)
    self.language = language
    let started = ContinuousClock.now
    var transcript = try decode(
      audio, language: language, prompt: Self.prompt(configuration.prompt, phrases: []),
      withoutFallback: false)
    if !phrases.isEmpty {
      // The phrases' decode gets no retries: a prompt that throws Whisper into a loop would
      // otherwise cost several decodes at higher temperatures, for a text that is not kept.
      let favoured = try decode(
        audio, language: language, prompt: Self.prompt(configuration.prompt, phrases: phrases),
        withoutFallback: true)
      if Self.keepsFavoured(favoured.text, over: transcript.text, phrases: phrases) {
        transcript = favoured
      }
    }
    transcript.decoderSeconds = (ContinuousClock.now - started).seconds
    return transcript
  }

  /// One decode of `audio` with `prompt` as the initial prompt.
  private func decode(
    _ audio: UnsafeBufferPointer<Float>, language: WhisperLanguage, prompt: String?,
    withoutFallback: Bool
  ) throws(RecognitionFailure) -> MoonshineTranscript {
    guard let base = audio.baseAddress else { return MoonshineTranscript() }
    let status = (prompt ?? "").withCString { promptText in
      var settings = transcribe_whisper_settings(
        threads: Int32(max(1, configuration.threadsPerRun)),
        beam_size: Int32(max(1, configuration.beamSize)),
        language: language.id, translate: configuration.translates,
        audio_context: Self.audioContext(samples: audio.count),
        prompt: prompt == nil ? nil : promptText, without_fallback: withoutFallback)
      return transcribe_whisper_decode(decoder, base, Int32(audio.count), &settings)
    }
    guard status == 0 else {
      throw .decoderFailure("whisper.cpp could not decode (status \(status))")
    }
    return Self.transcript(of: decoder)
  }

  /// Whether the text decoded with the phrases in the prompt (`favoured`) is kept over the one
  /// decoded without them (`plain`): when it reads as the same speech with some words spelled
  /// as the phrases spell them. Every word it has that `plain` has not must be a word of the
  /// phrases (a possessive `'s` aside), it must have about as many words (at most a quarter
  /// more or fewer, or one), and it must not repeat a run of one to four words right after
  /// itself. With 33 names as its prompt, Whisper base wrote "Terna, Vakosy, Light" for "Turn up
  /// the cozy lights", "Kokemi, Ofer, The Kids" for "Cook a meal for the kids" and "Niobhan,
  /// Haibercrain, Niobhan, Haibercrain, …" for "Kneel down by the crane"
  /// (`Benchmarks/whisper/README.md`, "Hotwords").
  static func keepsFavoured(_ favoured: String, over plain: String, phrases: [String]) -> Bool {
    let favouredWords = words(of: favoured)
    let plainWords = words(of: plain)
    guard !favouredWords.isEmpty, !repeatsItself(favouredWords) else { return false }
    guard abs(favouredWords.count - plainWords.count) <= max(1, plainWords.count / 4) else {
      return false
    }
    let phraseWords = Set(phrases.flatMap { words(of: $0) })
    let heardBefore = Set(plainWords)
    return favouredWords.allSatisfy { word in
      let stem = word.hasSuffix("'s") ? String(word.dropLast(2)) : word
      return heardBefore.contains(word) || phraseWords.contains(stem)
    }
  }

  /// A text's words, lower case, without punctuation.
  static func words(of text: String) -> [String] {
    text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.map(String.init)
  }

  /// Whether some run of one to four words comes twice in a row ("dish washer dish washer").
  static func repeatsItself(_ words: [String]) -> Bool {
    for length in 1...4 where words.count >= 2 * length {
      for start in 0...(words.count - 2 * length)
      where words[start..<start + length] == words[start + length..<start + 2 * length] {
        return true
      }
    }
    return false
  }

  public func reset() {
    detected = nil
  }

  /// The language to decode `audio` in: the configuration's, or the stream's as detected on its
  /// first utterance.
  private func language(
    of audio: UnsafeBufferPointer<Float>
  ) throws(RecognitionFailure) -> WhisperLanguage {
    if let configuredLanguage { return configuredLanguage }
    if let detected { return detected }
    let language = try WhisperModel.detectLanguage(
      audio, decoder: decoder, threads: configuration.threadsPerRun)
    detected = language
    return language
  }

  /// The last decode's text tokens as a transcript: words start at tokens that begin with a
  /// space (punctuation stays with its word), and a word is as sure as the product of its
  /// tokens' probabilities.
  static func transcript(of decoder: OpaquePointer) -> MoonshineTranscript {
    var transcript = MoonshineTranscript()
    var wordBytes: [UInt8] = []
    var wordTokens: [Int] = []
    var wordConfidence: Float = 1
    var wordTimes: [ClosedRange<TimeInterval>] = []
    var wordSpan: ClosedRange<Int64>?
    func endWord() {
      let text = String(decoding: wordBytes, as: UTF8.self)
        .trimmingCharacters(in: .whitespacesAndNewlines)
      if !text.isEmpty {
        transcript.words.append(
          MoonshineTranscript.Word(text: text, confidence: wordConfidence, tokens: wordTokens))
        // Token times are in hundredths of a second from the start of the audio.
        let span = wordSpan ?? 0...0
        wordTimes.append(Double(span.lowerBound) / 100...Double(span.upperBound) / 100)
      }
      wordBytes = []
      wordTokens = []
      wordConfidence = 1
      wordSpan = nil
    }
    for segment in 0..<transcribe_whisper_segment_count(decoder) {
      for index in 0..<transcribe_whisper_token_count(decoder, segment) {
        let token = transcribe_whisper_token_at(decoder, segment, index)
        guard !token.special, let text = token.text else { continue }
        let bytes = Array(UnsafeBufferPointer(start: text, count: strlen(text)))
          .map { UInt8(bitPattern: $0) }
        if bytes.first == UInt8(ascii: " "), !wordBytes.isEmpty { endWord() }
        transcript.tokens.append(token.id)
        transcript.probabilities.append(token.probability)
        transcript.tokenBytes.append(bytes)
        wordBytes += bytes
        wordTokens.append(transcript.tokens.count - 1)
        wordConfidence *= token.probability
        let start = token.start
        let end = max(token.start, token.end)
        wordSpan =
          wordSpan.map { min($0.lowerBound, start)...max($0.upperBound, end) } ?? start...end
      }
    }
    endWord()
    transcript.text = transcript.words.map(\.text).joined(separator: " ")
    // Measured times only when every word has a span in order (whisper.cpp's token times).
    let ordered = zip(wordTimes, wordTimes.dropFirst()).allSatisfy {
      $0.lowerBound <= $1.lowerBound
    }
    if ordered, wordTimes.contains(where: { $0.upperBound > 0 }) {
      transcript.wordTimes = wordTimes
    }
    return transcript
  }
}

/// Makes recognizers that decode with Whisper.
public enum WhisperRecognizer {
  /// A recognizer that cuts the stream as `configuration.segmentation` says and writes each
  /// utterance down with a ``WhisperTranscriber`` of its own.
  public static func make(
    _ configuration: WhisperConfiguration
  ) throws(RecognitionFailure) -> MoonshineRecognizer {
    try MoonshineRecognizer(
      configuration: configuration.segmentation,
      transcriber: WhisperTranscriber(configuration: configuration))
  }
}

extension Duration {
  fileprivate var seconds: TimeInterval {
    let (seconds, attoseconds) = components
    return Double(seconds) + Double(attoseconds) / 1e18
  }
}
