import Foundation
import HTTPTypes
import Hummingbird
import SpeechClient

/// The live-captions page `GET /` serves: the browser's microphone, streamed to the WebSocket on
/// the same path, with the words appearing as they are spoken.
///
/// The page is written as three files under `Resources`, embedded in the binary at build time
/// (SwiftPM's `embedInCode`, read here as `PackageResources`), so nothing is looked up at run
/// time:
/// - `captions.html`: the document and its styles;
/// - `captions-worklet.js`: the AudioWorklet that mixes the microphone down to mono and posts
///   100 ms frames of 16-bit little-endian PCM at the AudioContext's own rate;
/// - `captions.js`: the page's script. It sends vosk's `{"config": {"sample_rate": …}}` with that
///   rate first (the server resamples whatever rate it is told), the frames as binary messages,
///   and `{"eof" : 1}` when Stop is pressed. `{"partial": …}` replies show as the line in
///   progress, `{"text": …}` replies become finished lines.
///
/// What the server owns, the page is told rather than keeping its own copy: whether a token is
/// required (to explain a refused connection), how long the server waits for the last words
/// (``ServerConfiguration/finalWait``, so the page knows when to stop waiting for the close),
/// and the languages it decodes with the engine of each (the page shows which engine listens and
/// offers a language picker when there is more than one). They go into a small JSON script,
/// `captions-config` (``Settings``).
///
/// Both scripts are inlined into the document rather than served at addresses of their own. The
/// page then stays one response: it works behind any path prefix a proxy adds (a relative
/// `captions.js` would resolve against the prefix's parent when the page's address has no
/// trailing slash), it loads nothing from elsewhere, and there are no further routes to keep
/// free of the token check or in step with the page's cache. The worklet still needs a module
/// address; the page makes a blob URL from the inlined source.
///
/// The WebSocket is `ws:` or `wss:` as the page is `http:` or `https:`, and a `?token=` in the
/// page's address is passed on to it. The page itself holds no secret, so it is served without
/// the token.
///
/// ```swift
/// let page = CaptionsPage(configuration: configuration)
/// router.get("/") { _, _ in page.response() }
/// ```
public struct CaptionsPage: Sendable, Equatable {
  /// Whether the server wants a token, so the page can explain a refused connection.
  public var tokenRequired: Bool
  /// How long the server waits for the last words after the end of a stream.
  var finalWait: Duration
  /// The server's engines, its default first.
  var engines: [SpeechRecognitionRequest.EngineName] = [.pocketsphinx]
  /// The languages besides English the server decodes (Whisper's), English first; empty when it
  /// hears English only.
  var languages: [ServedLanguage] = []
  /// The language of a stream that names none.
  var defaultLanguage: SpeechRecognitionRequest.Language = .english

  /// Creates the page for a server that does or does not require a token.
  public init(tokenRequired: Bool) {
    self.init(tokenRequired: tokenRequired, finalWait: ServerConfiguration().finalWait)
  }

  /// Creates the page for a server with these settings.
  init(tokenRequired: Bool, finalWait: Duration) {
    self.tokenRequired = tokenRequired
    self.finalWait = finalWait
  }

  /// Creates the page for a server with `configuration`: its token, its wait for the last
  /// words, its engines and its languages.
  public init(configuration: ServerConfiguration) {
    self.init(tokenRequired: configuration.token != nil, finalWait: configuration.finalWait)
    engines = configuration.engines
    languages = configuration.languages
    defaultLanguage = configuration.defaultLanguage
  }

  /// What the server tells the page, as the JSON of its `captions-config` script.
  struct Settings: Equatable, Sendable, Codable {
    /// Whether the server wants a token.
    var tokenRequired: Bool
    /// ``CaptionsPage/finalWait`` in whole milliseconds.
    var finalWaitMilliseconds: Int
    /// The languages a stream may ask for, each with the engine that decodes it: English
    /// alone on a server without Whisper; else English, the others, and `auto` (detected).
    var languages: [Language] = [Language(code: "en", name: "English", engine: "pocketsphinx")]
    /// The code of the language a stream gets when it names none (`en`, `de`, `auto`).
    var language = "en"

    /// A language on offer.
    struct Language: Equatable, Sendable, Codable {
      /// What the stream's `language` says: `en`, `de`, `auto`.
      var code: String
      /// Its name as the page shows it: `English`, `German`, `Detected`.
      var name: String
      /// The engine that decodes it, as people write its name: `Moonshine`, `Whisper`.
      var engine: String
    }

    /// The settings as JSON that may stand inside a script element: no `<` can end it early.
    var json: String {
      let encoder = JSONEncoder()
      encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
      let text = (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
      return text.replacingOccurrences(of: "<", with: "\\u003c")
        .replacingOccurrences(of: ">", with: "\\u003e")
        .replacingOccurrences(of: "&", with: "\\u0026")
    }
  }

  /// The settings this page is served with.
  var settings: Settings {
    let (seconds, attoseconds) = finalWait.components
    let english = Settings.Language(
      code: "en", name: "English", engine: (engines.first ?? .pocketsphinx).displayName)
    // Every language but English, and detection, is Whisper's (the live client's rule).
    let whisper = SpeechRecognitionRequest.EngineName.whisper.displayName
    let others = languages.filter { $0.code != "en" }.map {
      Settings.Language(code: $0.code, name: $0.name.capitalized, engine: whisper)
    }.sorted { $0.name < $1.name }
    let offered =
      languages.isEmpty
      ? [english]
      : [english] + others + [Settings.Language(code: "auto", name: "Detected", engine: whisper)]
    return Settings(
      tokenRequired: tokenRequired,
      finalWaitMilliseconds: Int(seconds) * 1000 + Int(attoseconds / 1_000_000_000_000_000),
      languages: offered, language: defaultLanguage.code)
  }

  /// The whole document.
  public var html: String {
    Self.document.head + settings.json + Self.document.tail
  }

  /// The document as an HTTP response: HTML, not cached (it changes with the server's
  /// configuration), and no referrer sent anywhere (the address may carry a token).
  public func response() -> Response {
    Response(
      status: .ok,
      headers: [
        .contentType: "text/html; charset=utf-8",
        .cacheControl: "no-cache",
        .referrerPolicy: "no-referrer",
        .contentTypeOptions: "nosniff",
      ],
      body: .init(byteBuffer: ByteBuffer(string: html)))
  }

  // MARK: - The embedded files

  /// `captions.html`, with a marker where each script and the settings go.
  static let template = String(decoding: PackageResources.captions_html, as: UTF8.self)
  /// `captions.js`.
  static let script = String(decoding: PackageResources.captions_js, as: UTF8.self)
  /// `captions-worklet.js`.
  static let worklet = String(decoding: PackageResources.captions_worklet_js, as: UTF8.self)

  /// The markers in ``template``, each replaced once.
  enum Marker {
    static let settings = "{{captions-config}}"
    static let worklet = "{{captions-worklet.js}}"
    static let script = "{{captions.js}}"
  }

  /// The template with both scripts in place, split where the settings go: the scripts are the
  /// same for every page, so they are inlined once.
  static let document: (head: String, tail: String) = {
    let withScripts = template.replacingOccurrences(of: Marker.worklet, with: worklet)
      .replacingOccurrences(of: Marker.script, with: script)
    let parts = withScripts.components(separatedBy: Marker.settings)
    return (parts[0], parts.dropFirst().joined(separator: Marker.settings))
  }()
}

extension HTTPField.Name {
  // Both names are valid header tokens, so the initializer cannot fail.
  fileprivate static let referrerPolicy = HTTPField.Name("Referrer-Policy")!
  fileprivate static let contentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
