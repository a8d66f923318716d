import Foundation
import LiveTestSupport
import Testing

/// The captions page's controls in headless Chromium, as a person uses them: behind a proxy's
/// path prefix, files dragged onto the page, another microphone or language while listening,
/// Copy all and Clear, and the keyboard alone (`scripts/captions-page.py`'s scenarios).
extension CommandTests.CaptionsBrowserTests {
  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func thePageWorksBehindAProxysPathPrefix() async throws {
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let server = try await ServeProcess([])
    defer { server.kill() }
    // The proxy passes /captions/… on as /…, as nginx's `proxy_pass http://…/;` does.
    let report: PrefixedReport = try await BrowserTools.runCaptionsScenario(
      "prefixed", url: server.baseURL + "/", wav: speech,
      [
        "--prefix", "/captions", "--expect", "forward", "ten", "--file", speech.path,
        "--screenshots", BrowserTools.outputDirectory.path,
      ])
    let context = "\(report)"

    #expect(report.found, "live words through the proxy; \(context)")
    #expect(report.status == "Stopped.", "\(context)")
    #expect(report.fileItems == [speech.lastPathComponent + ": done, 1 line."], "\(context)")
    #expect(report.outside.isEmpty, "every address the page used is under the prefix; \(context)")
    #expect(
      report.requests.contains { $0.upgrade && $0.path == "/captions" },
      "the stream went through the proxy; \(context)")
    #expect(
      report.requests.contains {
        $0.method == "POST" && $0.path == "/captions/v1/audio/transcriptions"
      }, "the upload went through the proxy; \(context)")
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func filesDroppedOnTheDropZoneOrAnywhereOnThePageAreTranscribed() async throws {
    let directory = try TemporaryDirectory()
    let goForward = try SpeechTestData.goForwardWAV(in: directory.url, effects: ["pad", "0.3"])
    let again = directory.url.appendingPathComponent("again.wav")
    try FileManager.default.copyItem(at: goForward, to: again)
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: DropReport = try await BrowserTools.runCaptionsScenario(
      "drop", url: server.baseURL + "/", wav: goForward,
      [
        "--file", goForward.path, again.path, "--screenshots",
        BrowserTools.outputDirectory.path,
      ])
    let context = "\(report)"

    // Chromium's own drag events, as a file manager's drag makes them.
    #expect(report.overZone == "true", "the drop zone lights up; \(context)")
    #expect(report.firstItems == [goForward.lastPathComponent + ": done, 1 line."], "\(context)")
    #expect(report.overElsewhere == "true", "a file held over the transcript; \(context)")
    #expect(
      report.fileItems == [
        goForward.lastPathComponent + ": done, 1 line.", "again.wav: done, 1 line.",
      ], "a file dropped on the transcript is transcribed too; \(context)")
    #expect(report.overAfter == "false", "\(context)")
    #expect(report.lines.count == 2, "\(context)")
    #expect(report.lines.allSatisfy { $0.contains("forward") }, "\(context)")
    #expect(report.address == server.baseURL + "/", "the page stays open; \(context)")
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func anotherMicrophoneChosenWhileListeningFeedsTheSameStream() async throws {
    let directory = try TemporaryDirectory()
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let server = try await ServeProcess([])
    defer { server.kill() }
    // Chromium's fake devices all play the same file.
    let report: DeviceReport = try await BrowserTools.runCaptionsScenario(
      "device", url: server.baseURL + "/", wav: speech,
      ["--expect", "forward", "ten", "--device", "Fake Audio Input 2"])
    let context = "\(report)"

    #expect(report.found, "\(context)")
    #expect(report.options?.contains("Fake Audio Input 2") == true, "\(context)")
    // The page opened the chosen microphone, let the first go, and kept its one stream.
    let microphones = report.microphones ?? []
    #expect(microphones.count == 2, "\(context)")
    #expect(microphones.last?.asked == report.chosen, "\(context)")
    #expect(microphones.last?.got == report.chosen, "\(context)")
    #expect(microphones.last?.label == "Fake Audio Input 2", "\(context)")
    #expect(report.trackStates == ["ended", "live"], "the first microphone is let go; \(context)")
    #expect(report.sockets == 1, "the same stream goes on; \(context)")
    #expect(report.liveAfterSwitch == "listening", "\(context)")
    #expect(report.newLines?.contains { $0.contains("forward") } == true, "\(context)")
    #expect(report.status == "Stopped.", "\(context)")
    // The choice is remembered.
    #expect(report.storedDevice == report.chosen, "\(context)")
    #expect(report.deviceAfterReload == report.chosen, "\(context)")
  }

  @Test(
    .enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"),
    .enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"))
  func anotherLanguageChosenWhileListeningHandsOverToAStreamInThatLanguage() async throws {
    let directory = try TemporaryDirectory()
    // English, then German: the fake microphone plays both in a loop.
    let english = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.0"])
    let german = try WhisperTestData.spoken(
      WhisperTestData.german, in: directory.url, silence: 1.0)
    let speech = directory.url.appendingPathComponent("english-german.wav")
    try runSox([english.path, german.path, speech.path])
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: LanguageReport = try await BrowserTools.runCaptionsScenario(
      "language", url: server.baseURL + "/", wav: speech,
      [
        "--expect", "forward", "ten", "--language", "de", "--expect-after", "tisch",
        "--timeout", "120", "--screenshots", BrowserTools.outputDirectory.path,
      ], timeout: 240)
    let context = "\(report)"

    #expect(report.found, "English first; \(context)")
    #expect(report.engineBefore == "pocketsphinx \u{b7} English", "\(context)")
    #expect(report.engineAfter == "Whisper \u{b7} German", "\(context)")
    // A second stream asked for German; the first was ended with eof for its last words.
    let sent = report.sent ?? []
    #expect(report.sockets == 2, "\(context)")
    #expect(sent.first?.data.contains("\"language\":\"en\"") == true, "\(context)")
    #expect(sent.contains { $0.socket == 0 && $0.data.contains("\"eof\"") }, "\(context)")
    #expect(
      sent.contains { $0.socket == 1 && $0.data.contains("\"language\":\"de\"") }, "\(context)")
    #expect(
      report.newLines?.contains {
        WhisperTestData.words($0.text).contains("tisch") && $0.title.hasPrefix("live, German")
      } == true, "German words from the new stream; \(context)")
    #expect(report.liveAfterSwitch == "listening", "\(context)")
    #expect(report.status == "Stopped.", "\(context)")
    #expect(report.storedLanguage == "de", "the choice is remembered; \(context)")
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func copyAllCopiesTheTranscriptAndClearEmptiesItForGoodAfterAsking() async throws {
    let directory = try TemporaryDirectory()
    let transcript = try Self.storedTranscript(in: directory.url)
    let speech = try SpeechTestData.goForwardWAV(in: directory.url)
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: TranscriptReport = try await BrowserTools.runCaptionsScenario(
      "transcript", url: server.baseURL + "/", wav: speech, ["--transcript", transcript.path])
    let context = "\(report)"

    let text = "[0:00:01] Go forward ten meters.\n[0:00:04] Turn left.\n"
    #expect(report.lines == ["Go forward ten meters.", "Turn left."], "\(context)")
    #expect(report.clipboard == text, "the clipboard holds every line; \(context)")
    #expect(report.txt == text, "the same as the .txt; \(context)")
    #expect(report.copiedStatus == "Copied 2 lines.", "\(context)")
    // Clear asks first; refused, nothing changes.
    #expect(report.question.contains("2 lines"), "\(context)")
    #expect(report.linesAfterRefusal == 2, "\(context)")
    #expect(report.storedAfterRefusal, "\(context)")
    // Accepted, the lines and the browser's copy are gone, also after a reload.
    #expect(report.linesAfterClear == 0, "\(context)")
    #expect(report.storedAfterClear == nil, "\(context)")
    #expect(report.statusAfterClear == "The transcript was cleared.", "\(context)")
    #expect(report.linesAfterReload == 0, "\(context)")
    #expect(report.storedAfterReload == nil, "\(context)")
    #expect(report.askedWhenEmpty == nil, "nothing to clear, nothing asked; \(context)")
  }

  @Test(.enabled(if: canRun, "needs pocketsphinx-testdata, chromium, chromium-driver and selenium"))
  func everyControlIsReachedInOrderWithAVisibleFocusAndWorksFromTheKeyboard() async throws {
    let directory = try TemporaryDirectory()
    let transcript = try Self.storedTranscript(in: directory.url)
    let speech = try SpeechTestData.goForwardWAV(
      in: directory.url, effects: ["pad", "0.5", "1.5"])
    let server = try await ServeProcess([])
    defer { server.kill() }
    let report: KeyboardReport = try await BrowserTools.runCaptionsScenario(
      "keyboard", url: server.baseURL + "/", wav: speech,
      [
        "--transcript", transcript.path, "--expect", "forward", "ten",
        "--screenshots", BrowserTools.outputDirectory.path,
      ])
    let context = "\(report)"

    // Tab reaches every control in the order they are on the page, each outlined.
    let languages = WhisperTestData.isInstalled ? ["language"] : []
    let expected =
      ["toggle", "device"] + languages + [
        "file", "copy", "download-txt", "download-srt", "download-vtt", "clear", "size",
        "full-screen",
      ]
    #expect(report.order.map(\.id) == expected, "\(context)")
    for focus in report.order {
      #expect(focus.focusVisible == true, "\(focus.id) matches :focus-visible")
      #expect(focus.outlineStyle == "solid", "\(focus.id) is outlined: \(focus)")
      #expect((focus.outlineWidth ?? 0) >= 2, "\(focus.id)'s outline is visible: \(focus)")
      #expect(focus.visible == true, "\(focus.id) is on the screen: \(focus)")
    }
    // Space on Start starts, and the focus stays on the button; F shows the captions alone,
    // Enter on Leave returns with the focus on Full screen; Space again stops.
    #expect(report.listening, "\(context)")
    #expect(report.focusWhileListening == "toggle", "\(context)")
    #expect(report.viewFromToggle == "captions", "F with the focus on Stop; \(context)")
    #expect(report.focusInView == "leave", "\(context)")
    #expect(report.viewAfterLeave == "", "\(context)")
    #expect(report.focusAfterLeave == "full-screen", "\(context)")
    #expect(report.statusAfterSpace == "Stopped.", "\(context)")
    #expect(report.focusAfterStop == "toggle", "\(context)")
    // The arrow keys change the size and the microphone (remembered).
    #expect(report.size == ["1.5", "1.75", "1.75rem"], "\(context)")
    #expect(report.device.count == 3 && report.device[1] != report.device[0], "\(context)")
    #expect(report.device.count == 3 && report.device[2] == report.device[1], "\(context)")
    // Enter and Space on the other buttons and the file input.
    #expect(report.copyStatus.hasPrefix("Copied "), "\(context)")
    #expect(report.clipboard.hasPrefix("[0:00:01] Go forward ten meters.\n"), "\(context)")
    #expect(report.txtDownloaded, "\(context)")
    #expect(report.fileChooserOpened == 2, "Space and Enter open the chooser; \(context)")
    #expect(report.viewFromButton == "captions", "\(context)")
    #expect(report.viewAfterEscape == "", "\(context)")
    #expect(report.focusAfterEscape == "full-screen", "\(context)")
    #expect(report.clearQuestion.hasPrefix("Clear the transcript?"), "\(context)")
    #expect(report.linesAfterClear == 0, "\(context)")
  }

  /// Two lines as the page stores them, its origin now (so live lines come after them).
  static func storedTranscript(in directory: URL) throws -> URL {
    func line(_ words: [(String, Double, Double)]) -> StoredTranscript.Line {
      StoredTranscript.Line(
        start: words[0].1, end: words.last!.2,
        text: words.map(\.0).joined(separator: " "),
        words: words.map { [.text($0.0), .number($0.1), .number($0.2)] }, at: 0, label: "test")
    }
    let stored = StoredTranscript(
      version: 1, origin: Date().timeIntervalSince1970 * 1000, end: 5,
      lines: [
        line([("Go", 1, 1.2), ("forward", 1.2, 1.6), ("ten", 1.6, 1.9), ("meters.", 1.9, 2.5)]),
        line([("Turn", 4, 4.4), ("left.", 4.4, 5)]),
      ])
    let file = directory.appendingPathComponent("transcript.json")
    try JSONEncoder().encode(stored).write(to: file)
    return file
  }
}

// MARK: - What scripts/captions-page.py reports

struct PrefixedReport: Decodable, CustomStringConvertible {
  struct Request: Decodable {
    var method: String
    var path: String
    var upgrade: Bool
  }

  var found: Bool
  var lines: [String]
  var status: String
  var fileItems: [String]
  var requests: [Request]
  var outside: [String]
  var console: [String]

  var description: String {
    "lines \(lines), status \"\(status)\", files \(fileItems), requests "
      + "\(requests.map { "\($0.method) \($0.path)\($0.upgrade ? " (upgrade)" : "")" }), "
      + "outside the prefix \(outside), console \(console)"
  }
}

struct DropReport: Decodable {
  var overZone: String
  var overElsewhere: String
  var overAfter: String
  var address: String
  var firstItems: [String]
  var fileItems: [String]
  var lines: [String]
  var console: [String]
}

struct DeviceReport: Decodable {
  struct Microphone: Decodable {
    var asked: String?
    var got: String?
    var label: String?
  }

  var found: Bool
  var status: String
  var chosen: String?
  var options: [String]?
  var liveAfterSwitch: String?
  var newLines: [String]?
  var microphones: [Microphone]?
  var trackStates: [String]?
  var sockets: Int?
  var storedDevice: String?
  var deviceAfterReload: String?
}

struct LanguageReport: Decodable {
  struct Line: Decodable {
    var text: String
    var title: String
  }

  struct Sent: Decodable {
    var socket: Int
    var data: String
  }

  var found: Bool
  var status: String
  var engineBefore: String?
  var engineAfter: String?
  var liveAfterSwitch: String?
  var newLines: [Line]?
  var sent: [Sent]?
  var sockets: Int?
  var storedLanguage: String?
}

struct TranscriptReport: Decodable {
  var lines: [String]
  var copiedStatus: String
  var clipboard: String
  var txt: String?
  var question: String
  var linesAfterRefusal: Int
  var storedAfterRefusal: Bool
  var linesAfterClear: Int
  var statusAfterClear: String
  var storedAfterClear: String?
  var linesAfterReload: Int
  var storedAfterReload: String?
  var askedWhenEmpty: String?
}

struct KeyboardReport: Decodable {
  struct Focus: Decodable {
    var id: String
    var focusVisible: Bool?
    var outlineStyle: String?
    var outlineWidth: Double?
    var visible: Bool?
  }

  var order: [Focus]
  var listening: Bool
  var focusWhileListening: String
  var viewFromToggle: String
  var focusInView: String
  var viewAfterLeave: String
  var focusAfterLeave: String
  var statusAfterSpace: String
  var focusAfterStop: String
  var size: [String]
  var device: [String?]
  var copyStatus: String
  var clipboard: String
  var txtDownloaded: Bool
  var fileChooserOpened: Int
  var viewFromButton: String
  var viewAfterEscape: String
  var focusAfterEscape: String
  var clearQuestion: String
  var linesAfterClear: Int
}
