import Foundation

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// One loaded ONNX graph (`OrtSession`) with its input and output names, ready to run from any
/// number of threads at once (ONNX Runtime allows concurrent `Run` calls on one session).
///
/// The names are read from the session and kept as C strings for `Run`; `deinit` releases the
/// session and frees them.
final class ONNXRuntimeSession: @unchecked Sendable {
  // Everything here is immutable after `init`, and `OrtSession` is safe to run concurrently.
  let api: ONNXRuntimeAPI
  let session: OpaquePointer
  /// The graph's inputs, in the session's order (the order `run` takes values in).
  let inputNames: [String]
  /// The graph's outputs, in the session's order.
  let outputNames: [String]
  private let inputNamePointers: [UnsafePointer<CChar>?]
  private let outputNamePointers: [UnsafePointer<CChar>?]

  /// Loads a model file.
  ///
  /// - Throws: ONNX Runtime's error when it cannot load the file.
  init(
    library: MoonshineRuntime.Library, file: URL, options: OpaquePointer
  ) throws(ONNXRuntimeAPI.Failure) {
    let api = library.api
    let session = try api.make("CreateSession") {
      api.createSession(library.environment.pointer, file.path, options, $0)
    }
    do {
      let allocator = UnsafeMutableRawPointer(library.allocator.pointer)
      func names(
        count: (OpaquePointer, UnsafeMutablePointer<Int>) -> OpaquePointer?,
        name: (
          OpaquePointer, Int, UnsafeMutableRawPointer,
          UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>
        ) -> OpaquePointer?
      ) throws(ONNXRuntimeAPI.Failure) -> [String] {
        var total = 0
        try api.check(count(session, &total))
        var result: [String] = []
        for index in 0..<total {
          var pointer: UnsafeMutablePointer<CChar>?
          try api.check(name(session, index, allocator, &pointer))
          guard let pointer else { continue }
          result.append(String(cString: pointer))
          try api.check(api.allocatorFree(allocator, pointer))
        }
        return result
      }
      inputNames = try names(count: api.sessionGetInputCount, name: api.sessionGetInputName)
      outputNames = try names(count: api.sessionGetOutputCount, name: api.sessionGetOutputName)
    } catch {
      api.releaseSession(session)
      throw error
    }
    self.api = api
    self.session = session
    inputNamePointers = inputNames.map { UnsafePointer(strdup($0)) }
    outputNamePointers = outputNames.map { UnsafePointer(strdup($0)) }
  }

  deinit {
    api.releaseSession(session)
    for pointer in inputNamePointers + outputNamePointers {
      free(UnsafeMutablePointer(mutating: pointer))
    }
  }

  /// The declared dimensions of input `index` (-1 for symbolic ones).
  func inputDimensions(_ index: Int) throws(ONNXRuntimeAPI.Failure) -> [Int64] {
    let typeInfo = try api.make("SessionGetInputTypeInfo") {
      api.sessionGetInputTypeInfo(session, index, $0)
    }
    defer { api.releaseTypeInfo(typeInfo) }
    // Owned by the type info: not released.
    let tensorInfo = try api.make("CastTypeInfoToTensorInfo") {
      api.castTypeInfoToTensorInfo(typeInfo, $0)
    }
    return try api.dimensions(of: tensorInfo)
  }

  /// The element type of input `index` (an `ONNXTensorElementDataType` value).
  func inputElementType(_ index: Int) throws(ONNXRuntimeAPI.Failure) -> UInt32 {
    let typeInfo = try api.make("SessionGetInputTypeInfo") {
      api.sessionGetInputTypeInfo(session, index, $0)
    }
    defer { api.releaseTypeInfo(typeInfo) }
    let tensorInfo = try api.make("CastTypeInfoToTensorInfo") {
      api.castTypeInfoToTensorInfo(typeInfo, $0)
    }
    var type: UInt32 = 0
    try api.check(api.getTensorElementType(tensorInfo, &type))
    return type
  }

  /// Runs the graph.
  ///
  /// - Parameters:
  ///   - inputs: one value per input, in ``inputNames`` order (the caller keeps ownership).
  ///   - outputs: the indices (into ``outputNames``) of the outputs wanted.
  /// - Returns: the outputs' values, in the order asked for; the caller releases them.
  func run(
    _ inputs: [OpaquePointer?], outputs: [Int]
  ) throws(ONNXRuntimeAPI.Failure) -> [OpaquePointer] {
    precondition(inputs.count == inputNamePointers.count)
    let names = outputs.map { outputNamePointers[$0] }
    var values = [OpaquePointer?](repeating: nil, count: outputs.count)
    let status = api.run(
      session, nil, inputNamePointers, inputs, inputs.count, names, names.count, &values)
    do {
      try api.check(status)
    } catch {
      for value in values { api.releaseValue(value) }
      throw error
    }
    return values.map { $0! }
  }
}
