import ArgumentParser
import Foundation
import Logging
import SpeechClient
import SpeechClientLive
import TranscribeServer

/// `transcribe serve`: the speech pipeline as a streaming service.
struct Serve: AsyncParsableCommand {
  static let configuration = CommandConfiguration(
    abstract: "Serve speech recognition over WebSocket (vosk protocol) and HTTP (OpenAI API).",
    discussion: """
      Listens on 127.0.0.1:2700 unless --host/--port say otherwise. Binding to 0.0.0.0 serves \
      every interface: set --token (or TRANSCRIBE_TOKEN) when you do.
      """
  )

  @Option(help: ArgumentHelp("The address to listen on.", valueName: "address"))
  var host = "127.0.0.1"

  @Option(help: ArgumentHelp("The TCP port to listen on.", valueName: "port"))
  var port = 2700

  @Option(
    help: ArgumentHelp(
      "Sessions that may run at once (default: the decoder pool size).", valueName: "n"))
  var maxSessions: Int?

  @Option(
    help: ArgumentHelp(
      "Require `Authorization: Bearer TOKEN` (default: $TRANSCRIBE_TOKEN).", valueName: "token"))
  var token: String?

  @Flag(help: "Serve the lorem ipsum client: no model is loaded.")
  var preview = false

  @Option(
    help: ArgumentHelp(
      "Log this level and above on stderr: trace, debug, info, notice, warning, error, critical.",
      valueName: "level"))
  var logLevel: Logger.Level = .info

  func validate() throws {
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be between 0 and 65535.")
    }
    if let maxSessions, maxSessions < 1 {
      throw ValidationError("--max-sessions must be a whole number of sessions, at least 1.")
    }
  }

  func run() async throws {
    bootstrapServeLogging(level: logLevel)
    let token = token ?? ProcessInfo.processInfo.environment["TRANSCRIBE_TOKEN"]
    let live = LiveSpeechConfiguration()
    let configuration = ServerConfiguration(
      host: host, port: port, maxSessions: maxSessions ?? live.jobs,
      token: token.flatMap { $0.isEmpty ? nil : AccessToken($0) })
    let preview = self.preview
    let server = TranscriptionServer(configuration: configuration) {
      preview ? .lorem() : .live(live)
    }
    try await server.makeApplication().runService()
  }
}
