import Foundation
import LiveTestSupport
import Testing

/// The live-captions page in a real browser: headless Chromium, whose fake microphone plays real
/// speech, drives the page `transcribe serve` serves (the real binary and the real model), and the
/// spoken words must appear on the page, first as the line in progress, then as a finished line.
extension CommandTests {
  @Suite struct CaptionsBrowserTests {
    @Test(
      .enabled(
        if: SpeechTestData.isInstalled
          && (BrowserTools.areInstalled || VirtualMicrophone.isRequired),
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

      let server = try await ServeProcess([])
      let browser = try await BrowserTools.runCaptionsPage(
        url: server.baseURL + "/", wav: speech, expect: ["forward", "meters"], timeout: 60)
      let output = await server.terminate(timeout: 15)
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
  static let areInstalled: Bool = {
    let files = FileManager.default
    let chromium = ["/usr/bin/chromium", "/usr/bin/chromium-browser", "/usr/bin/google-chrome"]
    let drivers = ["/usr/bin/chromedriver", "/usr/lib/chromium/chromedriver"]
    guard chromium.contains(where: files.isExecutableFile(atPath:)),
      drivers.contains(where: files.isExecutableFile(atPath:))
    else { return false }
    return (try? runCommand("/usr/bin/env", ["python3", "-c", "import selenium"])) != nil
  }()

  /// Runs the page in Chromium with `wav` as the microphone until a finished line holds `expect`.
  static func runCaptionsPage(
    url: String, wav: URL, expect: [String], timeout: TimeInterval
  ) async throws -> (status: Int32, stdout: String, stderr: String) {
    // The script's own timeout plus starting and stopping the browser.
    try await PythonClient.run(
      "captions-browser.py",
      ["--url", url, "--wav", wav.path, "--timeout", String(timeout), "--expect"] + expect,
      timeout: timeout + 60)
  }
}
