import Foundation
import LiveTestSupport
import SpeechClient
import Testing
import TranscriptFormats

/// The captions page as a tool people keep open, in a real browser: headless Chromium, whose
/// fake microphone plays real speech, drives the page `transcribe serve` serves (the real binary
/// and the real model) through `scripts/captions-page.py`. Each test writes screenshots of the
/// views it saw to `.build/test-output/captions-page/` for a person to look at.
extension CommandTests.CaptionsBrowserTests {
  static var canRun: Bool {
    SpeechTestData.isInstalled && (BrowserTools.areInstalled || VirtualMicrophone.isRequired)
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func liveWordsShowWithTheirTimesTheFakeMicrophoneIsListedAndLinesSurviveAReload()
    async throws
  {
    let started = Date()
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: LiveReport = try await BrowserTools.runCaptionsScenario(
      "live", url: server.baseURL + "/", wav: speech,
      ["--expect", "forward", "ten", "--screenshots", BrowserTools.outputDirectory.path])
    let context = "\(report)"

    #expect(report.found, "no finished line held the spoken words; \(context)")
    // Microphones have names once the page may use one: Chromium's fake device among them.
    #expect(report.devices.contains { $0.contains("Fake") }, "\(context)")
    #expect(report.engine.hasPrefix("pocketsphinx \u{b7} English"), "\(context)")
    #expect(report.level > 0.05, "the level meter should move with the speech; \(context)")
    #expect(report.lines.contains { $0.contains("go forward") }, "\(context)")
    #expect(
      report.times.allSatisfy { $0.wholeMatch(of: /\d+:\d\d:\d\d/) != nil },
      "each line shows its time; \(context)")
    // Space stopped it, and F showed the captions alone until Escape.
    #expect(report.status == "Stopped.", "\(context)")
    #expect(report.toggle == "Start", "\(context)")
    #expect(report.captionView == "captions", "\(context)")
    #expect(report.leftCaptionView, "\(context)")
    #expect(report.linesAfterReload == report.lines, "lines stay across a reload; \(context)")
    // Light or dark as the system asks.
    #expect(report.textColourLight == "rgb(0, 0, 0)", "\(context)")
    #expect(report.textColourDark == "rgb(255, 255, 255)", "\(context)")
    for name in ["page-live", "caption-view", "page-dark"] {
      #expect(BrowserTools.screenshotExists(name, since: started), "screenshot \(name)")
    }
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func chosenFilesAreTranscribedInTurnWithProgressAndTheSRTIsTheCLIs() async throws {
    let started = Date()
    let directory = try TemporaryDirectory()
    let goForward = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.3", "0.5"])
    // The five LibriVox sentences, a second apart: several lines, so progress shows between.
    let silence = directory.url.appendingPathComponent("silence.wav")
    try runSox(["-n", "-r", "16000", "-c", "1", "-b", "16", silence.path, "trim", "0", "1"])
    let librivox = directory.url.appendingPathComponent("librivox.wav")
    let clips = try FileManager.default.contentsOfDirectory(
      atPath: SpeechTestData.directory.appendingPathComponent("librivox").path
    ).filter { $0.hasSuffix(".wav") }.sorted()
    try runSox(
      clips.flatMap {
        [SpeechTestData.directory.appendingPathComponent("librivox/\($0)").path, silence.path]
      } + [librivox.path])
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: FileReport = try await BrowserTools.runCaptionsScenario(
      "file", url: server.baseURL + "/", wav: goForward,
      [
        "--file", goForward.path, librivox.path,
        "--screenshots", BrowserTools.outputDirectory.path,
      ])
    let context = "\(report)"

    // Each file in turn, each saying how it went.
    #expect(report.fileItems.count == 2, "\(context)")
    #expect(report.fileItems.first == goForward.lastPathComponent + ": done, 1 line.", "\(context)")
    #expect(report.fileItems.last?.hasPrefix("librivox.wav: done, ") == true, "\(context)")
    #expect(
      report.statuses.contains { $0.hasPrefix("librivox.wav: ") && $0.contains(" % (") },
      "the progress in words; \(context)")
    #expect(report.lines.first?.contains("go forward") == true, "\(context)")
    #expect(report.lines.count >= 4, "the LibriVox sentences as lines; \(context)")
    #expect(
      report.progress.contains { $0 > 0 && $0 < 1 }, "progress between lines; \(context)")
    #expect(report.progress.last == 1, "\(context)")
    #expect(report.linesAfterReload == report.lines, "\(context)")
    #expect(BrowserTools.screenshotExists("page-file", since: started))

    // The downloaded .srt parses and holds the words, its times running forward.
    let srt = try #require(report.srt, "no .srt was downloaded; \(context)")
    #expect(report.srtName?.hasSuffix(".srt") == true)
    let cues = try SubRip.parse(srt)
    #expect(cues.map(\.number) == Array(1...cues.count), "\(srt)")
    #expect(cues.allSatisfy { $0.start <= $0.end }, "\(srt)")
    #expect(zip(cues, cues.dropFirst()).allSatisfy { $0.end <= $1.start + 0.001 }, "\(srt)")
    let words = cues.flatMap { $0.text.split(separator: " ").map(String.init) }
    #expect(words.starts(with: ["go", "forward", "ten", "meters"]), "\(srt)")
    #expect(words.contains("dashwood") || words.contains("john"), "\(srt)")
    #expect(report.vtt?.hasPrefix("WEBVTT\n\n00:00:0") == true, "\(report.vtt ?? "")")

    // The first file's cues are what the CLI writes for it (the same rules, the same times).
    let cli = try await TranscribeProcess.run(
      ["--input", goForward.path, "--format", "srt"], timeout: 120)
    #expect(cli.status == 0, "\(cli.stderr)")
    #expect(srt.hasPrefix(cli.stdout), "page:\n\(srt)\nCLI:\n\(cli.stdout)")
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func thePageReconnectsByItselfWhenTheServerRestartsAndKeepsItsLines() async throws {
    let started = Date()
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let first = try await ServeProcess([])
    defer { first.kill() }
    let script = try PythonProcess(
      "captions-page.py",
      [
        "reconnect", "--url", first.baseURL + "/", "--wav", speech.path,
        "--expect", "forward", "ten", "--timeout", "60",
        "--screenshots", BrowserTools.outputDirectory.path,
      ])
    guard await script.waitForLines(1, timeout: 120) else {
      let output = await script.wait(timeout: 5)
      Issue.record("the page never connected: \(output)")
      return
    }
    // The same port, a new process: the page must find it by itself.
    _ = await first.terminate(timeout: 30)
    let second = try await ServeProcess(["--port", String(first.port)])
    defer { second.kill() }
    let result = await script.wait(timeout: 180)
    try #require(result.status == 0, "captions-page.py failed: \(result.stderr)")
    let lines = result.stdout.split(separator: "\n")
    let report = try ScenarioReports.decoder.decode(
      ReconnectReport.self, from: Data(lines.last!.utf8))
    let context = "\(report)"

    #expect(report.reconnecting, "the page should say it reconnects; \(context)")
    #expect(report.reconnectingStatus.contains("Reconnecting in"), "\(context)")
    #expect(report.back, "the page should connect again by itself; \(context)")
    #expect(report.after.starts(with: report.before), "earlier lines stay; \(context)")
    #expect(report.newLines.contains { $0.contains("forward") }, "\(context)")
    #expect(report.status == "Stopped.", "\(context)")
    #expect(BrowserTools.screenshotExists("page-reconnected", since: started))
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func theOverlayIsTransparentAndShowsTheLastTwoLines() async throws {
    let started = Date()
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: OverlayReport = try await BrowserTools.runCaptionsScenario(
      "overlay", url: server.baseURL + "/", wav: speech,
      ["--expect", "forward", "--screenshots", BrowserTools.outputDirectory.path])
    let context = "\(report)"

    #expect(report.view == "overlay", "\(context)")
    #expect(report.live == "listening", "the overlay listens by itself; \(context)")
    #expect(report.found, "\(context)")
    #expect(report.lines >= 3, "\(context)")
    #expect((1...2).contains(report.shown.count), "the last two lines at most; \(context)")
    #expect(report.htmlBackground == "rgba(0, 0, 0, 0)", "\(context)")
    #expect(report.bodyBackground == "rgba(0, 0, 0, 0)", "\(context)")
    #expect(BrowserTools.screenshotExists("overlay", since: started))
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func withoutTheTokenThePageSaysSoForTheMicrophoneAndForFiles() async throws {
    let started = Date()
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(in: directory.url)
    let server = try await ServeProcess(["--token", "s3cret"])
    defer { server.kill() }
    let report: RefusedReport = try await BrowserTools.runCaptionsScenario(
      "refused", url: server.baseURL + "/", wav: speech,
      [
        "--file", speech.path, "--screenshots", BrowserTools.outputDirectory.path,
      ])
    let message =
      "This server needs an access token: open the page as ?token=YOUR_TOKEN "
      + "(the token transcribe serve was given)."
    #expect(report.status == message, "\(report)")
    #expect(report.toggle == "Start", "a refused start is not retried; \(report)")
    #expect(report.fileItems == [speech.lastPathComponent + ": " + message], "\(report)")
    #expect(BrowserTools.screenshotExists("page-refused", since: started))
  }

  /// The page's cue rules against the CLI's (`SubtitleFormat`) on words chosen for the edges:
  /// a long utterance cut at 7 s, lines wrapped at 42 characters, a word too long for a line,
  /// accented letters written with combining marks, times to round.
  @Test(
    .enabled(
      if: BrowserTools.areInstalled || VirtualMicrophone.isRequired,
      "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func thePagesSubtitlesFollowTheCLIsCueRules() async throws {
    func word(_ text: String, _ start: Double, _ end: Double) -> TranscriptionSegment {
      TranscriptionSegment(
        substring: text, timestamp: start, duration: end - start, confidence: 1,
        endsUtterance: false)
    }
    let long = (0..<24).map { word("word\($0)", 1 + Double($0) * 0.45, 1.3 + Double($0) * 0.45) }
    let wide = [
      word("a", 14, 14.2), word(String(repeating: "x", count: 50), 14.3, 15),
      word("b", 15.1, 15.3),
    ]
    let accented = (0..<12).map {
      word(
        $0 % 2 == 0 ? "cafe\u{301}" : "na\u{308}ive", 20 + Double($0) * 0.3,
        20.25 + Double($0) * 0.3)
    }
    let rounding = [word("half", 30.0005, 30.4995), word("way", 3_725.1234, 3_726.98765)]
    let utterances = [long, wide, accented, rounding]
    let stored = StoredTranscript(
      version: 1, origin: 0, end: 3_726.98765,
      lines: utterances.map { words in
        StoredTranscript.Line(
          start: words[0].timestamp, end: words.last!.timestamp + words.last!.duration,
          text: words.map(\.substring).joined(separator: " "),
          words: words.map {
            [.text($0.substring), .number($0.timestamp), .number($0.timestamp + $0.duration)]
          },
          at: 0, label: "test")
      })
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("transcript.json")
    try JSONEncoder().encode(stored).write(to: file)
    let speech = try SpeechTestData.goForwardWAV(in: directory.url)
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: SubtitlesReport = try await BrowserTools.runCaptionsScenario(
      "subtitles", url: server.baseURL + "/", wav: speech, ["--transcript", file.path])

    #expect(report.lines.count == utterances.count)
    #expect(report.srt == SubtitleFormat.srt.document(for: utterances))
    #expect(report.vtt == SubtitleFormat.vtt.document(for: utterances))
    #expect(report.txt?.hasPrefix("[0:00:01] word0 word1 ") == true, "\(report.txt ?? "")")
    #expect(report.txt?.hasSuffix("[0:00:30] half way\n") == true, "\(report.txt ?? "")")
  }
}

// MARK: - What scripts/captions-page.py reports

/// How the scenarios' JSON reports are read: `scripts/captions-page.py` writes snake_case keys.
enum ScenarioReports {
  static var decoder: JSONDecoder {
    let decoder = JSONDecoder()
    decoder.keyDecodingStrategy = .convertFromSnakeCase
    return decoder
  }
}

struct LiveReport: Decodable, CustomStringConvertible {
  var found: Bool
  var devicesBeforeStart: [String]
  var devices: [String]
  var engine: String
  var languages: [String]
  var level: Double
  var lines: [String]
  var times: [String]
  var status: String
  var toggle: String
  var captionView: String
  var leftCaptionView: Bool
  var linesAfterReload: [String]
  var textColourLight: String
  var textColourDark: String
  var delays: [Double]
  var console: [String]

  var description: String {
    "lines \(lines) at \(times), status \"\(status)\", devices \(devicesBeforeStart) then "
      + "\(devices), engine \"\(engine)\", level \(level), view \(captionView), after reload "
      + "\(linesAfterReload), console \(console)"
  }
}

struct FileReport: Decodable, CustomStringConvertible {
  var lines: [String]
  var times: [String]
  var progress: [Double]
  var statuses: [String]
  var fileItems: [String]
  var srtName: String?
  var srt: String?
  var vtt: String?
  var linesAfterReload: [String]
  var console: [String]

  var description: String {
    "lines \(lines) at \(times), progress \(progress), statuses \(statuses), "
      + "after reload \(linesAfterReload), console \(console)"
  }
}

struct ReconnectReport: Decodable, CustomStringConvertible {
  var connected: Bool
  var before: [String]
  var reconnecting: Bool
  var reconnectingStatus: String
  var back: Bool
  var after: [String]
  var newLines: [String]
  var status: String

  var description: String {
    "before \(before), reconnecting \(reconnecting) (\"\(reconnectingStatus)\"), back \(back), "
      + "after \(after), status \"\(status)\""
  }
}

struct OverlayReport: Decodable, CustomStringConvertible {
  var view: String
  var live: String
  var lines: Int
  var shown: [String]
  var partial: String
  var htmlBackground: String
  var bodyBackground: String
  var found: Bool

  var description: String {
    "view \(view), live \(live), \(lines) lines, shown \(shown), partial \"\(partial)\", "
      + "backgrounds \(htmlBackground) / \(bodyBackground)"
  }
}

struct RefusedReport: Decodable {
  var status: String
  var live: String
  var toggle: String
  var fileItems: [String]
}

struct SubtitlesReport: Decodable {
  var lines: [String]
  var srt: String?
  var vtt: String?
  var txt: String?
}

/// The transcript as the page keeps it in the browser's storage
/// (`transcribe.captions.transcript`): times in seconds on the transcript's timeline, each word
/// as `[text, start, end]`.
struct StoredTranscript: Encodable {
  var version: Int
  var origin: Double?
  var end: Double
  var lines: [Line]

  struct Line: Encodable {
    var start: Double
    var end: Double
    var text: String
    var words: [[WordField]]
    var at: Double
    var label: String
  }

  enum WordField: Encodable {
    case text(String)
    case number(Double)

    func encode(to encoder: any Encoder) throws {
      var container = encoder.singleValueContainer()
      switch self {
      case .text(let text): try container.encode(text)
      case .number(let number): try container.encode(number)
      }
    }
  }
}

/// A SubRip file's cues, read strictly: a number, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, text lines,
/// a blank line.
struct SubRip {
  struct Cue {
    var number: Int
    var start: Double
    var end: Double
    var text: String
  }

  struct Malformed: Error, CustomStringConvertible {
    var description: String
  }

  static func parse(_ text: String) throws -> [Cue] {
    var cues: [Cue] = []
    for block in text.components(separatedBy: "\n\n") where !block.isEmpty {
      let lines = block.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
      guard lines.count >= 3, let number = Int(lines[0]),
        let match = lines[1].wholeMatch(
          of: /(\d\d):(\d\d):(\d\d),(\d\d\d) --> (\d\d):(\d\d):(\d\d),(\d\d\d)/)
      else { throw Malformed(description: "not a cue: \(block)") }
      func seconds(_ parts: [Substring]) -> Double {
        let values = parts.map { Double($0)! }
        return values[0] * 3600 + values[1] * 60 + values[2] + values[3] / 1000
      }
      let output = match.output
      cues.append(
        Cue(
          number: number, start: seconds([output.1, output.2, output.3, output.4]),
          end: seconds([output.5, output.6, output.7, output.8]),
          text: lines[2...].joined(separator: " ")))
    }
    guard text.hasSuffix("\n\n") else { throw Malformed(description: "no blank line at the end") }
    return cues
  }
}

extension BrowserTools {
  /// Where the page tests leave their screenshots: `.build/test-output/captions-page/` in the
  /// package (or `$TRANSCRIBE_TEST_OUTPUT/captions-page/`).
  static let outputDirectory: URL = {
    let root =
      ProcessInfo.processInfo.environment["TRANSCRIBE_TEST_OUTPUT"].map {
        URL(fileURLWithPath: $0)
      }
      ?? URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
      .deletingLastPathComponent().appendingPathComponent(".build/test-output")
    return root.appendingPathComponent("captions-page")
  }()

  /// Whether the screenshot `name` was written since `start` (not left by an earlier run).
  static func screenshotExists(_ name: String, since start: Date) -> Bool {
    let path = outputDirectory.appendingPathComponent(name + ".png").path
    guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
      let size = attributes[.size] as? Int, let modified = attributes[.modificationDate] as? Date
    else { return false }
    return size > 1000 && modified >= start.addingTimeInterval(-1)
  }

  /// Runs one scenario of `scripts/captions-page.py` against the page at `url`, Chromium's
  /// microphone playing `wav`, and decodes its report.
  static func runCaptionsScenario<Report: Decodable>(
    _ scenario: String, url: String, wav: URL, _ arguments: [String], timeout: TimeInterval = 90
  ) async throws -> Report {
    try #require(
      BrowserTools.areInstalled,
      "chromium, chromium-driver or selenium is missing: run scripts/install-dependencies.sh")
    let result = try await PythonClient.run(
      "captions-page.py",
      [scenario, "--url", url, "--wav", wav.path, "--timeout", "60"] + arguments,
      timeout: timeout + 120)
    try #require(
      result.status == 0, "captions-page.py \(scenario) failed (\(result.status)): \(result.stderr)"
    )
    return try ScenarioReports.decoder.decode(Report.self, from: Data(result.stdout.utf8))
  }
}
