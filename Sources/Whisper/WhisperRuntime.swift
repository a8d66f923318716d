import CWhisper
import Foundation
import Recognition

/// Finds and opens whisper.cpp's library, which the Whisper engine decodes with.
///
/// The library is opened at run time (`dlopen`), so `transcribe` builds and runs without it and
/// only Whisper needs it: `scripts/install-dependencies.sh --whisper` installs whisper.cpp 1.8.5
/// from PyPI's `pywhispercpp` wheel. Without an explicit path it is searched for, first found
/// wins:
/// 1. `$TRANSCRIBE_WHISPER_LIBRARY` (a file; when set, nothing else is tried);
/// 2. `~/.local/lib/transcribe/whisper/libwhisper.so.1`,
///    `/usr/local/lib/transcribe/whisper/libwhisper.so.1` (the installer's) and
///    `/usr/lib/transcribe/whisper/libwhisper.so.1` (a package's).
///
/// The library is opened once per process and never closed; its worker threads wait passively
/// (`OMP_WAIT_POLICY=PASSIVE` unless the environment says otherwise), so several decoders and
/// other processes share the cores instead of spinning against each other.
///
/// ```swift
/// try WhisperRuntime.open(nil)
/// print(WhisperRuntime.languages.map(\.code))  // ["en", "zh", "de", ...]
/// ```
public enum WhisperRuntime {
  /// The environment variable that names the library.
  public static let libraryEnvironmentVariable = "TRANSCRIBE_WHISPER_LIBRARY"
  /// The library's file name.
  public static let libraryName = "libwhisper.so.1"

  /// Whether this build of transcribe was compiled with the Whisper engine (against whisper.h).
  public static var isCompiledIn: Bool { transcribe_whisper_compiled() != 0 }

  /// Opens the library at `library`, or the first one found (see above).
  ///
  /// - Throws: `RecognitionFailure.runtimeUnavailable` naming where it looked, or why the
  ///   library found cannot be used.
  public static func open(_ library: URL?) throws(RecognitionFailure) {
    try open(library, environment: ProcessInfo.processInfo.environment)
  }

  static func open(_ library: URL?, environment: [String: String]) throws(RecognitionFailure) {
    guard isCompiledIn else {
      throw .runtimeUnavailable(
        engine: "Whisper",
        reason:
          "this build of transcribe has no Whisper engine (whisper.h was not installed when it "
          + "was built)")
    }
    let path: String
    if let library {
      path = library.path
    } else if let named = environment[libraryEnvironmentVariable], !named.isEmpty {
      path = named
    } else {
      let candidates = searchPaths(environment: environment)
      guard let found = candidates.first(where: { FileManager.default.fileExists(atPath: $0) })
      else {
        throw .runtimeUnavailable(
          engine: "Whisper", reason: "no \(libraryName) in \(candidates.joined(separator: ", "))")
      }
      path = found
    }
    guard FileManager.default.fileExists(atPath: path) else {
      throw .runtimeUnavailable(engine: "Whisper", reason: "no such file: \(path)")
    }
    var reason = [CChar](repeating: 0, count: 512)
    guard transcribe_whisper_open_library(path, &reason, reason.count) == 0 else {
      throw .runtimeUnavailable(
        engine: "Whisper",
        reason: String(
          decoding: reason.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self))
    }
  }

  /// Whether the library and the installed model are both there. Cheap: looks for files, opens
  /// nothing.
  public static func isInstalled(
    environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> Bool {
    guard isCompiledIn else { return false }
    let library =
      environment[libraryEnvironmentVariable].flatMap { $0.isEmpty ? nil : $0 }
      ?? searchPaths(environment: environment).first {
        FileManager.default.fileExists(atPath: $0)
      }
    guard let library, FileManager.default.fileExists(atPath: library) else { return false }
    return FileManager.default.fileExists(
      atPath: WhisperConfiguration.defaultModelFile(environment: environment).path)
  }

  /// Where the library is looked for, in order.
  static func searchPaths(environment: [String: String]) -> [String] {
    let home = environment["HOME"] ?? FileManager.default.homeDirectoryForCurrentUser.path
    return [
      "\(home)/.local/lib/transcribe/whisper/\(libraryName)",
      "/usr/local/lib/transcribe/whisper/\(libraryName)",
      "/usr/lib/transcribe/whisper/\(libraryName)",
    ]
  }

  /// The languages the library knows, in its order (English first), once it is open; none before.
  public static var languages: [WhisperLanguage] {
    (0..<Int(transcribe_whisper_language_count())).compactMap { id in
      guard let code = transcribe_whisper_language_code(Int32(id)),
        let name = transcribe_whisper_language_name(Int32(id))
      else { return nil }
      return WhisperLanguage(
        id: Int32(id), code: String(cString: code), name: String(cString: name))
    }
  }

  /// The language with this code (`de`) or English name (`german`), once the library is open.
  public static func language(_ codeOrName: String) -> WhisperLanguage? {
    let id = transcribe_whisper_language_id(codeOrName.lowercased())
    guard id >= 0 else { return nil }
    return languages.first { $0.id == id }
  }
}

/// A language Whisper knows.
public struct WhisperLanguage: Equatable, Hashable, Sendable {
  /// Its index in the library's table.
  public var id: Int32
  /// Its code: ISO 639-1 where there is one (`de`), else Whisper's own (`haw`, `yue`).
  public var code: String
  /// Its English name in lower case, as Whisper writes it (`german`).
  public var name: String
}
