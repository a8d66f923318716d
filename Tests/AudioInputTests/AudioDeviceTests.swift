import Foundation
import LiveTestSupport
import Testing

@testable import AudioInput

@Suite(.serialized)
struct AudioDeviceTests {
  static let nowhere = "unix:/tmp/audioinput-no-server/native"

  @Test(
    .enabled(if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
  func devicesListTheVirtualMicrophoneAsDefault() throws {
    let server = try VirtualMicrophone.start("devices")
    defer { server.stop() }
    let devices = try AudioDevice.captureSources(PulseAudioSettings(server: server.server))
    let mic = try #require(devices.first { $0.name == "virtual_mic" })
    #expect(mic.description == "Virtual_Microphone")
    #expect(mic.isDefault)
    #expect(!mic.isMonitor)
    #expect(devices.contains { $0.name == "virtual_speaker.monitor" && $0.isMonitor })
  }

  @Test func listingDevicesWithoutServerIsUnreachable() throws {
    let error = #expect(throws: AudioInputFailure.self) {
      try AudioDevice.captureSources(PulseAudioSettings(server: Self.nowhere))
    }
    guard case .audioServerUnreachable = error else {
      Issue.record("expected audioServerUnreachable, got \(String(describing: error))")
      return
    }
  }
}
