import ArgumentParser
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

  @Test func theHelpSaysTheServersLimits() {
    let help = Serve.helpMessage()
    let defaults = ServerConfiguration()
    #expect(help.contains("\(defaults.host):\(defaults.port)"))
    #expect(help.contains("(default \(defaults.idleTimeout.components.seconds))"))
    #expect(help.contains("\(defaults.minimumUploadRate >> 10) KiB/s"))
  }
}
