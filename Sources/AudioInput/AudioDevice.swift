import CPulseAudio
import Foundation

/// A capture source of the PulseAudio server, as `transcribe --list-devices` shows it.
public struct AudioDevice: Equatable, Sendable, Identifiable {
  /// The server's name for the source; pass it as `SpeechRecognitionRequest.AudioSource.device`.
  public var name: String
  /// A human-readable description, e.g. "Built-in Audio Analog Stereo".
  public var description: String
  /// Whether the source records what a sink plays (a "monitor") rather than a microphone.
  public var isMonitor: Bool
  /// Whether it is the server's default source, used by `.microphone`.
  public var isDefault: Bool

  /// The source's server name.
  public var id: String { name }

  /// Creates a device description.
  public init(name: String, description: String, isMonitor: Bool, isDefault: Bool) {
    self.name = name
    self.description = description
    self.isMonitor = isMonitor
    self.isDefault = isDefault
  }

  /// The capture sources of a PulseAudio server, in the server's order.
  ///
  /// Blocks while it asks the server (at most ``PulseAudioSettings/connectTimeout``): call it
  /// from a thread of its own, not from Swift's cooperative pool.
  ///
  /// ```swift
  /// for device in try AudioDevice.captureSources(PulseAudioSettings()) {
  ///   print(device.isDefault ? "*" : " ", device.name, "-", device.description)
  /// }
  /// ```
  ///
  /// - Throws: `AudioInputFailure.audioServerUnreachable` when the server does not answer
  ///   within the connect timeout.
  public static func captureSources(
    _ settings: PulseAudioSettings
  ) throws(AudioInputFailure) -> [AudioDevice] {
    let timeout = settings.connectTimeout
    let deadline = ContinuousClock.now + timeout
    let connection: PulseConnection
    do {
      connection = try PulseConnection(server: settings.server, timeout: timeout)
    } catch {
      throw error.failure
    }
    return try connection.captureSources(deadline: deadline)
  }
}

extension PulseConnection {
  /// The server's capture sources, in its order, the default one marked.
  func captureSources(
    deadline: ContinuousClock.Instant
  ) throws(AudioInputFailure) -> [AudioDevice] {
    let defaultSource = try defaultSourceName(deadline: deadline)
    // The callback copies each source out at once: its strings live only during the callback.
    let sources = ValueBox<[AudioDevice]>([])
    let userData = Unmanaged.passUnretained(sources).toOpaque()
    guard
      let operation = pa_context_get_source_info_list(
        context,
        { _, info, endOfList, userData in
          guard endOfList == 0, let info = info?.pointee, let userData else { return }
          let name = info.name.map { String(cString: $0) } ?? ""
          Unmanaged<ValueBox<[AudioDevice]>>.fromOpaque(userData).takeUnretainedValue().value
            .append(
              AudioDevice(
                name: name,
                description: info.description.map { String(cString: $0) } ?? name,
                isMonitor: info.monitor_of_sink != UInt32.max,
                isDefault: false))
        },
        userData)
    else {
      throw .audioServerUnreachable("\(serverDescription): listing sources failed: \(errorText)")
    }
    try wait(for: operation, deadline: deadline) {
      AudioInputFailure.audioServerUnreachable(
        "\(serverDescription) did not list its sources in time")
    }
    return withExtendedLifetime(sources) {
      sources.value.map { device in
        var device = device
        device.isDefault = device.name == defaultSource
        return device
      }
    }
  }

  /// The failure for a capture source that does not exist: its name and the server's sources
  /// (monitors of outputs last), or just its name if they cannot be listed in time.
  func sourceNotFound(_ name: String, deadline: ContinuousClock.Instant) -> AudioInputFailure {
    let sources = (try? captureSources(deadline: deadline)) ?? []
    let ordered = sources.filter { !$0.isMonitor } + sources.filter(\.isMonitor)
    return .captureSourceNotFound(name: name, available: ordered.map(\.name))
  }

  /// The name of the server's default source, or `nil` if it has none.
  func defaultSourceName(
    deadline: ContinuousClock.Instant, stopSignal: StopSignal? = nil
  ) throws(AudioInputFailure) -> String? {
    let box = ValueBox<String?>(nil)
    let userData = Unmanaged.passUnretained(box).toOpaque()
    guard
      let operation = pa_context_get_server_info(
        context,
        { _, info, userData in
          guard let info, let userData, let name = info.pointee.default_source_name else { return }
          Unmanaged<ValueBox<String?>>.fromOpaque(userData).takeUnretainedValue().value =
            String(cString: name)
        },
        userData)
    else {
      throw .audioServerUnreachable("\(serverDescription): \(errorText)")
    }
    try wait(for: operation, deadline: deadline, stopSignal: stopSignal) {
      AudioInputFailure.audioServerUnreachable(
        "\(serverDescription) did not describe itself in time")
    }
    return withExtendedLifetime(box) { box.value }
  }

  /// Whether the server has a source with this name.
  func hasSource(
    named name: String, deadline: ContinuousClock.Instant, stopSignal: StopSignal? = nil
  ) throws(AudioInputFailure) -> Bool {
    let box = ValueBox(false)
    let userData = Unmanaged.passUnretained(box).toOpaque()
    guard
      let operation = pa_context_get_source_info_by_name(
        context, name,
        { _, info, endOfList, userData in
          guard endOfList == 0, info != nil, let userData else { return }
          Unmanaged<ValueBox<Bool>>.fromOpaque(userData).takeUnretainedValue().value = true
        },
        userData)
    else {
      throw .audioServerUnreachable("\(serverDescription): \(errorText)")
    }
    try wait(for: operation, deadline: deadline, stopSignal: stopSignal) {
      AudioInputFailure.audioServerUnreachable(
        "\(serverDescription) did not describe its sources in time")
    }
    return withExtendedLifetime(box) { box.value }
  }
}

/// A mutable value a C callback writes through its user-data pointer.
final class ValueBox<Value> {
  var value: Value
  init(_ value: Value) { self.value = value }
}
