import Foundation
import LiveTestSupport
import Testing

extension CommandTests {
  /// `transcribe serve --wyoming … --zeroconf NAME` against a real Avahi daemon: the machine's
  /// own when one runs, else a private one started for the test (scripts/private-avahi.sh: its
  /// own D-Bus system bus, mDNS on the loopback interface only). `avahi-browse -rpt` must
  /// resolve the announcement to the listener's port. Every wait is bounded, and the daemon,
  /// its bus and the server are stopped whatever happens.
  @Suite(
    .enabled(
      if: Avahi.canRun,
      "needs avahi-daemon, avahi-utils and dbus (scripts/install-dependencies.sh), and root to start a private Avahi daemon when none runs"
    ))
  struct ServeZeroconfAvahiTests {
    @Test func theAnnouncementResolvesToTheListenersPort() async throws {
      let directory = try TemporaryDirectory()
      let avahi = try await Avahi.start(in: directory.url)
      do {
        try await expectAnnouncement(avahi, in: directory.url)
      } catch {
        await avahi.stop()
        throw error
      }
      await avahi.stop()
    }

    func expectAnnouncement(_ avahi: Avahi, in directory: URL) async throws {
      let name = "transcribe-test-\(getpid())"
      let server = try await ServeWyomingCommandTests.WyomingServer(
        ["--preview", "--zeroconf", name], environment: avahi.environment)
      let announced = await server.waitForStderr("announced '\(name)'")
      // The service as avahi-browse resolves it: `=;IFACE;IPv4;NAME;TYPE;DOMAIN;HOST;ADDRESS;
      // PORT;TXT`; a browse that finds nothing yet is repeated for a while.
      var resolved: [Substring]?
      let deadline = Date().addingTimeInterval(20)
      while resolved == nil, announced, Date() < deadline {
        let browse = try await BoundedProcess.run(
          "/usr/bin/avahi-browse", ["-rpt", "_wyoming._tcp"], environment: avahi.environment,
          timeout: 5, in: directory)
        resolved = browse.stdout.split(separator: "\n").lazy
          .map { $0.split(separator: ";", omittingEmptySubsequences: false) }
          .first { $0.count >= 9 && $0[0] == "=" && $0[3] == name[...] }
        if resolved == nil { try await Task.sleep(for: .milliseconds(200)) }
      }
      let output = await server.terminate()
      #expect(announced, "\(output.stderr)")
      #expect(resolved?[4] == "_wyoming._tcp")
      #expect(resolved.flatMap { Int($0[8]) } == server.port, "\(resolved ?? [])")
      #expect(output.status == 0, "\(output.stderr)")
    }
  }
}

/// An Avahi daemon for a test: the machine's own, or a private one (scripts/private-avahi.sh).
final class Avahi {
  /// What a client needs to reach the daemon (the private bus's address).
  let environment: [String: String]
  private let script: Process?
  /// The script's standard input: closing it stops the script.
  private let input: Pipe?
  private let directory: URL

  private static let tools = [
    "/usr/sbin/avahi-daemon", "/usr/bin/dbus-daemon", "/usr/bin/avahi-browse",
  ]

  /// Whether a test can use one: the tools are installed and a daemon runs, or one can be
  /// started (as root); in CI, always (a daemon that cannot run fails the test).
  static var canRun: Bool {
    VirtualMicrophone.isRequired
      || (tools.allSatisfy(FileManager.default.isExecutableFile(atPath:))
        && (isRunning || geteuid() == 0))
  }

  /// Whether the machine's own daemon runs (its pid file names a live process).
  static var isRunning: Bool {
    guard let text = try? String(contentsOfFile: "/run/avahi-daemon/pid", encoding: .utf8),
      let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
    else { return false }
    return kill(pid, 0) == 0
  }

  private init(
    environment: [String: String], script: Process? = nil, input: Pipe? = nil, directory: URL
  ) {
    self.environment = environment
    self.script = script
    self.input = input
    self.directory = directory
  }

  /// The machine's daemon if it runs, else a private one in `directory`, once it is ready
  /// (within 15 s).
  static func start(in directory: URL) async throws -> Avahi {
    if isRunning { return Avahi(environment: [:], directory: directory) }
    let script = Process()
    script.executableURL = PythonClient.scripts.appendingPathComponent("private-avahi.sh")
    let avahiDirectory = directory.appendingPathComponent("avahi")
    // It stops once its standard input ends: this process's children start with SIGTERM
    // blocked (the spawning thread's signal mask), so a signal would not reach it.
    script.arguments = [avahiDirectory.path, "--until-eof"]
    // Files, not pipes: nothing waits for an end of file a left-over child could hold back.
    let log = directory.appendingPathComponent("private-avahi.out")
    _ = FileManager.default.createFile(atPath: log.path, contents: nil)
    let output = try FileHandle(forWritingTo: log)
    script.standardOutput = output
    script.standardError = output
    let input = Pipe()
    script.standardInput = input
    try script.run()
    let avahi = Avahi(
      environment: ["DBUS_SYSTEM_BUS_ADDRESS": "unix:path=\(avahiDirectory.path)/bus"],
      script: script, input: input, directory: avahiDirectory)
    let deadline = Date().addingTimeInterval(15)
    while Date() < deadline, script.isRunning {
      let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
      if text.contains("private-avahi: ready") { return avahi }
      try await Task.sleep(for: .milliseconds(50))
    }
    await avahi.stop()
    let text = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
    throw AvahiError.didNotStart(text)
  }

  /// Stops the private daemon and its bus (the end of the script's input, which stops both;
  /// then SIGKILL to whatever is left after 5 s); the machine's own is left alone.
  func stop() async {
    guard let script else { return }
    try? input?.fileHandleForWriting.close()
    let deadline = Date().addingTimeInterval(5)
    while script.isRunning, Date() < deadline { try? await Task.sleep(for: .milliseconds(20)) }
    if script.isRunning { kill(script.processIdentifier, SIGKILL) }
    for file in ["avahi.pid", "bus.pid"] {
      let path = directory.appendingPathComponent(file).path
      guard let text = try? String(contentsOfFile: path, encoding: .utf8),
        let pid = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines)), pid > 1,
        kill(pid, 0) == 0
      else { continue }
      kill(pid, SIGKILL)
    }
  }
}

enum AvahiError: Error {
  case didNotStart(String)
}

/// A tool run to its end, or killed at its time limit; its output goes through a file.
enum BoundedProcess {
  static func run(
    _ executable: String, _ arguments: [String], environment: [String: String],
    timeout: TimeInterval, in directory: URL
  ) async throws -> (status: Int32, stdout: String) {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
    let file = directory.appendingPathComponent("\(UUID().uuidString).out")
    _ = FileManager.default.createFile(atPath: file.path, contents: nil)
    let output = try FileHandle(forWritingTo: file)
    defer { try? output.close() }
    process.standardOutput = output
    process.standardError = FileHandle.nullDevice
    process.standardInput = FileHandle.nullDevice
    try process.run()
    let deadline = Date().addingTimeInterval(timeout)
    while process.isRunning, Date() < deadline {
      try await Task.sleep(for: .milliseconds(20))
    }
    if process.isRunning { kill(process.processIdentifier, SIGKILL) }
    process.waitUntilExit()
    return (process.terminationStatus, (try? String(contentsOf: file, encoding: .utf8)) ?? "")
  }
}
