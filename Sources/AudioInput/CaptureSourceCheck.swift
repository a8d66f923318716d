/// Whether a capture source can be recorded from, and why not.
public enum CaptureSourceCheck: Equatable, Sendable {
  /// The server answered and has the source.
  case available
  /// The server refused access (authentication or permissions).
  case accessDenied(AudioInputFailure)
  /// No server answered in time, or it has no such source (or no default source).
  case unavailable(AudioInputFailure)
  /// The stop signal was raised before the server answered.
  case stopped

  /// Asks the server whether `device` (or, for `nil`, its default source) exists.
  ///
  /// Blocks for at most ``PulseAudioSettings/connectTimeout``, or until `stopSignal` is raised:
  /// call it from a thread of its own.
  ///
  /// ```swift
  /// if case .unavailable(let failure) = CaptureSourceCheck.check(device: nil, PulseAudioSettings())
  /// {
  ///   print(failure)
  /// }
  /// ```
  public static func check(
    device: String?, _ settings: PulseAudioSettings, stopSignal: StopSignal? = nil
  ) -> CaptureSourceCheck {
    let check = uninterrupted(device: device, settings, stopSignal: stopSignal)
    return stopSignal?.isStopped == true ? .stopped : check
  }

  private static func uninterrupted(
    device: String?, _ settings: PulseAudioSettings, stopSignal: StopSignal?
  ) -> CaptureSourceCheck {
    let deadline = ContinuousClock.now + settings.connectTimeout
    let connection: PulseConnection
    do {
      connection = try PulseConnection(
        server: settings.server, timeout: settings.connectTimeout, stopSignal: stopSignal)
    } catch {
      return error.isAccessDenied ? .accessDenied(error.failure) : .unavailable(error.failure)
    }
    do throws(AudioInputFailure) {
      let name: String?
      if let device {
        name = device
      } else {
        name = try connection.defaultSourceName(deadline: deadline, stopSignal: stopSignal)
      }
      guard let name else {
        return .unavailable(
          .captureSourceMissing("\(connection.serverDescription) has no capture source"))
      }
      guard try connection.hasSource(named: name, deadline: deadline, stopSignal: stopSignal)
      else {
        return .unavailable(connection.sourceNotFound(name, deadline: deadline))
      }
    } catch {
      return .unavailable(error)
    }
    return .available
  }
}
