import CWhisper
import Foundation
import Recognition
import Synchronization

/// A Whisper model loaded into whisper.cpp: shared by every decoder of the process, each with
/// its own working state (``WhisperTranscriber``).
///
/// ```swift
/// let model = try WhisperModel.shared(WhisperConfiguration())
/// ```
public final class WhisperModel: Sendable {
  /// The file it was loaded from.
  public let file: URL
  /// Whether the model knows other languages than English (base does).
  public let isMultilingual: Bool
  let handle: Handle

  /// The loaded model, as whisper.cpp keeps it: read-only once loaded, used by every state.
  struct Handle: @unchecked Sendable {
    let pointer: OpaquePointer
  }

  private init(file: URL, handle: Handle) {
    self.file = file
    self.handle = handle
    self.isMultilingual = transcribe_whisper_model_is_multilingual(handle.pointer)
  }

  deinit { transcribe_whisper_model_free(handle.pointer) }

  /// The model for `configuration`, loaded on first use and then shared by the whole process.
  ///
  /// - Throws: what ``WhisperConfiguration/validate()`` throws; `.modelCorrupt` naming the file
  ///   when whisper.cpp cannot load it.
  public static func shared(
    _ configuration: WhisperConfiguration
  ) throws(RecognitionFailure) -> WhisperModel {
    try configuration.validate()
    let key = configuration.modelFile.standardizedFileURL.path
    return try cache.withLock { (models) throws(RecognitionFailure) -> WhisperModel in
      if let model = models[key] { return model }
      guard let pointer = transcribe_whisper_model_load(key) else {
        throw .modelCorrupt("whisper.cpp cannot load \(key)")
      }
      let model = WhisperModel(file: configuration.modelFile, handle: Handle(pointer: pointer))
      models[key] = model
      return model
    }
  }

  private static let cache = Mutex<[String: WhisperModel]>([:])

  /// The most likely language of `audio` (16 kHz mono in [-1, 1]; its first 30 s are heard),
  /// detected over Whisper's full window with `threads` threads.
  ///
  /// - Throws: `.decoderFailure` when whisper.cpp cannot detect it.
  public func detectLanguage(
    _ audio: UnsafeBufferPointer<Float>, threads: Int
  ) throws(RecognitionFailure) -> WhisperLanguage {
    guard let decoder = transcribe_whisper_decoder_make(handle.pointer) else {
      throw .decoderFailure("whisper.cpp cannot make a decoding state")
    }
    defer { transcribe_whisper_decoder_free(decoder) }
    return try Self.detectLanguage(audio, decoder: decoder, threads: threads)
  }

  /// Detects the language with `decoder`.
  static func detectLanguage(
    _ audio: UnsafeBufferPointer<Float>, decoder: OpaquePointer, threads: Int
  ) throws(RecognitionFailure) -> WhisperLanguage {
    var probability: Float = 0
    let id = transcribe_whisper_detect_language(
      decoder, audio.baseAddress, Int32(audio.count), Int32(max(1, threads)), &probability)
    guard id >= 0, let language = WhisperRuntime.languages.first(where: { $0.id == id }) else {
      throw .decoderFailure("whisper.cpp could not detect the language (status \(id))")
    }
    return language
  }
}
