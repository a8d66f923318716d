import Foundation
import LiveTestSupport
import Testing

extension VirtualMicrophone {
  /// The one shared server of this test process, started on first use; `nil` when PulseAudio
  /// cannot be started here (its tests are then skipped, except on CI, where they fail).
  static let shared: VirtualMicrophone? = {
    do {
      return try start("shared")
    } catch {
      print("virtual microphone unavailable: \(error)")
      return nil
    }
  }()
}

/// Stops the shared virtual microphone when the suite that used it ends.
struct StopsSharedVirtualMicrophone: SuiteTrait, TestScoping {
  func provideScope(
    for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void
  ) async throws {
    defer { VirtualMicrophone.shared?.stop() }
    try await function()
  }
}
