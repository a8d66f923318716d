import Foundation
import SpeechClient

/// How `transcribe serve` listens and what it allows.
///
/// ```swift
/// var configuration = ServerConfiguration()
/// configuration.port = 8080
/// configuration.token = AccessToken("s3cret")
/// ```
public struct ServerConfiguration: Sendable, Equatable {
  /// The address to bind: loopback unless the operator chooses otherwise (`0.0.0.0` serves every
  /// interface, and should come with a ``token``).
  public var host: String
  /// The TCP port; `0` picks a free one (tests).
  public var port: Int
  /// How many recognition sessions (WebSocket streams and uploads) may run at once; past it new
  /// ones are turned away (WebSocket close 1013, HTTP 503) instead of queueing.
  public var maxSessions: Int
  /// When set, every request but `/healthz` and `/readyz` must carry `Authorization: Bearer
  /// TOKEN` (browsers' WebSockets may pass `?token=TOKEN`).
  public var token: AccessToken?
  /// The largest upload `POST /v1/audio/transcriptions` accepts, in bytes (default 100 MiB).
  public var maxUploadBytes: Int
  /// The most audio an upload may hold (default two hours), as the file's header declares it:
  /// a longer file is answered 413 before it is decoded (a few MB of FLAC can declare ten hours
  /// of silence).
  public var maxUploadAudioDuration = Duration.seconds(7200)
  /// The slowest an upload's body may arrive, in bytes per second on average once
  /// ``uploadRateGrace`` has passed (default 16 KiB/s): slower uploads are answered 408, so a
  /// client sending a few bytes a second cannot hold the server's resources.
  public var minimumUploadRate = 16 << 10
  /// How long an upload's body may take to get going before ``minimumUploadRate`` applies
  /// (default 10 s).
  public var uploadRateGrace = Duration.seconds(10)
  /// How many uploads may be receiving their body at once (default: four per session place);
  /// past it new ones are answered 503. A body being received holds no session place.
  public var maxUploadsReading: Int?
  /// The largest WebSocket message accepted, in bytes (default 1 MiB).
  public var maxFrameBytes: Int
  /// How long a stream may go without audio before it is closed (default 30 s).
  public var idleTimeout: Duration
  /// How much audio renews a stream's idle time (default 0.1 s; clients send 0.1–0.5 s a
  /// message): the idle timeout runs from the moment this much audio has arrived since it last
  /// started, so a client trickling a few bytes at a time holds its place no longer than a
  /// silent one.
  public var idleRenewalAudio: Duration = .milliseconds(100)
  /// The longest a session may run (default one hour).
  public var maxSessionDuration: Duration
  /// How long, after SIGTERM, running sessions get to deliver their last words (default 10 s).
  public var shutdownGracePeriod: Duration
  /// The engines this server runs, its default first: `GET /v1/models` lists them, and an
  /// upload's `model` field picks one of them by name (other names mean the default).
  public var engines: [SpeechRecognitionRequest.EngineName] = [.pocketsphinx]
  /// The languages Whisper decodes here, English first, when the server runs Whisper (empty
  /// otherwise, and the server hears English only): a request's `language` may name any of
  /// them by code (`de`) or English name (`german`), and `auto` has it detected.
  public var languages: [ServedLanguage] = []
  /// The language of a request that names none (`serve --language`): English unless the
  /// operator chose another (or `auto`), which Whisper decodes.
  public var defaultLanguage: SpeechRecognitionRequest.Language = .english
  /// Web origins besides the server's own whose pages may use it (`--allow-origin`), such as
  /// `https://captions.example`; `*` allows every origin. Requests without an `Origin` header
  /// (anything but a browser) are never refused for it.
  public var allowedOrigins: [String] = []
  /// How long a connection may take to send a request's headers, and stay open between requests
  /// without sending one (default 15 s): past it, it gets 408 or is closed, so idle and
  /// half-sent connections do not pile up.
  public var requestHeaderTimeout: Duration = .seconds(15)
  /// How often a WebSocket is pinged (default 30 s); a client that has not answered by the next
  /// ping is closed, and its stream logged as `ping_timeout`.
  public var pingInterval: Duration = .seconds(30)
  /// How many connections may be open at once; past it, new ones get 503 and are closed at once
  /// (default: three quarters of the process's file-descriptor limit, so the server keeps
  /// descriptors for its own files and for `/healthz`).
  public var maxConnections: Int = ServerConfiguration.defaultMaxConnections

  /// The longest the reply to a stream's audio message waits for the decoder to catch up with
  /// it (default 2 s); then the stream is answered with the words so far.
  public var replyWait = Duration.seconds(2)
  /// The most audio that may wait to be decoded before a stream's next message is read
  /// (default 5 s): a client sending faster than the decoder waits in TCP.
  public var maxBufferedAudio = Duration.seconds(5)
  /// The longest a stream's last words may take after its end or a limit, on top of the
  /// recognizer's own stop deadline (default 15 s); the captions page is told it.
  public var finalWait = Duration.seconds(15)
  /// What a 503 asks the client to wait before it tries again, in seconds (`Retry-After`,
  /// default 1).
  public var retryAfterSeconds = 1
  /// The longest request target (path and query) read, in bytes (default 8 KiB); a longer
  /// one gets 414.
  public var maxRequestTargetBytes = 8 << 10
  /// The longest headers of one part of an upload's multipart body, in bytes (default 16 KiB).
  public var maxUploadPartHeaderBytes = 16 << 10
  /// The most bytes an upload's text fields may hold together (default 64 KiB).
  public var maxUploadFieldBytes = 64 << 10
  /// The sample rates a stream may declare, in Hz (vosk's `sample_rate`, Wyoming's `rate`;
  /// default 1 kHz to 384 kHz).
  public var sampleRates = 1_000...384_000
  /// The most alternatives a vosk stream may ask for (`max_alternatives`, default 100).
  public var maxAlternatives = 100
  /// The most phrases a vosk stream's `phrase_list` may hold (default 10,000). The list
  /// becomes a grammar that pocketsphinx compiles in one call that cannot be interrupted, so its
  /// size bounds how long a decoder is busy before the stream's first words, even for a client
  /// that has left.
  public var maxPhrases = 10_000
  /// The longest phrase of a vosk stream's `phrase_list`, in characters (default 200).
  public var maxPhraseLength = 200
  /// The longest a stream that is turned away (no session place, a shutdown, another intent)
  /// waits for the client's first message before it is answered (default 1 s): frames right
  /// behind the WebSocket upgrade can be lost by a client still finishing its side of it.
  public var turnAwayWait = Duration.seconds(1)
  /// How long every decoder of an engine must have been busy, with sessions that are over,
  /// before `GET /readyz` says `stuck` (default 10 s): longer than a session's last words take
  /// once its client has gone.
  public var stuckDecoderAge = Duration.seconds(10)

  /// The most bytes of headers a request may have, in all: the HTTP parser's own limit
  /// (NIO's, 80 KiB), which the server cannot change but states in its 431 answer.
  public static let parserHeaderBytes = 80 << 10
  /// The most header fields a request may have: the HTTP parser's own limit (NIO's, 100).
  public static let parserHeaderFields = 100

  // The limits the protocols set themselves (their specifications, which the server follows
  // and states in its answers), and the server's own fixed bounds.

  /// How many of the latest finished utterances a vosk stream's or a Realtime run's recognition
  /// keeps (`SpeechRecognitionRequest.keptUtterances`): both take each utterance as it finishes,
  /// so a caption stream left open for hours holds minutes of transcript, not hours.
  public static let streamKeptUtterances = 16
  /// The shortest audio a Realtime `input_audio_buffer.commit` takes, in milliseconds (OpenAI's
  /// API: 100 ms).
  public static let realtimeMinimumCommitMilliseconds = 100.0
  /// The `prefix_padding_ms` a `server_vad` turn detection or chunking strategy may ask for
  /// (OpenAI's API).
  public static let turnDetectionPrefixPadding = 0...10_000
  /// The `silence_duration_ms` a `server_vad` turn detection or chunking strategy may ask for
  /// (OpenAI's API).
  public static let turnDetectionSilence = 100...10_000
  /// The `idle_timeout_ms` a Realtime `server_vad` turn detection may ask for (OpenAI's API).
  public static let turnDetectionIdleTimeout = 5_000...30_000
  /// The most a ping, pong or close frame's payload holds (RFC 6455, section 5.5).
  public static let controlFramePayloadBytes = 125
  /// The most bytes of a WebSocket close frame's reason (RFC 6455: a control frame's payload
  /// less the 2 bytes of the code).
  public static let closeReasonBytes = controlFramePayloadBytes - 2
  /// How much longer than the shutdown grace period the server waits for its sessions in all,
  /// beyond each session's own bound.
  public static let drainSlack = Duration.seconds(2)
  /// The longest boundary a multipart upload's delimiter lines have (RFC 2046: 70 characters).
  public static let multipartBoundaryLength = 70
  /// How often Home Assistant's names are read again (`--hass-url`).
  public static let homeAssistantRefreshInterval = Duration.seconds(300)
  /// How long a request to Home Assistant's API may take, in seconds.
  public static let homeAssistantRequestTimeout: TimeInterval = 10
  /// How much of a client's own text an error quotes back, in characters: a form field's value
  /// (OpenAI), a JSON value or event type (Realtime), a text message (vosk), a Realtime intent.
  public static let quotedFieldValue = 100
  public static let quotedJSONValue = 60
  public static let quotedMessage = 80
  public static let quotedIntent = 40
  /// The most characters a log line keeps of one metadata value (``OneLineLogHandler``).
  public static let loggedValueCharacters = 256
  /// How long a connection refused mid-stream stays open after its answer, so the client reads
  /// it before the close (in seconds).
  public static let refusalLingerSeconds: Int64 = 2
  /// The most audio arrival times a vosk stream keeps for its latency figures (a long stretch
  /// without words must not grow the list).
  public static let measuredArrivals = 1_000

  /// Home Assistant's Wyoming protocol: its listeners (none by default), endpointing and
  /// limits.
  public var wyoming = WyomingSettings()
  /// Whether the HTTP and WebSocket server runs (`--no-http` serves Wyoming alone).
  public var servesHTTP = true

  /// How many uploads may be receiving their body at once: ``maxUploadsReading``, else four
  /// per session place.
  public var uploadsReadingLimit: Int { maxUploadsReading ?? 4 * maxSessions }

  /// The largest WebSocket frame read at all: twice ``maxFrameBytes``, so a stream answers a
  /// message just over the limit itself; a larger frame is refused by the protocol layer (1009,
  /// after an error message from ``OversizedFrameHandler``).
  public var frameReadLimit: Int { 2 * maxFrameBytes }

  /// Three quarters of the soft limit on open file descriptors (at least 16).
  public static var defaultMaxConnections: Int {
    var limit = rlimit()
    // RLIM_INFINITY is all ones, beyond any real limit: the cap covers it.
    guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1 << 16 }
    return max(16, Int(min(limit.rlim_cur, 1 << 20)) * 3 / 4)
  }

  /// Creates a configuration: `127.0.0.1:2700`, two sessions, no token, and the default limits.
  public init(
    host: String = "127.0.0.1", port: Int = 2700, maxSessions: Int = 2,
    token: AccessToken? = nil, maxUploadBytes: Int = 100 << 20, maxFrameBytes: Int = 1 << 20,
    idleTimeout: Duration = .seconds(30), maxSessionDuration: Duration = .seconds(3600),
    shutdownGracePeriod: Duration = .seconds(10)
  ) {
    self.host = host
    self.port = port
    self.maxSessions = maxSessions
    self.token = token
    self.maxUploadBytes = maxUploadBytes
    self.maxFrameBytes = maxFrameBytes
    self.idleTimeout = idleTimeout
    self.maxSessionDuration = maxSessionDuration
    self.shutdownGracePeriod = shutdownGracePeriod
  }
}

/// A language the server decodes: its code and English name, as Whisper writes them.
public struct ServedLanguage: Equatable, Sendable {
  /// The code (`de`).
  public var code: String
  /// The English name in lower case (`german`).
  public var name: String

  /// Creates a language.
  public init(code: String, name: String) {
    self.code = code
    self.name = name
  }
}

extension ServerConfiguration {
  /// The language a request's `language` names (`en`, `en-US`, `english`, `de`, `de_DE`,
  /// `German`, `auto`), or `nil` when this server does not decode it. English is always
  /// decoded; other languages and `auto` when the server runs Whisper.
  public func servedLanguage(_ text: String) -> SpeechRecognitionRequest.Language? {
    languages.served(text)
  }

  /// The English name of a language code, as OpenAI's `verbose_json` writes it: `english`.
  public func languageName(_ code: String) -> String {
    code == "en" ? "english" : languages.first { $0.code == code }?.name ?? code
  }
}

extension [ServedLanguage] {
  /// The language `text` names among these (see ``ServerConfiguration/servedLanguage(_:)``):
  /// English always, the others and `auto` when there are any.
  func served(_ text: String) -> SpeechRecognitionRequest.Language? {
    let lowered = text.trimmingCharacters(in: .whitespaces).lowercased()
    let primary = String(
      lowered.split(whereSeparator: { $0 == "-" || $0 == "_" }).first ?? Substring(lowered))
    if primary == "en" || lowered == "english" { return .english }
    guard !isEmpty else { return nil }
    if lowered == "auto" { return .automatic }
    return first { $0.code == primary || $0.name == lowered }.map { .code($0.code) }
  }
}
