import CProcessControl
import Foundation
import KeyboardClient

#if canImport(Glibc)
  import Glibc
#elseif canImport(Darwin)
  import Darwin
#endif

/// What one run of a tool printed, and how it ended.
struct ToolOutput: Sendable {
  /// The exit status, or the signal's number when ``signaled``.
  var status: Int32
  /// Whether a signal ended it (an abort, or our kill after the deadline).
  var signaled: Bool
  var standardOutput: String
  var standardError: String

  /// Whether it exited by itself with status 0.
  var succeeded: Bool { !signaled && status == 0 }

  /// The first non-empty line it printed to standard error (or standard output).
  var firstLine: String {
    let lines = (standardError + "\n" + standardOutput).split(whereSeparator: \.isNewline)
    return lines.first.map { $0.trimmingCharacters(in: .whitespaces) } ?? "no message"
  }
}

/// Runs the typing tools as child processes, never through a shell, in a given environment, each
/// run bounded by a deadline after which it is killed: a tool stuck on a frozen X server or
/// compositor must not hang dictation.
struct ToolRunner: Sendable {
  /// The environment the tools run in (`DISPLAY`, `WAYLAND_DISPLAY`, `PATH`, …).
  var environment: [String: String]
  /// What every run may take besides its keys' allowance.
  var baseDeadline: Duration = .seconds(5)

  /// Where `tool` is on the environment's `PATH`, or `nil`. Only absolute directories count: a
  /// relative entry (`.`, `bin`, or an empty one) names whatever directory dictation was started
  /// in, where anyone who can write there could put an `xdotool` that reads every word typed.
  func executable(_ tool: String) -> URL? {
    let path = environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin"
    for directory in path.split(separator: ":") where directory.hasPrefix("/") {
      let candidate = "\(directory)/\(tool)"
      if FileManager.default.isExecutableFile(atPath: candidate) {
        return URL(fileURLWithPath: candidate)
      }
    }
    return nil
  }

  /// How long a tool may take: the base allowance (5 s) plus 50 ms per key it presses (wtype
  /// needs 4.5 ms per key, xdotool 1 ms), so 300 characters get 20 s and a check 5 s.
  func deadline(keys: Int) -> Duration {
    baseDeadline + .milliseconds(50 * max(0, keys))
  }

  /// Runs `executable` with `arguments` and `input` on its standard input; throws
  /// ``KeyboardClientFailure/failed(tool:message:)`` when it cannot start or outlives `timeout`
  /// (it is then killed). Cancelling the task kills the tool too.
  func run(
    _ executable: URL, _ arguments: [String], input: Data? = nil, timeout: Duration
  ) async throws(KeyboardClientFailure) -> ToolOutput {
    let child = ChildProcess(executable: executable, arguments: arguments, environment: environment)
    let result = await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        // The blocking reads and waits run on a thread of their own, never the cooperative pool
        // (nor Dispatch's global queues, which have as few threads as cores and starved here).
        Thread {
          continuation.resume(returning: child.run(input: input, timeout: timeout))
        }.start()
      }
    } onCancel: {
      child.kill()
    }
    return try result.get()
  }

  /// ``run(_:_:input:timeout:)`` on the calling thread, for the checks made once at start.
  func runBlocking(
    _ executable: URL, _ arguments: [String], timeout: Duration
  ) throws(KeyboardClientFailure) -> ToolOutput {
    try ChildProcess(executable: executable, arguments: arguments, environment: environment)
      .run(input: nil, timeout: timeout).get()
  }
}

/// One child process: started, read, waited for and, past its deadline, killed.
///
/// Signals reach it through a pidfd (``ProcessHandle``), never by its pid alone: once the child
/// has exited and been reaped, its pid may belong to any other process.
private final class ChildProcess: @unchecked Sendable {
  private let process = Process()
  private let tool: String
  private let terminated = DispatchSemaphore(value: 0)
  /// The started child's pidfd; guarded by `lock`.
  private var handle: ProcessHandle?
  private let lock = NSLock()

  init(executable: URL, arguments: [String], environment: [String: String]) {
    tool = executable.lastPathComponent
    process.executableURL = executable
    process.arguments = arguments
    process.environment = environment
    process.terminationHandler = { [terminated] _ in terminated.signal() }
  }

  /// Runs the process on the calling thread (which it blocks) until it exits or is killed at
  /// `timeout`.
  func run(input: Data?, timeout: Duration) -> Result<ToolOutput, KeyboardClientFailure> {
    let output = Pipe()
    let errors = Pipe()
    let standardInput = Pipe()
    process.standardOutput = output
    process.standardError = errors
    process.standardInput = input == nil ? FileHandle.nullDevice : standardInput
    do {
      try process.run()
    } catch {
      return .failure(
        .failed(tool: tool, message: "could not start: \(error.localizedDescription)"))
    }
    let handle = ProcessHandle(process)
    lock.withLock { self.handle = handle }
    defer { lock.withLock { self.handle = nil } }
    let outputReader = PipeReader(output.fileHandleForReading)
    let errorReader = PipeReader(errors.fileHandleForReading)
    if let input {
      let writer = standardInput.fileHandleForWriting
      Thread {
        // A tool that exits without reading its input (one that refuses at once) must not end
        // this process by SIGPIPE: blocked on this thread, the write fails with EPIPE instead,
        // and the signal left pending dies with the thread.
        var pipeSignal = sigset_t()
        sigemptyset(&pipeSignal)
        sigaddset(&pipeSignal, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &pipeSignal, nil)
        try? writer.write(contentsOf: input)
        try? writer.close()
      }.start()
    }
    let seconds = Double(timeout.components.seconds) + Double(timeout.components.attoseconds) / 1e18
    var timedOut = false
    if terminated.wait(timeout: .now() + seconds) == .timedOut {
      timedOut = true
      handle.send(SIGTERM)
      if terminated.wait(timeout: .now() + 0.5) == .timedOut {
        handle.send(SIGKILL)
        terminated.wait()
      }
    }
    let outputData = outputReader.wait()
    let errorData = errorReader.wait()
    if timedOut {
      return .failure(
        .failed(
          tool: tool,
          message: "did not finish within \(String(format: "%.1f", seconds)) s and was stopped"))
    }
    return .success(
      ToolOutput(
        status: process.terminationStatus,
        signaled: process.terminationReason == .uncaughtSignal,
        standardOutput: String(decoding: outputData, as: UTF8.self),
        standardError: String(decoding: errorData, as: UTF8.self)))
  }

  /// Kills the process if it still runs (the task that waits for it was cancelled).
  func kill() {
    lock.withLock { handle?.send(SIGKILL) }
  }
}

/// A pidfd for a child process, open from just after its start until it has been waited for.
private final class ProcessHandle: @unchecked Sendable {
  private let process: Process
  /// The pidfd, or -1 when the kernel offers none (before Linux 5.3) or the process had ended.
  private let descriptor: Int32
  private let hasPidfd: Bool

  /// The pidfd of `process`, which has just started.
  init(_ process: Process) {
    self.process = process
    var descriptor = transcribe_pidfd_open(process.processIdentifier)
    hasPidfd = descriptor >= 0 || errno != ENOSYS
    // Foundation reaps the child when it exits; only until then is its pid surely its own. If
    // it still runs now, the pidfd names it; if not, there is nothing to signal.
    if descriptor >= 0, !process.isRunning {
      close(descriptor)
      descriptor = -1
    }
    self.descriptor = descriptor
  }

  /// Sends `signal`; a process that has exited meanwhile gets nothing (ESRCH).
  func send(_ signal: Int32) {
    if descriptor >= 0 {
      _ = transcribe_pidfd_send_signal(descriptor, signal)
    } else if !hasPidfd, process.isRunning {
      // A kernel without pidfds: the pid, while Foundation has not reaped the child.
      _ = kill(process.processIdentifier, signal)
    }
  }

  deinit {
    if descriptor >= 0 { close(descriptor) }
  }
}

/// Reads a pipe to its end on a thread of its own.
private final class PipeReader: @unchecked Sendable {
  private var data = Data()
  private let done = DispatchSemaphore(value: 0)

  init(_ handle: FileHandle) {
    Thread { [self] in
      data = (try? handle.readToEnd()) ?? Data()
      done.signal()
    }.start()
  }

  /// Everything the pipe carried, once its writer closed it.
  func wait() -> Data {
    done.wait()
    return data
  }
}
