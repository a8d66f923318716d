import Foundation

/// The part of ONNX Runtime's C API this module calls, read from the function table that
/// `OrtGetApiBase()->GetApi(version)` returns.
///
/// No header is needed: the table (`struct OrtApi` in `onnxruntime_c_api.h`) is an array of C
/// function pointers in declaration order, and it only ever grows at the end, so an entry's index
/// is the same in every runtime that supports the requested version. Only the entries called here
/// are declared; each carries its index in the header's order (counted from `CreateStatus` = 0).
/// The tests check the indices by calling through them (a status round trip, a session's input
/// names, a tensor's shape).
///
/// Every `OrtStatus*` a call returns is turned into a Swift error and released
/// (``ONNXRuntimeAPI/check(_:)``); every object created is released by its owner.
struct ONNXRuntimeAPI: @unchecked Sendable {
  // The function table never changes and every function in it may be called from any thread,
  // so sharing the struct across threads is safe.

  typealias Status = OpaquePointer?
  typealias Out<T> = UnsafeMutablePointer<T>
  typealias CString = UnsafePointer<CChar>

  /// The API version asked for: ONNX Runtime 1.17 (the first that reads the model's IR version
  /// 10). Every entry below exists since API version 13 or earlier.
  static let version: UInt32 = 17

  // MARK: The table's entries (index in `struct OrtApi`)

  /// 0 `CreateStatus(OrtErrorCode, const char*)`.
  let createStatus: @convention(c) (UInt32, CString) -> OpaquePointer?
  /// 1 `GetErrorCode(const OrtStatus*)`.
  let getErrorCode: @convention(c) (OpaquePointer) -> UInt32
  /// 2 `GetErrorMessage(const OrtStatus*)`.
  let getErrorMessage: @convention(c) (OpaquePointer) -> CString?
  /// 3 `CreateEnv(OrtLoggingLevel, const char* logid, OrtEnv**)`.
  let createEnv: @convention(c) (UInt32, CString, Out<OpaquePointer?>) -> Status
  /// 6 `DisableTelemetryEvents(const OrtEnv*)`.
  let disableTelemetryEvents: @convention(c) (OpaquePointer) -> Status
  /// 7 `CreateSession(const OrtEnv*, const char* path, const OrtSessionOptions*, OrtSession**)`.
  let createSession:
    @convention(c) (OpaquePointer, CString, OpaquePointer, Out<OpaquePointer?>) -> Status
  /// 9 `Run(session, run_options, input_names, inputs, input_len, output_names, output_len,
  /// outputs)`.
  let run:
    @convention(c) (
      OpaquePointer, OpaquePointer?, UnsafePointer<CString?>, UnsafePointer<OpaquePointer?>, Int,
      UnsafePointer<CString?>, Int, Out<OpaquePointer?>
    ) -> Status
  /// 10 `CreateSessionOptions(OrtSessionOptions**)`.
  let createSessionOptions: @convention(c) (Out<OpaquePointer?>) -> Status
  /// 13 `SetSessionExecutionMode(OrtSessionOptions*, ExecutionMode)`.
  let setSessionExecutionMode: @convention(c) (OpaquePointer, UInt32) -> Status
  /// 17 `DisableMemPattern(OrtSessionOptions*)`.
  let disableMemPattern: @convention(c) (OpaquePointer) -> Status
  /// 19 `DisableCpuMemArena(OrtSessionOptions*)`.
  let disableCpuMemArena: @convention(c) (OpaquePointer) -> Status
  /// 23 `SetSessionGraphOptimizationLevel(OrtSessionOptions*, GraphOptimizationLevel)`.
  let setSessionGraphOptimizationLevel: @convention(c) (OpaquePointer, UInt32) -> Status
  /// 24 `SetIntraOpNumThreads(OrtSessionOptions*, int)`.
  let setIntraOpNumThreads: @convention(c) (OpaquePointer, Int32) -> Status
  /// 25 `SetInterOpNumThreads(OrtSessionOptions*, int)`.
  let setInterOpNumThreads: @convention(c) (OpaquePointer, Int32) -> Status
  /// 30 `SessionGetInputCount(const OrtSession*, size_t*)`.
  let sessionGetInputCount: @convention(c) (OpaquePointer, Out<Int>) -> Status
  /// 31 `SessionGetOutputCount(const OrtSession*, size_t*)`.
  let sessionGetOutputCount: @convention(c) (OpaquePointer, Out<Int>) -> Status
  /// 33 `SessionGetInputTypeInfo(const OrtSession*, size_t, OrtTypeInfo**)`.
  let sessionGetInputTypeInfo: @convention(c) (OpaquePointer, Int, Out<OpaquePointer?>) -> Status
  /// 36 `SessionGetInputName(const OrtSession*, size_t, OrtAllocator*, char**)`.
  let sessionGetInputName:
    @convention(c) (OpaquePointer, Int, UnsafeMutableRawPointer, Out<UnsafeMutablePointer<CChar>?>)
      -> Status
  /// 37 `SessionGetOutputName(const OrtSession*, size_t, OrtAllocator*, char**)`.
  let sessionGetOutputName:
    @convention(c) (OpaquePointer, Int, UnsafeMutableRawPointer, Out<UnsafeMutablePointer<CChar>?>)
      -> Status
  /// 49 `CreateTensorWithDataAsOrtValue(const OrtMemoryInfo*, void* data, size_t bytes,
  /// const int64_t* shape, size_t rank, ONNXTensorElementDataType, OrtValue**)`.
  let createTensorWithDataAsOrtValue:
    @convention(c) (
      OpaquePointer, UnsafeMutableRawPointer, Int, UnsafePointer<Int64>, Int, UInt32,
      Out<OpaquePointer?>
    ) -> Status
  /// 51 `GetTensorMutableData(OrtValue*, void**)`.
  let getTensorMutableData: @convention(c) (OpaquePointer, Out<UnsafeMutableRawPointer?>) -> Status
  /// 55 `CastTypeInfoToTensorInfo(const OrtTypeInfo*, const OrtTensorTypeAndShapeInfo**)`.
  let castTypeInfoToTensorInfo: @convention(c) (OpaquePointer, Out<OpaquePointer?>) -> Status
  /// 60 `GetTensorElementType(const OrtTensorTypeAndShapeInfo*, ONNXTensorElementDataType*)`.
  let getTensorElementType: @convention(c) (OpaquePointer, Out<UInt32>) -> Status
  /// 61 `GetDimensionsCount(const OrtTensorTypeAndShapeInfo*, size_t*)`.
  let getDimensionsCount: @convention(c) (OpaquePointer, Out<Int>) -> Status
  /// 62 `GetDimensions(const OrtTensorTypeAndShapeInfo*, int64_t*, size_t)`.
  let getDimensions: @convention(c) (OpaquePointer, Out<Int64>, Int) -> Status
  /// 65 `GetTensorTypeAndShape(const OrtValue*, OrtTensorTypeAndShapeInfo**)`.
  let getTensorTypeAndShape: @convention(c) (OpaquePointer, Out<OpaquePointer?>) -> Status
  /// 69 `CreateCpuMemoryInfo(OrtAllocatorType, OrtMemType, OrtMemoryInfo**)`.
  let createCpuMemoryInfo: @convention(c) (Int32, Int32, Out<OpaquePointer?>) -> Status
  /// 76 `AllocatorFree(OrtAllocator*, void*)`.
  let allocatorFree: @convention(c) (UnsafeMutableRawPointer, UnsafeMutableRawPointer?) -> Status
  /// 78 `GetAllocatorWithDefaultOptions(OrtAllocator**)`.
  let getAllocatorWithDefaultOptions: @convention(c) (Out<UnsafeMutableRawPointer?>) -> Status
  /// 92 `ReleaseEnv`.
  let releaseEnv: @convention(c) (OpaquePointer?) -> Void
  /// 93 `ReleaseStatus`.
  let releaseStatus: @convention(c) (OpaquePointer?) -> Void
  /// 94 `ReleaseMemoryInfo`.
  let releaseMemoryInfo: @convention(c) (OpaquePointer?) -> Void
  /// 95 `ReleaseSession`.
  let releaseSession: @convention(c) (OpaquePointer?) -> Void
  /// 96 `ReleaseValue`.
  let releaseValue: @convention(c) (OpaquePointer?) -> Void
  /// 98 `ReleaseTypeInfo`.
  let releaseTypeInfo: @convention(c) (OpaquePointer?) -> Void
  /// 99 `ReleaseTensorTypeAndShapeInfo`.
  let releaseTensorTypeAndShapeInfo: @convention(c) (OpaquePointer?) -> Void
  /// 100 `ReleaseSessionOptions`.
  let releaseSessionOptions: @convention(c) (OpaquePointer?) -> Void
  /// 130 `AddSessionConfigEntry(OrtSessionOptions*, const char* key, const char* value)`.
  let addSessionConfigEntry: @convention(c) (OpaquePointer, CString, CString) -> Status

  /// The highest index read: the table must have at least this many entries + 1.
  static let lastIndex = 130

  /// Reads the entries from the table `GetApi` returned.
  init(table: UnsafeRawPointer) {
    func entry<F>(_ index: Int, _: F.Type = F.self) -> F {
      let pointer = table.load(
        fromByteOffset: index * MemoryLayout<UnsafeRawPointer>.stride, as: UnsafeRawPointer.self)
      return unsafeBitCast(pointer, to: F.self)
    }
    createStatus = entry(0)
    getErrorCode = entry(1)
    getErrorMessage = entry(2)
    createEnv = entry(3)
    disableTelemetryEvents = entry(6)
    createSession = entry(7)
    run = entry(9)
    createSessionOptions = entry(10)
    setSessionExecutionMode = entry(13)
    disableMemPattern = entry(17)
    disableCpuMemArena = entry(19)
    setSessionGraphOptimizationLevel = entry(23)
    setIntraOpNumThreads = entry(24)
    setInterOpNumThreads = entry(25)
    sessionGetInputCount = entry(30)
    sessionGetOutputCount = entry(31)
    sessionGetInputTypeInfo = entry(33)
    sessionGetInputName = entry(36)
    sessionGetOutputName = entry(37)
    createTensorWithDataAsOrtValue = entry(49)
    getTensorMutableData = entry(51)
    castTypeInfoToTensorInfo = entry(55)
    getTensorElementType = entry(60)
    getDimensionsCount = entry(61)
    getDimensions = entry(62)
    getTensorTypeAndShape = entry(65)
    createCpuMemoryInfo = entry(69)
    allocatorFree = entry(76)
    getAllocatorWithDefaultOptions = entry(78)
    releaseEnv = entry(92)
    releaseStatus = entry(93)
    releaseMemoryInfo = entry(94)
    releaseSession = entry(95)
    releaseValue = entry(96)
    releaseTypeInfo = entry(98)
    releaseTensorTypeAndShapeInfo = entry(99)
    releaseSessionOptions = entry(100)
    addSessionConfigEntry = entry(130)
  }

  // MARK: Constants from the header

  /// `ONNXTensorElementDataType` values.
  enum ElementType: UInt32 {
    case float = 1
    case int64 = 7
    case bool = 9
  }

  /// `OrtLoggingLevel.ORT_LOGGING_LEVEL_ERROR`.
  static let loggingLevelError: UInt32 = 3
  /// `GraphOptimizationLevel.ORT_ENABLE_ALL`.
  static let optimizationAll: UInt32 = 99
  /// `ExecutionMode.ORT_SEQUENTIAL`.
  static let sequential: UInt32 = 0
  /// `OrtErrorCode.ORT_FAIL`.
  static let errorFail: UInt32 = 1

  // MARK: Helpers

  /// An error ONNX Runtime reported: its message (and code).
  struct Failure: Error, CustomStringConvertible {
    var code: UInt32
    var message: String
    var description: String { message }
  }

  /// Throws the status's message when a call failed, releasing the status either way.
  func check(_ status: Status) throws(Failure) {
    guard let status else { return }
    defer { releaseStatus(status) }
    throw Failure(code: getErrorCode(status), message: message(of: status))
  }

  /// A status's message (the status is not released).
  func message(of status: OpaquePointer) -> String {
    getErrorMessage(status).map { String(cString: $0) } ?? "unknown ONNX Runtime error"
  }

  /// Calls a function that creates an object through an out-parameter and returns the object.
  func make(
    _ what: String, _ body: (Out<OpaquePointer?>) -> Status
  ) throws(Failure) -> OpaquePointer {
    var object: OpaquePointer?
    try check(body(&object))
    guard let object else { throw Failure(code: Self.errorFail, message: "\(what) returned NULL") }
    return object
  }

  /// The shape of a tensor value.
  func shape(of value: OpaquePointer) throws(Failure) -> [Int64] {
    let info = try make("GetTensorTypeAndShape") { getTensorTypeAndShape(value, $0) }
    defer { releaseTensorTypeAndShapeInfo(info) }
    return try dimensions(of: info)
  }

  /// The dimensions of a tensor type-and-shape info (-1 for symbolic ones).
  func dimensions(of info: OpaquePointer) throws(Failure) -> [Int64] {
    var count = 0
    try check(getDimensionsCount(info, &count))
    var dimensions = [Int64](repeating: 0, count: count)
    try check(getDimensions(info, &dimensions, count))
    return dimensions
  }

  /// A tensor value's data, read and written in place.
  func data(of value: OpaquePointer) throws(Failure) -> UnsafeMutableRawPointer {
    var data: UnsafeMutableRawPointer?
    try check(getTensorMutableData(value, &data))
    guard let data else {
      throw Failure(code: Self.errorFail, message: "GetTensorMutableData returned NULL")
    }
    return data
  }
}
