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
      "The largest upload POST /v1/audio/transcriptions accepts, in MiB.", valueName: "mib"))
  var maxUploadMb = 100

  func validate() throws {
    guard (0...65_535).contains(port) else {
      throw ValidationError("--port must be between 0 and 65535.")
    }
    if let maxSessions, maxSessions < 1 {
      throw ValidationError("--max-sessions must be a whole number of sessions, at least 1.")
    }
    guard (1...65_536).contains(maxUploadMb) else {
      throw ValidationError("--max-upload-mb must be a whole number of MiB from 1 to 65536.")
    }
  }

  func run() async throws {
    let token = token ?? ProcessInfo.processInfo.environment["TRANSCRIBE_TOKEN"]
    var live = LiveSpeechConfiguration()
    // Sessions get their audio over the network, not from an audio server: authorization only
    // checks the model.
    live.authorizationRequest = SpeechRecognitionRequest(source: .standardInput(raw: true))
    var configuration = ServerConfiguration(
      host: host, port: port, maxSessions: maxSessions ?? live.jobs,
      token: token.flatMap { $0.isEmpty ? nil : AccessToken($0) })
    configuration.maxUploadBytes = maxUploadMb << 20
    let preview = self.preview
    let server = TranscriptionServer(configuration: configuration) { [live] in
      preview ? .lorem() : .live(live)
    }
    try await server.makeApplication().runService()
  }
}
