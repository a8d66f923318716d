import CPulseAudio
import Foundation

/// A connection to a PulseAudio server on a private mainloop that the owning thread polls.
///
/// libpulse-simple would be shorter, but its calls cannot be bounded or interrupted:
/// `pa_simple_new` blocks 30 s against a hung server and `pa_simple_read` forever against a
/// stopped one, and freeing it from another thread while it blocks is unsafe. Polling our own
/// `pa_mainloop` with a timeout gives a real connect timeout, a no-audio watchdog, and a stop
/// that wakes the poll (`pa_mainloop_wakeup` is thread-safe), after which everything is freed on
/// the owning thread.
///
/// Not thread-safe: one thread creates, polls and frees it.
final class PulseConnection {
  /// Why connecting failed.
  struct ConnectError: Error, Equatable {
    /// The libpulse error code (`PA_ERR_…`).
    var code: Int32
    /// A description naming the server and the server's error text.
    var message: String

    /// The access was refused (authentication or permissions), rather than no server answering.
    var isAccessDenied: Bool {
      code == Int32(PA_ERR_ACCESS.rawValue) || code == Int32(PA_ERR_AUTHKEY.rawValue)
    }

    var failure: AudioInputFailure { .audioServerUnreachable(message) }
  }

  let mainloop: OpaquePointer
  let context: OpaquePointer
  /// The server as configured, for messages.
  let serverDescription: String

  /// Connects, giving up after `timeout` seconds or when `stopSignal` is raised.
  init(
    server: String?, timeout: Duration, stopSignal: StopSignal? = nil
  ) throws(ConnectError) {
    let description = Self.describe(server: server)
    guard let mainloop = pa_mainloop_new() else {
      throw ConnectError(
        code: Int32(PA_ERR_INTERNAL.rawValue), message: "could not create a PulseAudio mainloop")
    }
    guard let context = pa_context_new(pa_mainloop_get_api(mainloop), "transcribe") else {
      pa_mainloop_free(mainloop)
      throw ConnectError(
        code: Int32(PA_ERR_INTERNAL.rawValue), message: "could not create a PulseAudio context")
    }
    self.mainloop = mainloop
    self.context = context
    self.serverDescription = description

    guard pa_context_connect(context, server, PA_CONTEXT_NOAUTOSPAWN, nil) >= 0 else {
      throw connectError()
    }
    let deadline = ContinuousClock.now + timeout
    try runUntil(deadline: deadline, stopSignal: stopSignal) { () throws(ConnectError) in
      switch pa_context_get_state(context) {
      case PA_CONTEXT_READY: return true
      case PA_CONTEXT_FAILED, PA_CONTEXT_TERMINATED: throw connectError()
      default: return false
      }
    } onTimeout: {
      ConnectError(
        code: Int32(PA_ERR_TIMEOUT.rawValue),
        message:
          "\(description) did not answer within \(Self.seconds(timeout)) (is it hung or stopped?)"
      )
    }
  }

  deinit {
    pa_context_disconnect(context)
    pa_context_unref(context)
    pa_mainloop_free(mainloop)
  }

  /// The context's last error as text, e.g. "Connection refused".
  var errorText: String {
    String(cString: pa_strerror(pa_context_errno(context)))
  }

  /// The context's last error code.
  var errorCode: Int32 { pa_context_errno(context) }

  private func connectError() -> ConnectError {
    ConnectError(code: errorCode, message: "\(serverDescription): \(errorText)")
  }

  /// Polls the mainloop once, dispatching whatever is ready, waiting at most `timeout` seconds.
  ///
  /// - Returns: `false` if the mainloop cannot be polled any more.
  @discardableResult
  func iterate(timeout: Duration) -> Bool {
    let microseconds = max(0, min(timeout, .seconds(1000)) / .microseconds(1))
    guard pa_mainloop_prepare(mainloop, Int32(microseconds)) >= 0 else {
      return false
    }
    if pa_mainloop_poll(mainloop) < 0, errno != EINTR { return false }
    return pa_mainloop_dispatch(mainloop) >= 0
  }

  /// Polls until `isDone` returns true, the deadline passes (throwing `onTimeout()`), or
  /// `stopSignal` is raised (throwing `onTimeout()` too: the caller gave up waiting).
  func runUntil<E: Error>(
    deadline: ContinuousClock.Instant,
    stopSignal: StopSignal?,
    _ isDone: () throws(E) -> Bool,
    onTimeout: () -> E
  ) throws(E) {
    func poll() throws(E) {
      while try !isDone() {
        let remaining = deadline - ContinuousClock.now
        if remaining <= .zero || stopSignal?.isStopped == true { throw onTimeout() }
        guard iterate(timeout: min(remaining, .milliseconds(100))) else { throw onTimeout() }
      }
    }
    if let stopSignal {
      let wake = UncheckedSendable(mainloop)
      try stopSignal.withWaker({ pa_mainloop_wakeup(wake.value) }) { () throws(E) in try poll() }
    } else {
      try poll()
    }
  }

  /// Waits for an operation to complete.
  func wait<E: Error>(
    for operation: OpaquePointer, deadline: ContinuousClock.Instant,
    stopSignal: StopSignal? = nil, onTimeout: () -> E
  ) throws(E) {
    defer { pa_operation_unref(operation) }
    try runUntil(deadline: deadline, stopSignal: stopSignal) { () throws(E) -> Bool in
      switch pa_operation_get_state(operation) {
      case PA_OPERATION_RUNNING:
        if pa_context_get_state(context) != PA_CONTEXT_READY { throw onTimeout() }
        return false
      default: return true
      }
    } onTimeout: {
      pa_operation_cancel(operation)
      return onTimeout()
    }
  }

  /// The server as messages name it: the address given, or the one `PULSE_SERVER` names (which
  /// libpulse uses when none is given), or the user's default server.
  static func describe(
    server: String?, environment: [String: String] = ProcessInfo.processInfo.environment
  ) -> String {
    if let server { return "audio server \(server)" }
    if let variable = environment["PULSE_SERVER"], !variable.isEmpty {
      return "audio server \(variable) (from PULSE_SERVER)"
    }
    return "default audio server"
  }

  /// A duration as messages write it: "2 s", "0.5 s".
  static func seconds(_ duration: Duration) -> String {
    let interval = duration.timeInterval
    return interval == interval.rounded() ? "\(Int(interval)) s" : "\(interval) s"
  }
}

/// Carries a value that is not `Sendable` to a closure that must be, where the code guarantees
/// the access is safe (here: `pa_mainloop_wakeup`, which libpulse documents as thread-safe).
struct UncheckedSendable<Value>: @unchecked Sendable {
  var value: Value
  init(_ value: Value) { self.value = value }
}
