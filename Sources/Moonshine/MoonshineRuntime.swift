import Foundation
import Recognition
import Synchronization

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// Finds and loads ONNX Runtime, the library Moonshine's model runs in.
///
/// The library is opened at run time (`dlopen`), so `transcribe` builds and runs without it and
/// only Moonshine needs it. Its C API is reached through the one symbol it exports,
/// `OrtGetApiBase`; API version 17 (ONNX Runtime 1.17) or later is required.
///
/// Without an explicit path the library is searched for, first found wins:
/// 1. `$TRANSCRIBE_ONNXRUNTIME` (a file; when set, nothing else is tried);
/// 2. `~/.local/lib/transcribe/libonnxruntime.so.1` and `/usr/local/lib/transcribe/libonnxruntime.so.1`
///    (where `scripts/install-dependencies.sh` links it), then
///    `/usr/lib/transcribe/libonnxruntime.so.1` (where the Debian package puts it);
/// 3. `libonnxruntime.so.1` on the system's library path;
/// 4. pip's `onnxruntime/capi/libonnxruntime.so.1*` under the usual `site-packages` and
///    `dist-packages` directories (the active virtual environment, `~/.local`, pyenv, `/usr/local`,
///    `/usr`).
///
/// A library is loaded once per process and path and never unloaded.
///
/// ```swift
/// let runtime = try MoonshineRuntime.load(nil)
/// print("ONNX Runtime \(runtime.version) from \(runtime.path)")
/// if MoonshineRuntime.isInstalled() { /* offer Moonshine as the default engine */ }
/// ```
public enum MoonshineRuntime {
  /// A loaded ONNX Runtime library: its C API and the process's ONNX Runtime environment.
  public final class Library: Sendable {
    /// Where the library was loaded from (a path, or the bare name the dynamic loader found).
    public let path: String
    /// The library's version, e.g. `1.32.0`.
    public let version: String
    let api: ONNXRuntimeAPI
    /// The `OrtEnv` every session of this library is created in.
    let environment: Handle
    /// Describes CPU memory for tensors over this module's own buffers.
    let cpuMemory: Handle
    /// The allocator ONNX Runtime allocates names with (owned by the library; never freed).
    let allocator: Handle

    init(path: String, version: String, api: ONNXRuntimeAPI) throws(ONNXRuntimeAPI.Failure) {
      self.path = path
      self.version = version
      self.api = api
      let environment = try api.make("CreateEnv") {
        api.createEnv(ONNXRuntimeAPI.loggingLevelError, "transcribe", $0)
      }
      // Nothing about the user's speech or machine leaves it: no usage events either (the
      // environment variable, set before the library is opened, also keeps ONNX Runtime from
      // writing its telemetry session file into $TMPDIR).
      if let status = api.disableTelemetryEvents(environment) { api.releaseStatus(status) }
      let cpuMemory: OpaquePointer
      do {
        // OrtDeviceAllocator (0), OrtMemTypeDefault (0).
        cpuMemory = try api.make("CreateCpuMemoryInfo") { api.createCpuMemoryInfo(0, 0, $0) }
      } catch {
        api.releaseEnv(environment)
        throw error
      }
      var allocator: UnsafeMutableRawPointer?
      let status = api.getAllocatorWithDefaultOptions(&allocator)
      guard status == nil, let allocator else {
        api.releaseMemoryInfo(cpuMemory)
        api.releaseEnv(environment)
        try api.check(status)
        throw ONNXRuntimeAPI.Failure(
          code: ONNXRuntimeAPI.errorFail, message: "GetAllocatorWithDefaultOptions returned NULL")
      }
      self.environment = Handle(environment)
      self.cpuMemory = Handle(cpuMemory)
      self.allocator = Handle(OpaquePointer(allocator))
    }

    // A library is cached for the life of the process (see `MoonshineRuntime.load`), so its
    // environment is never released: ONNX Runtime's own threads may still use it at exit.
  }

  /// The environment variable that names the ONNX Runtime library to use.
  public static let libraryEnvironmentVariable = "TRANSCRIBE_ONNXRUNTIME"

  /// The library's name on the system's library path (its SONAME).
  public static let libraryName = "libonnxruntime.so.1"

  /// Loads ONNX Runtime from `library`, or from the first place it is found (see the type's
  /// documentation); a library already loaded is returned at once.
  ///
  /// - Throws: `RecognitionFailure.runtimeUnavailable(engine: "Moonshine", reason:)` when no
  ///   library is found, a file is not ONNX Runtime, or it is older than 1.17; the reason says
  ///   what was tried and how to install it.
  public static func load(_ library: URL?) throws(RecognitionFailure) -> Library {
    try load(library, environment: ProcessInfo.processInfo.environment)
  }

  /// ``load(_:)`` with the environment given (for tests).
  static func load(
    _ library: URL?, environment: [String: String]
  ) throws(RecognitionFailure) -> Library {
    let candidates: [String]
    let isExplicit: Bool
    if let library {
      candidates = [library.path]
      isExplicit = true
    } else if let path = environment[libraryEnvironmentVariable], !path.isEmpty {
      candidates = [path]
      isExplicit = true
    } else {
      candidates = searchPaths(environment: environment)
      isExplicit = false
    }
    return try libraries.withLock { (loaded) throws(RecognitionFailure) -> Library in
      var problems: [String] = []
      for candidate in candidates {
        if let library = loaded[candidate] { return library }
        // A bare name goes to the dynamic loader's search; a path must exist.
        if candidate.contains("/"), !FileManager.default.fileExists(atPath: candidate) {
          if isExplicit { problems.append("\(candidate) does not exist") }
          continue
        }
        switch open(candidate) {
        case let .success(library):
          loaded[candidate] = library
          return library
        case let .failure(problem):
          problems.append(problem.description)
        }
      }
      if !isExplicit {
        problems.insert("looked in \(candidates.joined(separator: ", "))", at: 0)
      }
      throw .runtimeUnavailable(
        engine: "Moonshine",
        reason: "ONNX Runtime (1.17 or later) was not found: " + problems.joined(separator: "; ")
          + (Installation.current == .debianPackage
            ? "; \(Installation.current.reinstallEnglishEngine)"
            : ". Install it with `pip install onnxruntime` or `./scripts/install-dependencies.sh`")
          + (isExplicit ? "" : ", or name the library in $\(libraryEnvironmentVariable)"))
    }
  }

  /// Whether Moonshine can run: ONNX Runtime loads and the model directory has the model's files.
  /// Cheap enough to call when choosing the default engine (the library is loaded once).
  public static func isInstalled(
    modelDirectory: URL = MoonshineConfiguration.defaultModelDirectory
  ) -> Bool {
    guard (try? MoonshineModelFiles(directory: modelDirectory)) != nil else { return false }
    return (try? load(nil)) != nil
  }

  /// Where to look when no library was named, in order.
  static func searchPaths(environment: [String: String]) -> [String] {
    let home =
      environment["HOME"].map { URL(fileURLWithPath: $0) }
      ?? FileManager.default.homeDirectoryForCurrentUser
    var paths = [
      home.appendingPathComponent(".local/lib/transcribe/\(libraryName)").path,
      "/usr/local/lib/transcribe/\(libraryName)",
      // The Debian package's copy (`debian/`).
      "/usr/lib/transcribe/\(libraryName)",
      libraryName,
    ]
    // pip installs: <prefix>/lib/python3.*/{site,dist}-packages/onnxruntime/capi/.
    var prefixes: [URL] = []
    if let virtualEnvironment = environment["VIRTUAL_ENV"] {
      prefixes.append(URL(fileURLWithPath: virtualEnvironment))
    }
    prefixes.append(home.appendingPathComponent(".local"))
    let pyenv = URL(
      fileURLWithPath: environment["PYENV_ROOT"] ?? home.appendingPathComponent(".pyenv").path)
    prefixes += subdirectories(of: pyenv.appendingPathComponent("versions"))
    prefixes += [URL(fileURLWithPath: "/usr/local"), URL(fileURLWithPath: "/usr")]
    for prefix in prefixes {
      for python in subdirectories(of: prefix.appendingPathComponent("lib"))
      where python.lastPathComponent.hasPrefix("python3") {
        for packages in ["site-packages", "dist-packages"] {
          let capi = python.appendingPathComponent("\(packages)/onnxruntime/capi")
          let names = (try? FileManager.default.contentsOfDirectory(atPath: capi.path)) ?? []
          // The newest first: libonnxruntime.so.1.32.0 before libonnxruntime.so.1.17.3.
          for name in names.filter({ $0.hasPrefix(libraryName) }).sorted(by: isNewer) {
            paths.append(capi.appendingPathComponent(name).path)
          }
        }
      }
    }
    return paths
  }

  private static func subdirectories(of directory: URL) -> [URL] {
    let names = (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    return names.sorted(by: isNewer).map { directory.appendingPathComponent($0) }
  }

  /// Orders names with version numbers newest first (`3.12.1` before `3.9.0`).
  private static func isNewer(_ left: String, _ right: String) -> Bool {
    left.compare(right, options: .numeric) == .orderedDescending
  }

  /// The libraries loaded so far, by the path they were asked for.
  private static let libraries = Mutex<[String: Library]>([:])

  /// Opens one library and checks it is a recent enough ONNX Runtime; the error says why not.
  private static func open(_ path: String) -> Result<Library, ProblemDescription> {
    // ONNX Runtime 1.32's Linux build carries Microsoft's telemetry client, which CreateEnv
    // starts (writing $TMPDIR/.ses) unless ORT_DISABLE_TELEMETRY is set. Set it, unless the
    // user chose otherwise, before the first environment; nothing reads it concurrently then.
    setenv("ORT_DISABLE_TELEMETRY", "1", 0)
    guard let handle = dlopen(path, RTLD_NOW | RTLD_LOCAL) else {
      let error = dlerror().map { String(cString: $0) } ?? "unknown error"
      return .failure(ProblemDescription("\(path) could not be loaded (\(error))"))
    }
    typealias GetApiBase = @convention(c) () -> UnsafeRawPointer?
    guard let symbol = dlsym(handle, "OrtGetApiBase") else {
      dlclose(handle)
      return .failure(ProblemDescription("\(path) is not ONNX Runtime (it has no OrtGetApiBase)"))
    }
    let getApiBase = unsafeBitCast(symbol, to: GetApiBase.self)
    guard let base = getApiBase() else {
      return .failure(ProblemDescription("\(path): OrtGetApiBase returned NULL"))
    }
    // struct OrtApiBase { const OrtApi* (*GetApi)(uint32_t); const char* (*GetVersionString)(void); }
    typealias GetApi = @convention(c) (UInt32) -> UnsafeRawPointer?
    typealias GetVersionString = @convention(c) () -> UnsafePointer<CChar>?
    let pointerSize = MemoryLayout<UnsafeRawPointer>.stride
    let getApi = unsafeBitCast(
      base.load(fromByteOffset: 0, as: UnsafeRawPointer.self), to: GetApi.self)
    let getVersionString = unsafeBitCast(
      base.load(fromByteOffset: pointerSize, as: UnsafeRawPointer.self), to: GetVersionString.self)
    let version = getVersionString().map { String(cString: $0) } ?? "unknown"
    guard let table = getApi(ONNXRuntimeAPI.version) else {
      return .failure(
        ProblemDescription(
          "\(path) is ONNX Runtime \(version), too old: Moonshine needs 1.17 or later"))
    }
    do {
      let library = try Library(path: path, version: version, api: ONNXRuntimeAPI(table: table))
      return .success(library)
    } catch {
      return .failure(ProblemDescription("\(path): \(error.message)"))
    }
  }
}

/// A reason a candidate library was not used.
struct ProblemDescription: Error, CustomStringConvertible {
  var description: String
  init(_ description: String) { self.description = description }
}

/// An ONNX Runtime object pointer that may be shared between threads: the objects kept in one
/// (environment, sessions, memory info, allocator) are safe to use from several threads at once.
struct Handle: @unchecked Sendable {
  let pointer: OpaquePointer
  init(_ pointer: OpaquePointer) { self.pointer = pointer }
}
