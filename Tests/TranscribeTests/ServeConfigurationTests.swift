import ArgumentParser
import Foundation
import LiveTestSupport
import SpeechClient
import SpeechClientLive
import Testing
import TranscribeServer

@testable import transcribe

/// `transcribe serve`'s options become the server's configuration in-process: parsed and built
/// without starting a process or a server.
@Suite struct ServeConfigurationTests {
  @Test func optionsBecomeTheServersConfiguration() throws {
    let serve = try Serve.parse([
      "--host", "0.0.0.0", "--port", "8080", "--max-sessions", "3", "--max-connections", "40",
      "--idle-seconds", "5", "--max-session-seconds", "60.5", "--max-upload-mb", "7",
      "--max-upload-seconds", "90", "--allow-origin", "https://captions.example",
    ])
    let configuration = serve.serverConfiguration(
      maxSessions: 1, token: "s3cret", engines: [.moonshine, .pocketsphinx])
    var expected = ServerConfiguration(
      host: "0.0.0.0", port: 8080, maxSessions: 3, token: AccessToken("s3cret"),
      maxUploadBytes: 7 << 20, idleTimeout: .seconds(5), maxSessionDuration: .milliseconds(60_500))
    expected.maxConnections = 40
    expected.maxUploadAudioDuration = .seconds(90)
    expected.allowedOrigins = ["https://captions.example"]
    expected.engines = [.moonshine, .pocketsphinx]
    #expect(configuration == expected)
  }

  @Test func withoutOptionsTheServersDefaultsApply() throws {
    let configuration = try Serve.parse([]).serverConfiguration(
      maxSessions: 2, token: nil, engines: [.pocketsphinx])
    #expect(configuration == ServerConfiguration())
  }

  @Test func theDefaultSessionLimitFollowsTheEnginesCost() {
    // Moonshine's streams pace their partial results by cost: 32 on 2 cores kept their finals
    // within 0.66 s (Benchmarks/partials); pocketsphinx keeps one per core.
    #expect(Serve.defaultMaxSessions(engine: .moonshine, cores: 2) == 16)
    #expect(Serve.defaultMaxSessions(engine: .moonshine, cores: 0) == 8)
    #expect(Serve.defaultMaxSessions(engine: .pocketsphinx, cores: 4) == 4)
  }

  @Test func partialsIsOneSettingForTheServerAndTheCommand() throws {
    var live = LiveSpeechConfiguration()
    try Serve.parse(["--partials", "off"]).partialsOption.apply(to: &live)
    #expect(live.partialResults == .off)
    try Serve.parse(["--partials", "fast"]).partialsOption.apply(to: &live)
    #expect(live.partialResults == .fast)
    // Not given, the live client's default stands.
    try Serve.parse([]).partialsOption.apply(to: &live)
    #expect(live.partialResults == .fast)
    #expect(LiveSpeechConfiguration().partialResults == .balanced)
    let listening = try Transcribe.parse(["--partials", "off"])
    #expect(listening.liveConfiguration(voiceActivity: .init()).partialResults == .off)
    #expect(throws: (any Error).self) { try Serve.parse(["--partials", "slow"]) }
    let message = Serve.message(for: CleanExit.helpRequest(Serve.self))
    #expect(message.contains("fast|balanced|off"), "\(message)")
  }

  @Test(
    arguments: [
      ([String](), nil),
      (["--zeroconf"], Serve.defaultZeroconfName),
      (["--zeroconf", "kitchen"], "kitchen"),
      (["--zeroconf=kitchen"], "kitchen"),
      // Bare, before another option: that option is not its name.
      (["--zeroconf", "--no-http"], Serve.defaultZeroconfName),
      (["--zeroconf-name", "kitchen"], "kitchen"),
      (["--zeroconf", "--zeroconf-name", "kitchen"], "kitchen"),
    ] as [([String], String?)])
  func zeroconfTakesAnOptionalName(_ arguments: [String], _ name: String?) throws {
    let serve = try Serve.parse(["--wyoming", "tcp://0.0.0.0:10300"] + arguments)
    #expect(serve.announcedName == name)
  }

  @Test func aZeroconfNameMustFitADNSLabel() {
    let long = String(repeating: "a", count: 64)
    let error = #expect(throws: (any Error).self) {
      try Serve.parse(["--wyoming", "tcp://0.0.0.0:10300", "--zeroconf", long])
    }
    #expect(
      error.map(Serve.message(for:))
        == "--zeroconf NAME must be a name of 1 to 63 bytes, e.g. --zeroconf kitchen.")
  }

  @Test func theHelpShowsZeroconfsNameAsOptional() {
    let help = Serve.helpMessage(columns: 200)
    #expect(help.contains("--zeroconf [<name>]"), "\(help)")
    #expect(help.contains("--zeroconf-name <name>"))
    #expect(help.contains("The same as --zeroconf NAME"))
  }

  @Test func theTokenComesFromTheCommandLineBeforeTheEnvironment() throws {
    let directory = try TemporaryDirectory()
    let file = directory.url.appendingPathComponent("token")
    try Data("s3cret\n".utf8).write(to: file)
    let environment = ["TRANSCRIBE_TOKEN": "fr0m-env"]
    // --token-file wins over TRANSCRIBE_TOKEN, and the line break echo adds is not the token's.
    let fromFile = try Serve.parse(["--token-file", file.path]).resolvedToken(
      environment: environment)
    #expect(fromFile?.value == "s3cret")
    #expect(fromFile?.source == "--token-file \(file.path)")
    // So does --token; without either, the environment's token.
    #expect(
      try Serve.parse(["--token", "t0ken"]).resolvedToken(environment: environment)?.value
        == "t0ken")
    #expect(try Serve.parse([]).resolvedToken(environment: environment)?.value == "fr0m-env")
    #expect(try Serve.parse([]).resolvedToken(environment: [:]) == nil)
    // A Windows line end is a line break too.
    try Data("s3cret\r\n".utf8).write(to: file)
    #expect(
      try Serve.parse(["--token-file", file.path]).resolvedToken(environment: [:])?.value
        == "s3cret")
  }

  @Test func aTokenFileThatCannotBeUsedIsRefusedWithTheFix() throws {
    let directory = try TemporaryDirectory()
    func file(_ name: String, _ contents: Data) throws -> String {
      let url = directory.url.appendingPathComponent(name)
      try contents.write(to: url)
      return url.path
    }
    let missing = directory.url.appendingPathComponent("missing").path
    let cases: [(arguments: [String], message: String)] = [
      (
        ["--token-file", missing],
        "--token-file \(missing) does not exist: write the token into it (one line), or leave "
          + "--token-file out to serve without one."
      ),
      (
        ["--token-file", directory.url.path],
        "--token-file \(directory.url.path) is a directory: name the file that holds the "
          + "token, e.g. --token-file /etc/transcribe/token."
      ),
      (
        ["--token-file", try file("empty", Data())],
        "--token-file \(directory.url.path)/empty is empty: write a token of at least one "
          + "character into it, or leave --token-file out to serve without one."
      ),
      (
        ["--token-file", try file("newline", Data("\n\n".utf8))],
        "--token-file \(directory.url.path)/newline is empty: write a token of at least one "
          + "character into it, or leave --token-file out to serve without one."
      ),
      (
        ["--token-file", try file("large", Data(repeating: 0x61, count: 4097))],
        "--token-file \(directory.url.path)/large is over 4096 bytes: it should hold the token "
          + "alone, on one line."
      ),
      (
        ["--token-file", try file("binary", Data([0x73, 0xFF, 0xFE]))],
        "--token-file \(directory.url.path)/binary is not text: write the token into it as "
          + "printable ASCII, on one line."
      ),
      (
        ["--token-file", try file("lines", Data("one\ntwo\n".utf8))],
        "--token-file \(directory.url.path)/lines holds a control character (U+A), which cannot "
          + "be sent in an Authorization header: use printable ASCII without spaces (letters, "
          + "digits, punctuation)."
      ),
      (
        ["--token", "t0ken", "--token-file", try file("both", Data("s3cret".utf8))],
        "--token and --token-file both give the token: keep one (--token-file keeps it out of "
          + "the process list)."
      ),
    ]
    for (arguments, message) in cases {
      let error = #expect(throws: (any Error).self, "\(arguments)") {
        try Serve.parse(arguments)
      }
      #expect(error.map(Serve.message(for:)) == message)
    }
  }

  @Test func theHelpSaysTheServersLimits() {
    let help = Serve.helpMessage()
    let defaults = ServerConfiguration()
    #expect(help.contains("\(defaults.host):\(defaults.port)"))
    #expect(help.contains("(default \(defaults.idleTimeout.components.seconds))"))
    #expect(help.contains("\(defaults.minimumUploadRate >> 10) KiB/s"))
  }
}
