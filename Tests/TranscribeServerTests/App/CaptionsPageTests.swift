import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import SpeechClient
import Testing
import TranscriptFormats

@testable import TranscribeServer

@Suite struct CaptionsPageTests {
  @Test func plainGetOnRootServesTheCaptionsPageAsHTML() async throws {
    let configuration = ServerConfiguration(port: 0)
    let server = TranscriptionServer(configuration: configuration) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        #expect(response.status == .ok)
        #expect(response.headers[.contentType] == "text/html; charset=utf-8")
        #expect(response.headers[.cacheControl] == "no-cache")
        let page = String(buffer: response.body)
        #expect(page.hasPrefix("<!doctype html>"))
        #expect(page.contains(#"<html lang="en">"#))
        let shown = try settings(in: page)
        #expect(
          shown
            == CaptionsPage.Settings(
              tokenRequired: false,
              finalWaitMilliseconds: milliseconds(configuration.finalWait)))
      }
    }
  }

  @Test func servedDocumentIsTheTemplateWithBothScriptsAndTheSettingsInPlace() throws {
    let template = CaptionsPage.template
    for marker in [
      CaptionsPage.Marker.settings, CaptionsPage.Marker.worklet, CaptionsPage.Marker.script,
    ] {
      #expect(template.components(separatedBy: marker).count == 2, "\(marker) once")
    }
    let page = CaptionsPage(tokenRequired: false).html
    #expect(!page.contains("{{"), "no marker left")
    #expect(
      page.contains(
        #"<script type="text/worklet" id="pcm-worklet">"# + "\n" + CaptionsPage.worklet
          + "</script>"))
    #expect(page.contains("<script>\n" + CaptionsPage.script + "</script>"))
    // Everything else is the template as written.
    let head = try #require(template.components(separatedBy: "{{").first)
    #expect(page.hasPrefix(head))
    #expect(page.hasSuffix("</script>\n</body>\n</html>\n"))
  }

  @Test func embeddedScriptsCanBeInlined() {
    for script in [CaptionsPage.script, CaptionsPage.worklet] {
      #expect(!script.isEmpty)
      // Nothing that would end the script element or start a comment in it, and no marker.
      #expect(!script.lowercased().contains("</script"))
      #expect(!script.contains("<!--"))
      #expect(!script.contains("{{"))
    }
  }

  @Test func settingsCarryTheServersValues() throws {
    let page = CaptionsPage(tokenRequired: true, finalWait: .milliseconds(2_500))
    let expected = CaptionsPage.Settings(tokenRequired: true, finalWaitMilliseconds: 2_500)
    #expect(page.settings == expected)
    #expect(try settings(in: page.html) == expected)
    // The public initializer uses the sessions' own limit.
    #expect(
      CaptionsPage(tokenRequired: false).settings.finalWaitMilliseconds
        == milliseconds(ServerConfiguration().finalWait))
    // The page reads them instead of keeping numbers of its own.
    let script = CaptionsPage.script
    #expect(script.contains("document.getElementById('captions-config').textContent"))
    #expect(script.contains("settings.tokenRequired === true"))
    #expect(script.contains("settings.finalWaitMilliseconds"))
    #expect(!script.contains("15000"))
  }

  @Test func workletEncodesLittleEndianPCMAtTheContextsOwnRate() {
    let worklet = CaptionsPage.worklet
    #expect(worklet.contains("class PCMEncoder extends AudioWorkletProcessor"))
    #expect(worklet.contains("registerProcessor('pcm-encoder', PCMEncoder);"))
    // 100 ms frames at the context's rate, 16-bit little-endian.
    #expect(worklet.contains("this.frameSamples = Math.round(sampleRate / 10);"))
    #expect(worklet.contains("this.view.setInt16(2 * this.count,"))
    #expect(worklet.contains("true);"))
    // No resampling in the browser: the server converts the rate.
    #expect(!worklet.contains("16000"))
    #expect(!worklet.contains("sinc"))
    let script = CaptionsPage.script
    #expect(script.contains("context.audioWorklet.addModule(moduleURL)"))
    #expect(script.contains("const config = { sample_rate: current.context.sampleRate };"))
    #expect(script.contains("socket.send(JSON.stringify({ config }));"))
    #expect(!script.contains("16000"))
  }

  @Test func pageStreamsToTheWebSocketOnItsOwnPathWithTheVoskMessages() {
    let page = CaptionsPage(tokenRequired: false).html
    #expect(page.contains("new WebSocket(socketURL())"))
    #expect(page.contains("location.protocol === 'https:' ? 'wss:' : 'ws:'"))
    #expect(page.contains("url.searchParams.set('token', token)"))
    #expect(page.contains(#"socket.send('{"eof" : 1}')"#))
    #expect(page.contains("typeof reply.partial === 'string'"))
    #expect(page.contains("typeof reply.text === 'string'"))
    #expect(page.contains("event.code === 1013"))
  }

  @Test func pageLoadsNothingFromOutside() {
    // The one address in the document is the icon's, which is empty: the browser asks the
    // server for nothing.
    let served = CaptionsPage(tokenRequired: false).html
    #expect(served.contains(#"<link rel="icon" href="data:,">"#))
    let page = served.replacingOccurrences(of: #"<link rel="icon" href="data:,">"#, with: "")
    // No element pulls in a script, style, font or image, and the CSS imports nothing.
    #expect(page.firstMatch(of: /\b(src|href|srcset)\s*=/) == nil)
    #expect(!page.contains("<link"))
    #expect(!page.contains("url("))
    #expect(!page.contains("@import"))
    // The only addresses the script uses are its own: the page's, the server's `readyz` and
    // transcription endpoint under it (whether or not a proxy's prefix ends in a slash), and
    // blobs (the worklet, downloads).
    #expect(page.contains("new URL(location.href)"))
    #expect(page.contains("url.pathname = url.pathname.replace(/\\/?$/, '/' + path);"))
    #expect(page.contains("return serverURL('readyz');"))
    #expect(page.contains("fetch(readinessURL(),"))
    #expect(page.contains("request.open('POST', serverURL('v1/audio/transcriptions'));"))
    #expect(page.firstMatch(of: /(fetch|open)\('?(https?:|\/)/) == nil)
  }

  @Test func pageHasAccessibleControlsAndLiveRegions() {
    let page = CaptionsPage(tokenRequired: false).html
    #expect(
      page.contains(
        #"<button id="toggle" class="primary" type="button" aria-pressed="false""#))
    #expect(page.contains(#"aria-keyshortcuts="Space">Start</button>"#))
    #expect(page.contains(#"role="status" aria-live="polite""#))
    #expect(page.contains(#"<div id="finals" role="log" aria-live="polite""#))
    #expect(page.contains(#"<meta name="viewport""#))
    // Every control is a labelled native element, reachable by keyboard.
    for control in [
      #"Microphone <select id="device">"#, #"Language <select id="language">"#,
      #"Level <meter id="level""#, #"<input id="file" class="visually-hidden" type="file""#,
      #"Size <input id="size" type="range""#,
    ] {
      #expect(page.contains(control), "\(control)")
    }
    #expect(page.contains("@media (prefers-color-scheme: dark)"))
  }

  @Test func pageOffersFilesTranscriptDownloadsAndViews() {
    let page = CaptionsPage(tokenRequired: false).html
    for id in [
      "file", "drop", "file-progress", "copy", "download-txt", "download-srt", "download-vtt",
      "clear", "full-screen",
    ] {
      #expect(page.contains(#"id="\#(id)""#), "\(id)")
    }
    let script = CaptionsPage.script
    // Files stream their lines, with the words' times for subtitles.
    #expect(script.contains("form.append('stream', 'true');"))
    #expect(script.contains("form.append('timestamp_granularities[]', 'word');"))
    // The transcript, the microphone, the language and the size are remembered.
    #expect(script.contains("transcript: 'transcribe.captions.transcript',"))
    #expect(script.contains("localStorage.setItem(key, value)"))
    // The CLI's cue rules (TranscriptFormats' SubtitleCue).
    #expect(
      script.contains(
        "const cueRules = { maximumDuration: \(Int(SubtitleCue.maximumDuration)), "
          + "maximumLineLength: \(SubtitleCue.maximumLineLength), "
          + "maximumLines: \(SubtitleCue.maximumLines) };"))
    // ?view=overlay: transparent, the last two lines.
    #expect(script.contains("const overlay = view === 'overlay';"))
    #expect(
      page.contains(
        #"html[data-view="overlay"], body[data-view="overlay"] { background: transparent; }"#))
    #expect(page.contains(#"#finals .line:not(:nth-last-child(-n+2)) { display: none; }"#))
  }

  @Test func aServerWithWhisperOffersItsLanguagesWithTheEngineOfEach() throws {
    var configuration = ServerConfiguration(port: 0)
    configuration.engines = [.moonshine, .pocketsphinx, .whisper]
    configuration.languages = [
      ServedLanguage(code: "en", name: "english"), ServedLanguage(code: "de", name: "german"),
    ]
    configuration.defaultLanguage = .code("de")
    let offered = CaptionsPage(configuration: configuration).settings
    #expect(
      offered.languages == [
        .init(code: "en", name: "English", engine: "Moonshine"),
        .init(code: "de", name: "German", engine: "Whisper"),
        .init(code: "auto", name: "Detected", engine: "Whisper"),
      ])
    #expect(offered.language == "de")
    // English only, on the default engine, without Whisper.
    var englishOnly = ServerConfiguration(port: 0)
    englishOnly.engines = [.moonshine, .pocketsphinx]
    #expect(
      CaptionsPage(configuration: englishOnly).settings.languages == [
        .init(code: "en", name: "English", engine: "Moonshine")
      ])
    #expect(try settings(in: CaptionsPage(configuration: configuration).html) == offered)
  }

  @Test func settingsCannotEndTheirScriptEarly() throws {
    var configuration = ServerConfiguration(port: 0)
    configuration.engines = [.whisper]
    configuration.languages = [ServedLanguage(code: "xx", name: "</script><b>&")]
    let page = CaptionsPage(configuration: configuration)
    #expect(!page.settings.json.contains("<"))
    #expect(!page.settings.json.contains("&"))
    #expect(try settings(in: page.html) == page.settings)
  }

  @Test func pageIsServedWithoutTheTokenAndSaysOneIsNeeded() async throws {
    let server = TranscriptionServer(
      configuration: ServerConfiguration(port: 0, token: AccessToken("s3cret"))
    ) { .lorem() }
    try await server.makeApplication().test(.router) { client in
      try await client.execute(uri: "/", method: .get) { response in
        #expect(response.status == .ok)
        let page = String(buffer: response.body)
        let shown = try settings(in: page)
        #expect(shown.tokenRequired)
        #expect(!page.contains("s3cret"))
        #expect(response.headers[HTTPField.Name("Referrer-Policy")!] == "no-referrer")
      }
    }
  }
}

/// The settings in a served page's `captions-config` script.
private func settings(in page: String) throws -> CaptionsPage.Settings {
  let opening = #"<script type="application/json" id="captions-config">"#
  let start = try #require(page.range(of: opening)).upperBound
  let end = try #require(page[start...].range(of: "</script>")).lowerBound
  return try JSONDecoder().decode(CaptionsPage.Settings.self, from: Data(page[start..<end].utf8))
}

private func milliseconds(_ duration: Duration) -> Int {
  Int(duration / .milliseconds(1))
}
