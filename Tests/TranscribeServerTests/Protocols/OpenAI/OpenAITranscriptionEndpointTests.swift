import Foundation
import SpeechClient
import SpeechRecognitionFeature
import Testing

@testable import TranscribeServer

/// The upload host without a socket: one ``UploadSession`` store, a reader the test supplies,
/// and watchers for the client, a shutdown and the pace of the body. The session decides; the
/// host reads, reports and stops reading when the session is over.
@MainActor
@Suite struct OpenAITranscriptionEndpointTests {
  nonisolated static let request = SpeechRecognitionRequest(
    source: .file(URL(fileURLWithPath: "/tmp/upload")), shouldReportPartialResults: false)
  nonisolated static let session = UploadSession(timeLimit: .seconds(60))

  /// A client that hears `text` in any file, at once.
  static func client(hearing text: String) -> SpeechClient {
    SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { _ in
        AsyncThrowingStream { continuation in
          continuation.yield(
            SpeechRecognitionResult(
              bestTranscription: Transcription(
                segments: [
                  TranscriptionSegment(
                    substring: text, timestamp: 0, duration: 0.5, confidence: 1,
                    endsUtterance: true)
                ]),
              isFinal: true))
          continuation.finish()
        }
      },
      finishTask: {},
      captureDevices: { [] })
  }

  /// Runs an upload whose body never arrives: the reader waits until it is cancelled. Returns
  /// the session's last state and whether the reader was stopped.
  func runWithoutABody(
    connection: ClientConnection = ClientConnection(),
    shutdownNotice: ClientConnection = ClientConnection(), pace: UploadPace? = nil
  ) async -> (state: UploadSession.State, isReaderStopped: Bool) {
    let stopped = Latch()
    let (state, received) = await OpenAITranscriptionEndpoint.run(
      Self.session, client: SpeechClient(), clock: ContinuousClock(), connection: connection,
      shutdownNotice: shutdownNotice, pace: pace
    ) { () async throws(OpenAIError) -> (SpeechRecognitionRequest, String) in
      await Latch().wait()
      stopped.raise()
      throw .clientGone
    }
    #expect(received == nil)
    return (state, stopped.isRaised)
  }

  @Test func aBodyThatArrivesIsRecognizedAndWhatTheReaderLearntComesBack() async {
    let (state, received) = await OpenAITranscriptionEndpoint.run(
      Self.session, client: Self.client(hearing: "hello"), clock: ContinuousClock(),
      connection: ClientConnection(), shutdownNotice: ClientConnection()
    ) { () async throws(OpenAIError) in (Self.request, "json") }
    #expect(state.ending == .recognized)
    #expect(received == "json")
    #expect(state.recognition?.outcome == .finished)
    #expect(state.recognition?.result?.bestTranscription.formattedString == "hello")
    let transcription = try? OpenAITranscriptionEndpoint.transcription(
      of: state, configuration: ServerConfiguration(),
      pace: UploadPace(minimumRate: 1, grace: .zero))
    #expect(transcription != nil)
  }

  @Test func aBodyTheReaderRejectsEndsTheUploadWithItsError() async {
    let (state, received) = await OpenAITranscriptionEndpoint.run(
      Self.session, client: SpeechClient(), clock: ContinuousClock(),
      connection: ClientConnection(), shutdownNotice: ClientConnection()
    ) { () async throws(OpenAIError) -> (SpeechRecognitionRequest, String) in
      throw .missingField("file")
    }
    #expect(state.ending == .rejected(.missingField("file")))
    #expect(state.recognition == nil)
    #expect(received == nil)
    #expect(throws: OpenAIError.missingField("file")) {
      try OpenAITranscriptionEndpoint.transcription(
        of: state, configuration: ServerConfiguration(),
        pace: UploadPace(minimumRate: 1, grace: .zero))
    }
  }

  @Test func aClientThatLeavesWhileTheBodyArrivesStopsTheReading() async {
    let connection = ClientConnection()
    connection.markGone()
    let (state, isReaderStopped) = await runWithoutABody(connection: connection)
    #expect(state.ending == .clientGone)
    #expect(isReaderStopped)
  }

  @Test func aShutdownWhileTheBodyArrivesEndsTheUploadAtOnce() async {
    let shutdownNotice = ClientConnection()
    shutdownNotice.markGone()
    let (state, isReaderStopped) = await runWithoutABody(shutdownNotice: shutdownNotice)
    #expect(state.ending == .shutdown)
    #expect(isReaderStopped)
    #expect(throws: OpenAIError.shuttingDown(retryAfter: 1)) {
      try OpenAITranscriptionEndpoint.transcription(
        of: state, configuration: ServerConfiguration(),
        pace: UploadPace(minimumRate: 1, grace: .zero))
    }
  }

  @Test func aBodyBehindThePaceEndsTheUpload() async {
    // No grace and no byte yet: behind at once.
    let pace = UploadPace(minimumRate: 1_000, grace: .zero)
    let (state, isReaderStopped) = await runWithoutABody(pace: pace)
    #expect(state.ending == .tooSlow)
    #expect(isReaderStopped)
    #expect(throws: OpenAIError.uploadTooSlow(minimumRate: 1_000, grace: .zero)) {
      try OpenAITranscriptionEndpoint.transcription(
        of: state, configuration: ServerConfiguration(), pace: pace)
    }
  }
}
