import Foundation
import Recognition
import Testing

@testable import Moonshine

@Suite struct RuntimeTests {
  /// On CI the model tests must run, not be skipped.
  @Test(
    .enabled(
      if: ProcessInfo.processInfo.environment["CI"] != nil,
      "checks what CI installed; CI sets CI=1"))
  func continuousIntegrationHasTheModel() {
    #expect(
      isModelInstalled,
      "CI must install ONNX Runtime and the Moonshine model: ./scripts/install-dependencies.sh")
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func statusFunctionsRoundTripAMessage() throws {
    let library = try MoonshineRuntime.load(nil)
    let api = library.api
    // CreateStatus (0), GetErrorCode (1), GetErrorMessage (2), ReleaseStatus (93).
    let status = try #require(api.createStatus(2, "a message from the test"))
    #expect(api.getErrorCode(status) == 2)
    #expect(api.message(of: status) == "a message from the test")
    api.releaseStatus(status)
    #expect(throws: ONNXRuntimeAPI.Failure.self) {
      try api.check(api.createStatus(ONNXRuntimeAPI.errorFail, "fails"))
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func versionMatchesTheLibrary() throws {
    let library = try MoonshineRuntime.load(nil)
    let parts = library.version.split(separator: ".").compactMap { Int($0) }
    #expect(parts.count == 3)
    #expect(parts.first == 1 && parts[1] >= 17)
    let file = try #require(library.path.split(separator: "/").last)
    if file.hasPrefix("libonnxruntime.so.1.") {
      #expect(file == "libonnxruntime.so.\(library.version)")
    }
    // Loaded once per process.
    #expect(try MoonshineRuntime.load(nil) === library)
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func sessionsReadTheirNamesAndShapes() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    #expect(model.encoder.inputNames == ["input_values"])
    #expect(model.encoder.outputNames.first == "last_hidden_state")
    // SessionGetInputTypeInfo, CastTypeInfoToTensorInfo, GetDimensions.
    #expect(try model.encoder.inputDimensions(0) == [-1, -1])
    #expect(try model.encoder.inputElementType(0) == ONNXRuntimeAPI.ElementType.float.rawValue)
    let names = model.decoder.inputNames
    #expect(names.contains("input_ids"))
    #expect(names.contains("use_cache_branch"))
    #expect(names.filter { $0.hasPrefix("past_key_values.") }.count == 32)
    let past = try #require(names.firstIndex(of: "past_key_values.0.decoder.key"))
    let dimensions = try model.decoder.inputDimensions(past)
    #expect(dimensions.count == 4 && dimensions[1] == 8 && dimensions[3] == 52)
    // The converter hands the encoder's keys on transposed and scaled, as the attention reads
    // them: [batch, heads, size, frames]. A first step's empty pasts follow each input's shape.
    let key = try #require(names.firstIndex(of: "past_key_values.0.encoder.key"))
    let value = try #require(names.firstIndex(of: "past_key_values.0.encoder.value"))
    #expect(try model.decoder.inputDimensions(key) == [-1, 8, 52, -1])
    #expect(model.layout.emptyPastShapes[past] == [1, 8, 0, 52])
    #expect(model.layout.emptyPastShapes[key] == [1, 8, 52, 0])
    #expect(model.layout.emptyPastShapes[value] == [1, 8, 0, 52])
    #expect(model.layout.emptyPastShapes.count == 32)
    // CreateTensorWithDataAsOrtValue, Run, GetTensorTypeAndShape on a real run.
    let samples = [Float](repeating: 0, count: 16_000)
    let hidden = try samples.withUnsafeBufferPointer {
      try model.encode(UnsafeMutableRawPointer(mutating: $0.baseAddress!), count: $0.count)
    }
    defer { model.runtime.api.releaseValue(hidden) }
    let shape = try model.runtime.api.shape(of: hidden)
    #expect(shape.count == 3 && shape[0] == 1 && shape[2] == 416)
    #expect((38...46).contains(shape[1]))  // about samples / 384
  }

  @Test func aFirstStepsEmptyPastsFollowEachInputsLayout() {
    let shape = MoonshineModel.DecoderLayout.emptyPastShape
    // The decoder's own keys and values, and the encoder's values: [batch, heads, length, size].
    #expect(shape([-1, 8, -1, 52], false) == [1, 8, 0, 52])
    #expect(shape([-1, 8, -1, 52], true) == [1, 8, 0, 52])
    // Encoder keys stored transposed (format 4): [batch, heads, size, length].
    #expect(shape([-1, 8, 52, -1], true) == [1, 8, 52, 0])
    // The decoder's own keys are never transposed: their positions are cut by index 2.
    #expect(shape([-1, 8, 52, -1], false) == nil)
    // Neither layout: no heads, no fixed size, another rank.
    #expect(shape([-1, -1, -1, 52], true) == nil)
    #expect(shape([-1, 8, -1, -1], true) == nil)
    #expect(shape([-1, 8, 52], false) == nil)
  }

  @Test func aMissingLibraryIsReported() {
    let path = "/nonexistent/libonnxruntime.so.1"
    #expect {
      try MoonshineRuntime.load(URL(fileURLWithPath: path))
    } throws: { error in
      guard case let .runtimeUnavailable(engine, reason) = error as? RecognitionFailure else {
        return false
      }
      return engine == "Moonshine" && reason.contains(path) && reason.contains("does not exist")
        && reason.contains("pip install onnxruntime")
        && reason.contains("./scripts/install-dependencies.sh")
    }
  }

  @Test func theEnvironmentVariableNamesTheLibrary() {
    let path = "/nonexistent/from-the-environment/libonnxruntime.so.1"
    #expect {
      try MoonshineRuntime.load(nil, environment: ["TRANSCRIBE_ONNXRUNTIME": path])
    } throws: { error in
      guard case let .runtimeUnavailable(_, reason) = error as? RecognitionFailure else {
        return false
      }
      return reason.contains(path)
    }
  }

  @Test(.enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/cc")))
  func aRuntimeTooOldIsReportedWithItsVersion() throws {
    // A stand-in for ONNX Runtime 1.10: its GetApi knows no API version as recent as ours.
    let directory = FileManager.default.temporaryDirectory
      .appendingPathComponent("old-onnxruntime-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let source = directory.appendingPathComponent("old.c")
    let library = directory.appendingPathComponent("libonnxruntime.so.1")
    try """
    #include <stdint.h>
    #include <stddef.h>
    static const void *get_api(uint32_t version) { return NULL; }
    static const char *version_string(void) { return "1.10.0"; }
    static const struct { const void *(*get)(uint32_t); const char *(*version)(void); } base = {
      get_api, version_string };
    const void *OrtGetApiBase(void) { return &base; }
    """.write(to: source, atomically: true, encoding: .utf8)
    let cc = Process()
    cc.executableURL = URL(fileURLWithPath: "/usr/bin/cc")
    cc.arguments = ["-shared", "-fPIC", "-o", library.path, source.path]
    try cc.run()
    cc.waitUntilExit()
    try #require(cc.terminationStatus == 0)
    #expect {
      try MoonshineRuntime.load(library)
    } throws: { error in
      guard case let .runtimeUnavailable(_, reason) = error as? RecognitionFailure else {
        return false
      }
      return reason.contains("ONNX Runtime 1.10.0, too old") && reason.contains("1.17 or later")
    }
  }

  @Test func aLibraryThatIsNotONNXRuntimeIsReported() throws {
    let zlib = "/lib/x86_64-linux-gnu/libz.so.1"
    try #require(FileManager.default.fileExists(atPath: zlib))
    #expect {
      try MoonshineRuntime.load(URL(fileURLWithPath: zlib))
    } throws: { error in
      guard case let .runtimeUnavailable(_, reason) = error as? RecognitionFailure else {
        return false
      }
      return reason.contains("is not ONNX Runtime") && reason.contains("OrtGetApiBase")
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aRecognizerReportsAMissingRuntime() {
    var configuration = installedConfiguration
    configuration.runtimeLibrary = URL(fileURLWithPath: "/lib/x86_64-linux-gnu/libz.so.1")
    #expect {
      try MoonshineRecognizer(configuration: configuration)
    } throws: { error in
      guard case .runtimeUnavailable = error as? RecognitionFailure else { return false }
      return true
    }
  }

  @Test func theSearchLooksWhereTheInstallScriptAndPipPutTheLibrary() throws {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let capi = home.appendingPathComponent(
      ".local/lib/python3.11/site-packages/onnxruntime/capi")
    try FileManager.default.createDirectory(at: capi, withIntermediateDirectories: true)
    for name in ["libonnxruntime.so.1.9.0", "libonnxruntime.so.1.17.1", "other.so"] {
      _ = FileManager.default.createFile(
        atPath: capi.appendingPathComponent(name).path, contents: nil)
    }
    let paths = MoonshineRuntime.searchPaths(environment: [
      "HOME": home.path, "PYENV_ROOT": home.appendingPathComponent("none").path,
    ])
    #expect(
      Array(paths.prefix(6)) == [
        home.appendingPathComponent(".local/lib/transcribe/libonnxruntime.so.1").path,
        "/usr/local/lib/transcribe/libonnxruntime.so.1",
        "/usr/lib/transcribe/libonnxruntime.so.1",
        "libonnxruntime.so.1",
        capi.appendingPathComponent("libonnxruntime.so.1.17.1").path,
        capi.appendingPathComponent("libonnxruntime.so.1.9.0").path,
      ])
  }
}
