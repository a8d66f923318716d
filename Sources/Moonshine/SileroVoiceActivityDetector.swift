import Foundation
import Recognition
import Synchronization

/// Silero VAD loaded into ONNX Runtime: a 2.3 MB neural voice-activity detector (MIT), loaded
/// once per process and shared by every ``SileroVoiceActivityDetector``.
///
/// The model (`silero_vad.onnx`, opset 16) takes 512 samples at 16 kHz with the 64 samples
/// before them as context (`input` [1, 576]), its recurrent state (`state` [2, 1, 128]) and the
/// sample rate (`sr`), and returns the window's speech probability (`output`) and the next state
/// (`stateN`). It runs in the same ONNX Runtime as Moonshine, which is why it lives in this
/// module.
///
/// The model file is found like Moonshine's: `$TRANSCRIBE_VAD_MODEL`, else
/// `${XDG_DATA_HOME:-~/.local/share}/transcribe/silero-vad/silero_vad.onnx`,
/// `/usr/local/share/transcribe/silero-vad/silero_vad.onnx` or
/// `/usr/share/transcribe/silero-vad/silero_vad.onnx`, where `scripts/install-dependencies.sh`
/// puts it.
///
/// ```swift
/// let model = try SileroVoiceActivityModel.shared(file: nil, runtimeLibrary: nil)
/// var activity = try VoiceActivityDetection.silero(model).makeStream()
/// ```
public final class SileroVoiceActivityModel: Sendable {
  /// The model file loaded.
  public let file: URL
  /// The ONNX Runtime library the model runs in.
  public let runtime: MoonshineRuntime.Library
  let session: ONNXRuntimeSession
  /// The session's inputs in order: which is the audio, the state and the rate.
  let inputs: [Input]
  /// The output indices of the probability and the next state.
  let probabilityOutput: Int
  let stateOutput: Int

  enum Input { case audio, state, rate }

  /// Samples per window at 16 kHz.
  public static let windowLength = 512
  /// Samples of the previous window fed before each window.
  public static let contextLength = 64
  /// Floats in the recurrent state: [2, 1, 128].
  static let stateCount = 2 * 128
  /// The environment variable that names the model file.
  public static let modelEnvironmentVariable = "TRANSCRIBE_VAD_MODEL"
  /// The model's file name.
  public static let fileName = "silero_vad.onnx"

  /// The installed model file: `$TRANSCRIBE_VAD_MODEL` when it is set; else the first of these
  /// that exists, else where this installation puts it (`/usr` for the Debian package's command,
  /// `/usr/local` for a build from a checkout):
  /// `${XDG_DATA_HOME:-~/.local/share}/transcribe/silero-vad/silero_vad.onnx`,
  /// `/usr/local/share/transcribe/silero-vad/silero_vad.onnx`,
  /// `/usr/share/transcribe/silero-vad/silero_vad.onnx`.
  public static var defaultModelFile: URL {
    defaultModelFile(environment: ProcessInfo.processInfo.environment)
  }

  /// ``defaultModelFile`` with the environment given (for tests).
  static func defaultModelFile(environment: [String: String]) -> URL {
    if let path = environment[modelEnvironmentVariable], !path.isEmpty {
      return URL(fileURLWithPath: path)
    }
    let candidates = InstalledData.candidates("silero-vad/\(fileName)", environment: environment)
    return candidates.first { FileManager.default.fileExists(atPath: $0.path) }
      ?? InstalledData.ownPlace("silero-vad/\(fileName)")
  }

  /// Whether Silero VAD can run: ONNX Runtime loads and the model file is there (not loaded).
  public static func isInstalled(file: URL? = nil, runtimeLibrary: URL? = nil) -> Bool {
    let file = file ?? defaultModelFile
    guard FileManager.default.fileExists(atPath: file.path) else { return false }
    return (try? MoonshineRuntime.load(runtimeLibrary)) != nil
  }

  /// The model in `file` (or the installed one), loaded on first use and then shared by the
  /// whole process.
  ///
  /// - Throws: `RecognitionFailure.modelMissing` when the installed model is absent (the message
  ///   names `./scripts/install-dependencies.sh`); `.modelFileNotFound(.voiceActivityModel,
  ///   path:)` when a file the caller named is absent; `.modelCorrupt` when the file is not
  ///   Silero VAD's model; `.runtimeUnavailable(engine: "Silero VAD", …)` without ONNX Runtime.
  public static func shared(
    file: URL?, runtimeLibrary: URL?
  ) throws(RecognitionFailure) -> SileroVoiceActivityModel {
    let named = file ?? (hasEnvironmentModel ? defaultModelFile : nil)
    let file = named ?? defaultModelFile
    let key = "\(file.standardizedFileURL.path)\n\(runtimeLibrary?.standardizedFileURL.path ?? "")"
    return try cache.withLock { (models) throws(RecognitionFailure) -> SileroVoiceActivityModel in
      if let model = models[key] { return model }
      let model = try SileroVoiceActivityModel(
        file: file, isNamed: named != nil, runtimeLibrary: runtimeLibrary)
      models[key] = model
      return model
    }
  }

  private static var hasEnvironmentModel: Bool {
    !(ProcessInfo.processInfo.environment[modelEnvironmentVariable] ?? "").isEmpty
  }

  /// The models loaded so far, by file and library.
  private static let cache = Mutex<[String: SileroVoiceActivityModel]>([:])

  /// Loads the model (not shared: use ``shared(file:runtimeLibrary:)``).
  init(file: URL, isNamed: Bool, runtimeLibrary: URL?) throws(RecognitionFailure) {
    guard FileManager.default.fileExists(atPath: file.path) else {
      if isNamed { throw .modelFileNotFound(.voiceActivityModel, path: file.path) }
      throw .modelMissing(
        "Silero VAD's model is not installed (looked for \(file.path)); "
          + "\(Installation.current.reinstallEnglishEngine), or set "
          + "$\(Self.modelEnvironmentVariable)")
    }
    if let problem = ModelFileCheck.problem(with: file) {
      throw .modelCorrupt("\(file.path) is not a usable model: \(problem)")
    }
    let runtime: MoonshineRuntime.Library
    do {
      runtime = try MoonshineRuntime.load(runtimeLibrary)
    } catch .runtimeUnavailable(_, let reason) {
      throw .runtimeUnavailable(engine: "Silero VAD", reason: reason)
    }
    let api = runtime.api
    let options = try MoonshineModel.sessionOptions(api, threads: 1, usesArena: true)
    defer { api.releaseSessionOptions(options) }
    let session: ONNXRuntimeSession
    do {
      session = try ONNXRuntimeSession(library: runtime, file: file, options: options)
    } catch {
      throw .modelCorrupt("ONNX Runtime could not load \(file.path): \(error.message)")
    }
    var inputs: [Input] = []
    for name in session.inputNames {
      switch name {
      case "input": inputs.append(.audio)
      case "state": inputs.append(.state)
      case "sr": inputs.append(.rate)
      default:
        throw .modelCorrupt(
          "\(file.path) is not Silero VAD's model: it has an unexpected input `\(name)`")
      }
    }
    guard inputs.count == 3,
      let probability = session.outputNames.firstIndex(of: "output"),
      let state = session.outputNames.firstIndex(of: "stateN")
    else {
      throw .modelCorrupt(
        "\(file.path) is not Silero VAD's model: it has inputs \(session.inputNames) and "
          + "outputs \(session.outputNames) (expected input, state, sr → output, stateN)")
    }
    self.file = file
    self.runtime = runtime
    self.session = session
    self.inputs = inputs
    self.probabilityOutput = probability
    self.stateOutput = state
  }
}

/// One stream's Silero VAD: 32 ms windows (512 samples at 16 kHz), each judged with the 4 ms
/// before it and the model's state carried from window to window.
///
/// The tensors are made once over buffers the detector owns, so judging a window allocates only
/// ONNX Runtime's outputs. About 0.1–0.2 ms of one core per window, under 1 % of a core in real
/// time. One thread feeds a detector; any number of detectors share the model.
public final class SileroVoiceActivityDetector: VoiceActivityDetector {
  /// The shared model.
  public let model: SileroVoiceActivityModel
  private let api: ONNXRuntimeAPI
  /// The context and the window, in [-1, 1]: [1, 576].
  private let audio: UnsafeMutableBufferPointer<Float>
  /// The recurrent state: [2, 1, 128].
  private let state: UnsafeMutableBufferPointer<Float>
  private let rate: UnsafeMutablePointer<Int64>
  /// The input values over those buffers, in the session's input order.
  private let values: [OpaquePointer]

  /// Creates a detector for a new stream over `model`.
  ///
  /// - Throws: `RecognitionFailure.decoderFailure` when ONNX Runtime cannot make its tensors.
  public init(model: SileroVoiceActivityModel) throws(RecognitionFailure) {
    self.model = model
    let api = model.runtime.api
    self.api = api
    let length = SileroVoiceActivityModel.contextLength + SileroVoiceActivityModel.windowLength
    let audio = UnsafeMutableBufferPointer<Float>.allocate(capacity: length)
    audio.initialize(repeating: 0)
    let state = UnsafeMutableBufferPointer<Float>.allocate(
      capacity: SileroVoiceActivityModel.stateCount)
    state.initialize(repeating: 0)
    let rate = UnsafeMutablePointer<Int64>.allocate(capacity: 1)
    rate.initialize(to: Int64(RecognitionAudio.sampleRate))
    self.audio = audio
    self.state = state
    self.rate = rate
    var values: [OpaquePointer] = []
    do {
      let memory = model.runtime.cpuMemory.pointer
      for input in model.inputs {
        let value: OpaquePointer
        switch input {
        case .audio:
          let shape: [Int64] = [1, Int64(length)]
          value = try api.make("CreateTensorWithDataAsOrtValue") {
            api.createTensorWithDataAsOrtValue(
              memory, UnsafeMutableRawPointer(audio.baseAddress!), length * 4, shape, 2,
              ONNXRuntimeAPI.ElementType.float.rawValue, $0)
          }
        case .state:
          let shape: [Int64] = [2, 1, 128]
          value = try api.make("CreateTensorWithDataAsOrtValue") {
            api.createTensorWithDataAsOrtValue(
              memory, UnsafeMutableRawPointer(state.baseAddress!),
              SileroVoiceActivityModel.stateCount * 4, shape, 3,
              ONNXRuntimeAPI.ElementType.float.rawValue, $0)
          }
        case .rate:
          let shape: [Int64] = [1]
          value = try api.make("CreateTensorWithDataAsOrtValue") {
            api.createTensorWithDataAsOrtValue(
              memory, UnsafeMutableRawPointer(rate), 8, shape, 0,
              ONNXRuntimeAPI.ElementType.int64.rawValue, $0)
          }
        }
        values.append(value)
      }
    } catch {
      for value in values { api.releaseValue(value) }
      audio.deallocate()
      state.deallocate()
      rate.deallocate()
      throw .decoderFailure("ONNX Runtime could not make Silero VAD's inputs: \(error.message)")
    }
    self.values = values
  }

  deinit {
    for value in values { api.releaseValue(value) }
    audio.deallocate()
    state.deallocate()
    rate.deallocate()
  }

  /// 32 ms.
  public var windowLength: Int { SileroVoiceActivityModel.windowLength }

  /// Runs the model over the window (with the last 64 samples of the one before).
  public func speechProbability(
    of window: UnsafeBufferPointer<Int16>
  ) throws(RecognitionFailure) -> Float {
    let context = SileroVoiceActivityModel.contextLength
    precondition(window.count == windowLength, "a window is \(windowLength) samples")
    // The previous window's last samples become this one's context.
    for index in 0..<context {
      audio[index] = audio[windowLength + index]
    }
    for (index, sample) in window.enumerated() {
      audio[context + index] = Float(sample) / 32768
    }
    let outputs: [OpaquePointer]
    do {
      outputs = try model.session.run(
        values, outputs: [model.probabilityOutput, model.stateOutput])
    } catch {
      throw .decoderFailure("Silero VAD failed: \(error.message)")
    }
    defer { for output in outputs { api.releaseValue(output) } }
    do {
      let probability = try api.data(of: outputs[0]).load(as: Float.self)
      let next = try api.data(of: outputs[1]).assumingMemoryBound(to: Float.self)
      state.baseAddress!.update(from: next, count: SileroVoiceActivityModel.stateCount)
      return probability.isFinite ? min(max(probability, 0), 1) : 0
    } catch {
      throw .decoderFailure("Silero VAD's output could not be read: \(error.message)")
    }
  }

  /// Clears the state and the context.
  public func reset() {
    audio.update(repeating: 0)
    state.update(repeating: 0)
  }
}

extension VoiceActivityDetection {
  /// Silero VAD over `model`, with `threshold` (default 0.5).
  public static func silero(
    _ model: SileroVoiceActivityModel, threshold: Double = defaultThreshold
  ) -> VoiceActivityDetection {
    VoiceActivityDetection(name: "Silero VAD", threshold: threshold, source: model.file.path) {
      () throws(RecognitionFailure) in
      try SileroVoiceActivityDetector(model: model)
    }
  }
}
