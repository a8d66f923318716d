import ConcurrencyExtras
import Foundation
import Moonshine
import PocketSphinx
import Recognition
import SpeechClient

/// An engine with everything it loads, resolved from a request and the client's configuration:
/// what the live client validates, runs on a thread of its own, or shares on a pool.
enum LiveEngine: Equatable, Sendable {
  /// pocketsphinx with these model files and search.
  case pocketsphinx(DecoderConfiguration)
  /// Moonshine with this model and endpointing.
  case moonshine(MoonshineConfiguration)

  /// The engine's name, for messages.
  var name: SpeechRecognitionRequest.EngineName {
    switch self {
    case .pocketsphinx: .pocketsphinx
    case .moonshine: .moonshine
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
    }
  }

  /// The voice-activity detector that cuts this engine's speech (pocketsphinx's own, an energy
  /// detector, reads as ``VoiceActivityDetection/energy``).
  var voiceActivity: VoiceActivityDetection {
    switch self {
    case let .pocketsphinx(configuration): configuration.voiceActivity ?? .energy
    case let .moonshine(configuration): configuration.voiceActivity
    }
  }

  /// Loads a recognizer of this engine, to be used on the calling thread.
  func makeRecognizer() throws(RecognitionFailure) -> any SpeechRecognizer {
    switch self {
    case let .pocketsphinx(configuration): try Decoder(configuration: configuration)
    case let .moonshine(configuration): try MoonshineRecognizer(configuration: configuration)
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
    if engine == .automatic {
      switch defaultEngine {
      case .pocketsphinx: engine = .pocketsphinx(.default)
      case .moonshine: engine = .moonshine(modelDirectory: nil)
      }
    }
    let detection: VoiceActivityDetection
    do {
      detection = try voiceActivity.resolved()
    } catch {
      throw SpeechClient.Failure(error)
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
      if let boost = hotwords.boost { configuration.hotwordBoost = Float(boost) }
      // A capture source is the only stream decoding: let it use two cores for lower latency.
      // Files and server streams run many recognizers at once, one core each.
      if request.source.isLive {
        configuration.threadsPerRun = min(2, ProcessInfo.processInfo.activeProcessorCount)
      }
      return .moonshine(configuration)
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
    }
  }
}

extension LiveEngine {
  /// How the engine ends utterances: pocketsphinx always after the fixed pause.
  var endpointing: Endpointing {
    switch self {
    case .pocketsphinx: .fixed
    case let .moonshine(configuration): configuration.endpointing
    }
  }

  /// The pause that ends an utterance (with sentence endpointing, the shortest) and the longest.
  var endOfUtteranceSilence: (shortest: TimeInterval, longest: TimeInterval) {
    switch self {
    case let .pocketsphinx(configuration):
      (configuration.endOfUtteranceSilence, configuration.endOfUtteranceSilence)
    case let .moonshine(configuration):
      configuration.endpointing == .sentence
        ? (
          configuration.endOfUtteranceSilence,
          max(configuration.endOfUtteranceSilence, configuration.maximumEndOfUtteranceSilence)
        )
        : (configuration.endOfUtteranceSilence, configuration.endOfUtteranceSilence)
    }
  }
}
