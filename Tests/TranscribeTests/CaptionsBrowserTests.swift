import Foundation
import LiveTestSupport
import Testing

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The live-captions page in a real browser: headless Chromium, whose fake microphone plays real
/// speech, drives the page `transcribe serve` serves (the real binary and the real model), and the
/// spoken words must appear on the page, first as the line in progress, then as a finished line.
extension CommandTests {
  @Suite struct CaptionsBrowserTests {
    @Test(
      .enabled(
        if: SpeechTestData.isInstalled && (BrowserTools.areInstalled || BrowserTools.areRequired),
        "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
    func spokenWordsAppearOnThePageAsPartialThenFinal() async throws {
      try #require(
        BrowserTools.areInstalled,
        "chromium, chromium-driver or selenium is missing: run scripts/install-dependencies.sh")
      let directory = try TemporaryDirectory()
      // Chromium plays the file in a loop: a second of silence after the words ends the
      // utterance each time round.
      let speech = try SpeechTestData.goForwardWAV(
        in: directory.url, effects: ["pad", "0.5", "1.5"])

      let port = try FreePort.pick()
      let server = TranscribeProcess(["serve", "--port", String(port)])
      try server.start()
      let base = "http://127.0.0.1:\(port)/"
      let ready = await ServerProbe.waitUntilReady(base + "readyz", process: server.process)
      guard ready else {
        server.process.terminate()
        let output = await server.wait(timeout: 15)
        Issue.record("transcribe serve never became ready; stderr: \(output.stderr)")
        return
      }

      let browser = try await BrowserTools.runCaptionsPage(
        url: base, wav: speech, expect: ["forward", "meters"], timeout: 60)
      server.process.terminate()
      let output = await server.wait(timeout: 15)
      try #require(
        browser.status == 0,
        "captions-browser.py failed (\(browser.status)): \(browser.stderr)\nserver: \(output.stderr)"
      )
      let report = try JSONDecoder().decode(
        CaptionsReport.self, from: Data(browser.stdout.utf8))
      let context = "page: \(report)\nserver stderr: \(output.stderr)"

      #expect(report.found, "no finished line held the spoken words; \(context)")
      #expect(
        report.finals.contains { $0.hasPrefix("go forward") },
        "the finished lines should hold what was spoken; \(context)")
      #expect(
        report.partials.contains { $0.split(separator: " ").contains("forward") },
        "the words should show while being spoken, before the line is finished; \(context)")
      #expect(report.status == "Stopped.", "Stop should end the stream cleanly; \(context)")
    }
  }
}

/// What `scripts/captions-browser.py` saw on the page.
struct CaptionsReport: Decodable, CustomStringConvertible {
  var partials: [String]
  var finals: [String]
  var status: String
  var found: Bool
  var secondsToFinal: Double?
  var console: [String]

  enum CodingKeys: String, CodingKey {
    case partials, finals, status, found, console
    case secondsToFinal = "seconds_to_final"
  }

  var description: String {
    "partials \(partials), finals \(finals), status \"\(status)\", "
      + "first matching final after \(secondsToFinal.map { "\($0) s" } ?? "—"), console \(console)"
  }
}

/// Headless Chromium, chromedriver and selenium, as `scripts/install-dependencies.sh` installs
/// them.
enum BrowserTools {
  static let script: URL = {
    // Tests/TranscribeTests/CaptionsBrowserTests.swift → the package root.
    var url = URL(fileURLWithPath: #filePath)
    for _ in 0..<3 { url.deleteLastPathComponent() }
    return url.appendingPathComponent("scripts/captions-browser.py")
  }()

  /// Whether the browser tests must run: on CI a missing tool is a failure, not a reason to skip.
  static var areRequired: Bool {
    ProcessInfo.processInfo.environment["CI"] != nil
  }

  static let areInstalled: Bool = {
    let files = FileManager.default
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    let drivers = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
    guard chromium.contains(where: files.isExecutableFile(atPath:)),
      drivers.contains(where: files.isExecutableFile(atPath:))
    else { return false }
    return (try? runCommand("/usr/bin/env", ["python3", "-c", "import selenium"])) != nil
  }()

  struct Output {
    var status: Int32
    var stdout: String
    var stderr: String
  }

  /// Runs the page in Chromium with `wav` as the microphone until a finished line holds `expect`.
  static func runCaptionsPage(
    url: String, wav: URL, expect: [String], timeout: TimeInterval
  ) async throws -> Output {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
    process.arguments =
      ["python3", script.path, "--url", url, "--wav", wav.path, "--timeout", String(timeout)]
      + ["--expect"] + expect
    let stdout = Pipe()
    let stderr = Pipe()
    process.standardOutput = stdout
    process.standardError = stderr
    process.standardInput = FileHandle.nullDevice
    let outData = LockedData()
    let errData = LockedData()
    stdout.fileHandleForReading.readabilityHandler = { outData.append($0.availableData) }
    stderr.fileHandleForReading.readabilityHandler = { errData.append($0.availableData) }
    try process.run()
    // The script's own timeout plus starting and stopping the browser.
    let deadline = Date().addingTimeInterval(timeout + 60)
    while process.isRunning, Date() < deadline {
      try? await Task.sleep(for: .milliseconds(100))
    }
    if process.isRunning { process.terminate() }
    process.waitUntilExit()
    stdout.fileHandleForReading.readabilityHandler = nil
    stderr.fileHandleForReading.readabilityHandler = nil
    outData.append(stdout.fileHandleForReading.readDataToEndOfFile())
    errData.append(stderr.fileHandleForReading.readDataToEndOfFile())
    return Output(status: process.terminationStatus, stdout: outData.string, stderr: errData.string)
  }
}

/// A TCP port nothing listens on now: bind port 0 on loopback, read the port, close.
enum FreePort {
  struct Failure: Error, CustomStringConvertible {
    var description: String
  }

  static func pick() throws -> Int {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw Failure(description: "socket() failed: \(errno)") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_port = 0
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
    }
    guard bound == 0 else { throw Failure(description: "bind() failed: \(errno)") }
    let named = withUnsafeMutablePointer(to: &address) {
      $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
        getsockname(descriptor, $0, &length)
      }
    }
    guard named == 0 else { throw Failure(description: "getsockname() failed: \(errno)") }
    return Int(UInt16(bigEndian: address.sin_port))
  }
}

/// Asks a starting server's `/readyz` until it answers 200.
enum ServerProbe {
  static func waitUntilReady(
    _ url: String, process: Process, timeout: TimeInterval = 60
  ) async -> Bool {
    guard let url = URL(string: url) else { return false }
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline, process.isRunning {
      if let (_, response) = try? await URLSession.shared.data(from: url),
        (response as? HTTPURLResponse)?.statusCode == 200
      {
        return true
      }
      try? await Task.sleep(for: .milliseconds(200))
    }
    return false
  }
}
