import ConcurrencyExtras
import Foundation
import Moonshine
import PocketSphinx
import Recognition
import SpeechClient
import Whisper

/// An engine with everything it loads, resolved from a request and the client's configuration:
/// what the live client validates, runs on a thread of its own, or shares on a pool.
enum LiveEngine: Equatable, Sendable {
  /// pocketsphinx with these model files and search.
  case pocketsphinx(DecoderConfiguration)
  /// Moonshine with this model and endpointing.
  case moonshine(MoonshineConfiguration)
  /// Whisper with this model, language and endpointing.
  case whisper(WhisperConfiguration)

  /// The engine's name, for messages.
  var name: SpeechRecognitionRequest.EngineName {
    switch self {
    case .pocketsphinx: .pocketsphinx
    case .moonshine: .moonshine
    case .whisper: .whisper
    }
  }

  /// Checks that the engine's files are there before anything is opened or loaded.
  func validate() throws(RecognitionFailure) {
    switch self {
    case let .pocketsphinx(configuration): try configuration.validate()
    case let .moonshine(configuration):
      do {
        try configuration.validate()
      } catch .modelMissing(let detail) {
        // Moonshine's model is not a package of its own: without it the engine is not installed.
        throw .runtimeUnavailable(engine: "Moonshine", reason: detail)
      }
      _ = try MoonshineRuntime.load(configuration.runtimeLibrary)
    case let .whisper(configuration):
      try configuration.validate()
      // Silero VAD cuts its utterances: it runs in ONNX Runtime.
      if !configuration.segmentation.voiceActivity.isEnergy {
        _ = try MoonshineRuntime.load(configuration.segmentation.runtimeLibrary)
      }
    }
  }

  /// The voice-activity detector that cuts this engine's speech (pocketsphinx's own, an energy
  /// detector, reads as ``VoiceActivityDetection/energy``).
  var voiceActivity: VoiceActivityDetection {
    switch self {
    case let .pocketsphinx(configuration): configuration.voiceActivity ?? .energy
    case let .moonshine(configuration): configuration.voiceActivity
    case let .whisper(configuration): configuration.segmentation.voiceActivity
    }
  }

  /// Loads a recognizer of this engine, to be used on the calling thread.
  func makeRecognizer() throws(RecognitionFailure) -> any SpeechRecognizer {
    switch self {
    case let .pocketsphinx(configuration): try Decoder(configuration: configuration)
    case let .moonshine(configuration): try MoonshineRecognizer(configuration: configuration)
    case let .whisper(configuration): try WhisperRecognizer.make(configuration)
    }
  }

  /// Gives a recognizer borrowed from a pool (which does not know them) this engine's phrases,
  /// until its next reset: Moonshine biases its decoder towards them, Whisper reads them as its
  /// prompt.
  func favourPhrases(on recognizer: any SpeechRecognizer) {
    guard let recognizer = recognizer as? MoonshineRecognizer else { return }
    switch self {
    case .pocketsphinx: break
    case let .moonshine(configuration):
      recognizer.favour(configuration.hotwords, boost: configuration.hotwordBoost)
    case let .whisper(configuration):
      recognizer.favour(configuration.segmentation.hotwords)
    }
  }

  /// The same engine as a file's pieces use it: without partial results when nobody reads them.
  func withoutPartialResults() -> LiveEngine {
    switch self {
    case var .pocketsphinx(configuration):
      configuration.reportsPartialResults = false
      return .pocketsphinx(configuration)
    case var .moonshine(configuration):
      configuration.reportsPartialResults = false
      return .moonshine(configuration)
    case var .whisper(configuration):
      configuration.segmentation.reportsPartialResults = false
      return .whisper(configuration)
    }
  }

  /// The pool of the process for this engine with `size` workers: created on first use and kept
  /// for the life of the process, so every file, batch and session with the same engine reuses
  /// loaded recognizers.
  func sharedPool(size: Int) -> any AnyRecognizerPool {
    Self.pools.withValue { pools in
      if let pool = pools.first(where: { $0.engine == self && $0.pool.size == max(1, size) }) {
        return pool.pool
      }
      let pool: any AnyRecognizerPool
      switch self {
      case let .pocketsphinx(configuration):
        pool = DecoderPool(configuration: configuration, size: size)
      case let .moonshine(configuration):
        pool = RecognizerPool(size: size, threadName: "transcribe.moonshine") {
          () throws(RecognitionFailure) in
          try MoonshineRecognizer(configuration: configuration)
        }
      case let .whisper(configuration):
        pool = RecognizerPool(size: size, threadName: "transcribe.whisper") {
          () throws(RecognitionFailure) in
          try WhisperRecognizer.make(configuration)
        }
      }
      pools.append((self, pool))
      return pool
    }
  }

  private static let pools = LockIsolated<[(engine: LiveEngine, pool: any AnyRecognizerPool)]>([])

  /// Whether some pool of the process has had every worker on its current job for longer than
  /// `bound` (see ``LiveSpeechConfiguration/isEveryDecoderBusy(longerThan:)``).
  static func isSomePoolBusy(longerThan bound: Duration) -> Bool {
    pools.withValue { pools in
      pools.contains { $0.pool.workersBusy(longerThan: bound) >= $0.pool.size }
    }
  }
}

extension LiveSpeechConfiguration {
  /// Whether every decoder of one of the process's shared pools (one per engine, which a
  /// server's streams borrow from) has been busy with its current session for longer than
  /// `bound`: a new stream on that engine would wait for one. A server that runs fewer sessions
  /// than there are decoders then knows some decoder still works for a session that is over.
  public static func isEveryDecoderBusy(longerThan bound: Duration) -> Bool {
    LiveEngine.isSomePoolBusy(longerThan: bound)
  }
}

extension LiveSpeechConfiguration {
  /// The engine that decodes `request`, once its files (and runtime) are checked to be there.
  ///
  /// - Throws: the failure a task for `request` would end with, as the client reports it.
  func validatedEngine(
    for request: SpeechRecognitionRequest
  ) throws(SpeechClient.Failure) -> LiveEngine {
    let engine = try engine(for: request)
    do {
      try engine.validate()
    } catch {
      throw SpeechClient.Failure(error)
    }
    if case let .whisper(configuration) = engine, case let .code(code) = configuration.language,
      WhisperRuntime.language(code) == nil
    {
      throw .languageUnsupported(
        language: code, reason: "Whisper does not know this language code")
    }
    return engine
  }

  /// The engine of the shared pool that serves `request`: without the request's own hotwords
  /// and the changing ones, which a recognizer borrowed from the pool takes for the request
  /// alone (so every list does not load a pool of its own).
  func pooledEngine(
    for request: SpeechRecognitionRequest
  ) throws(SpeechClient.Failure) -> LiveEngine {
    var request = request
    request.hotwords = Hotwords()
    var configuration = self
    configuration.hotwordSource = nil
    return try configuration.engine(for: request)
  }

  /// The engine, with its settings, that decodes `request`.
  ///
  /// - Throws: ``SpeechClient/Failure/engineUnavailable(engine:reason:)`` for an engine this
  ///   build cannot run.
  func engine(for request: SpeechRecognitionRequest) throws(SpeechClient.Failure) -> LiveEngine {
    var engine = request.engine
    let language = request.language
    if engine == .automatic {
      // English goes to the default engine; every other language, detection and translation
      // to Whisper, the one engine that hears them.
      if language.isEnglish && !request.translates {
        switch defaultEngine {
        case .pocketsphinx: engine = .pocketsphinx(.default)
        case .moonshine: engine = .moonshine(modelDirectory: nil)
        case .whisper: engine = .whisper(modelFile: nil)
        }
      } else {
        engine = .whisper(modelFile: nil)
      }
    }
    let detection: VoiceActivityDetection
    do {
      detection = try voiceActivity.resolved()
    } catch {
      throw SpeechClient.Failure(error)
    }
    if let name = engine.name, name != .whisper {
      if !language.isEnglish {
        throw .languageUnsupported(
          language: language.code, reason: "\(name.displayName) hears English only")
      }
      if request.translates {
        throw .languageUnsupported(
          language: language.code, reason: "\(name.displayName) cannot translate")
      }
    }
    switch engine {
    case .automatic, .pocketsphinx:
      var configuration = DecoderConfiguration(model: request.model)
      // pocketsphinx's own detector is an energy detector: it stands for ours.
      configuration.voiceActivity = detection.isEnergy ? nil : detection
      configuration.isVerbose = isVerbose
      configuration.endOfUtteranceSilence = endOfUtteranceSilence(for: .fixed)
      configuration.maximumUtteranceDuration = maximumUtteranceDuration
      configuration.reportsPartialResults =
        request.shouldReportPartialResults && partialResults != .off
      configuration.alternativeCount = alternativeCount
      return .pocketsphinx(configuration)
    case let .moonshine(directory):
      var configuration = MoonshineConfiguration(modelDirectory: directory)
      configureSegmentation(&configuration, for: request, detection: detection)
      let hotwords = self.hotwords.merged(with: hotwordSource?.current ?? Hotwords())
        .merged(with: request.hotwords)
      if let boost = hotwords.boost { configuration.hotwordBoost = Float(boost) }
      return .moonshine(configuration)
    case let .whisper(file):
      var configuration = WhisperConfiguration(modelFile: file)
      configureSegmentation(&configuration.segmentation, for: request, detection: detection)
      configuration.language =
        switch language {
        case let .code(code): .code(code)
        case .automatic: .automatic
        }
      configuration.translates = request.translates
      configuration.prompt = request.prompt
      configuration.threadsPerRun = configuration.segmentation.threadsPerRun
      return .whisper(configuration)
    }
  }

  /// How a recognizer that cuts utterances itself (Moonshine's, which Whisper's is too) cuts
  /// and reports them for `request`: its detector, endpointing, pauses, partial results and
  /// phrases, and the threads a run may use.
  private func configureSegmentation(
    _ configuration: inout MoonshineConfiguration, for request: SpeechRecognitionRequest,
    detection: VoiceActivityDetection
  ) {
    configuration.runtimeLibrary = onnxRuntimeLibrary
    configuration.voiceActivity = detection
    configuration.endpointing = endpointing
    configuration.endOfUtteranceSilence = endOfUtteranceSilence(for: endpointing)
    configuration.maximumEndOfUtteranceSilence = maximumEndOfUtteranceSilence
    configuration.maximumUtteranceDuration = maximumUtteranceDuration
    configuration.reportsPartialResults = request.shouldReportPartialResults
    configuration.partialResults = partialResults
    let hotwords = self.hotwords.merged(with: hotwordSource?.current ?? Hotwords())
      .merged(with: request.hotwords)
    configuration.hotwords = hotwords.phrases
    // A capture source is the only stream decoding: let it use two cores for lower latency.
    // Files and server streams run many recognizers at once, one core each.
    if request.source.isLive {
      configuration.threadsPerRun = min(2, ProcessInfo.processInfo.activeProcessorCount)
    }
  }
}

extension LiveSpeechConfiguration {
  /// Whether `engine` can run here with its installed model: pocketsphinx when Debian's
  /// `pocketsphinx-en-us` is there, Moonshine when ONNX Runtime and its converted model are.
  /// Cheap: looks for files, loads nothing.
  public static func isInstalled(_ engine: SpeechRecognitionRequest.EngineName) -> Bool {
    switch engine {
    case .pocketsphinx: (try? DecoderConfiguration().validate()) != nil
    case .moonshine: MoonshineRuntime.isInstalled()
    case .whisper: WhisperRuntime.isInstalled()
    }
  }
}

extension LiveEngine {
  /// How the engine ends utterances: pocketsphinx always after the fixed pause.
  var endpointing: Endpointing {
    switch self {
    case .pocketsphinx: .fixed
    case let .moonshine(configuration): configuration.endpointing
    case let .whisper(configuration): configuration.segmentation.endpointing
    }
  }

  /// The pause that ends an utterance (with sentence endpointing, the shortest) and the longest.
  var endOfUtteranceSilence: (shortest: TimeInterval, longest: TimeInterval) {
    let configuration: MoonshineConfiguration
    switch self {
    case let .pocketsphinx(configuration):
      return (configuration.endOfUtteranceSilence, configuration.endOfUtteranceSilence)
    case let .moonshine(moonshine): configuration = moonshine
    case let .whisper(whisper): configuration = whisper.segmentation
    }
    return configuration.endpointing == .sentence
      ? (
        configuration.endOfUtteranceSilence,
        max(configuration.endOfUtteranceSilence, configuration.maximumEndOfUtteranceSilence)
      )
      : (configuration.endOfUtteranceSilence, configuration.endOfUtteranceSilence)
  }
}

extension LiveSpeechConfiguration {
  /// A language Whisper knows: its code (`de`) and English name (`german`).
  public struct Language: Equatable, Sendable {
    /// The code requests name it by.
    public var code: String
    /// Its English name, as Whisper writes it.
    public var name: String
  }

  /// The languages Whisper knows, English first.
  ///
  /// - Throws: ``SpeechClient/Failure/engineUnavailable(engine:reason:)`` when Whisper's
  ///   library is not installed (or this build has no Whisper engine).
  public static func whisperLanguages() throws(SpeechClient.Failure) -> [Language] {
    do {
      try WhisperRuntime.open(nil)
    } catch {
      throw SpeechClient.Failure(error)
    }
    return WhisperRuntime.languages.map { Language(code: $0.code, name: $0.name) }
  }

  /// The language with this code or English name, when Whisper is installed; `nil` when it is
  /// unknown or Whisper is not installed.
  public static func whisperLanguage(_ codeOrName: String) -> Language? {
    guard WhisperRuntime.isInstalled(), (try? WhisperRuntime.open(nil)) != nil,
      let language = WhisperRuntime.language(codeOrName)
    else { return nil }
    return Language(code: language.code, name: language.name)
  }
}

extension LiveSpeechConfiguration {
  /// The audio a file's language is detected from: its first 30 s (Whisper's window).
  static let languageDetectionSamples = 30 * RecognitionAudio.sampleRate

  /// `request` with its ``SpeechRecognitionRequest/Language/automatic`` language detected by
  /// Whisper from `samples` (a file's first 30 s): English goes to the default engine when no
  /// engine was asked for and nothing is translated, as an English request would.
  ///
  /// - Throws: ``SpeechClient/Failure/engineUnavailable(engine:reason:)`` when Whisper is not
  ///   installed; what decoding throws.
  func resolvingLanguage(
    of request: SpeechRecognitionRequest, from samples: [Int16]
  ) throws(SpeechClient.Failure) -> SpeechRecognitionRequest {
    guard request.language == .automatic else { return request }
    var whisperRequest = request
    whisperRequest.engine = .whisper(modelFile: request.engine.whisperModelFile)
    guard case let .whisper(configuration) = try engine(for: whisperRequest) else {
      return request
    }
    let language: WhisperLanguage
    do {
      try configuration.validate()
      let audio = samples.map { Float($0) / 32768 }
      language = try audio.withUnsafeBufferPointer { audio throws(RecognitionFailure) in
        try WhisperModel.shared(configuration).detectLanguage(
          audio, threads: ProcessInfo.processInfo.activeProcessorCount)
      }
    } catch {
      throw SpeechClient.Failure(error)
    }
    var resolved = request
    resolved.language = .code(language.code)
    return resolved
  }
}

extension SpeechRecognitionRequest.Engine {
  /// The Whisper model file a request names, if it names one.
  var whisperModelFile: URL? {
    if case let .whisper(file) = self { return file }
    return nil
  }
}
