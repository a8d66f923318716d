import ArgumentParser
import SpeechClient
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

  @Test func theHelpSaysTheServersLimits() {
    let help = Serve.helpMessage()
    let defaults = ServerConfiguration()
    #expect(help.contains("\(defaults.host):\(defaults.port)"))
    #expect(help.contains("(default \(defaults.idleTimeout.components.seconds))"))
    #expect(help.contains("\(defaults.minimumUploadRate >> 10) KiB/s"))
  }
}
