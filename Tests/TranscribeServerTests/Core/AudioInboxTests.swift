import NIOCore
import SpeechClient
import Testing

@testable import TranscribeServer

/// The live audio inbox: messages handed on in the order of their numbers, whatever order the
/// effects pushing them run in, and the end only after the last of them.
@Suite struct AudioInboxTests {
  private func pushedAudio(_ source: SpeechRecognitionRequest.AudioSource) throws -> PushedAudio {
    guard case .pushed(let audio) = source else {
      Issue.record("expected pushed audio, got \(source)")
      throw CancellationError()
    }
    return audio
  }

  @Test func messagesAreHandedOnInTheOrderOfTheirNumbers() throws {
    let (inbox, opened) = AudioInbox.live()
    #expect(opened() == nil)
    let audio = try pushedAudio(inbox.open(8_000))
    #expect(audio.sampleRate == 8_000)
    #expect(opened() === audio)
    // Opening again is the same audio.
    #expect(try pushedAudio(inbox.open(16_000)) === audio)
    inbox.push(3, ByteBuffer(bytes: [5, 0]))
    inbox.push(2, ByteBuffer(bytes: [3, 0, 4, 0]))
    #expect(audio.pushedSampleCount == 0)
    inbox.push(1, ByteBuffer(bytes: [1, 0, 2, 0]))
    #expect(audio.read(timeout: .zero) == .samples([1, 2, 3, 4, 5]))
  }

  @Test func theAudioEndsOnlyAfterTheMessagesBeforeTheEnd() async throws {
    let (inbox, _) = AudioInbox.live()
    let audio = try pushedAudio(inbox.open(16_000))
    inbox.push(2, ByteBuffer(bytes: [2, 0]))
    let finishing = Task { await inbox.finish(2) }
    #expect(!audio.isFinished)
    inbox.push(1, ByteBuffer(bytes: [1, 0]))
    await finishing.value
    #expect(audio.isFinished)
    #expect(audio.read(timeout: .zero) == .samples([1, 2]))
    #expect(audio.read(timeout: .zero) == .finished)
    // A message after the end changes nothing.
    inbox.push(3, ByteBuffer(bytes: [3, 0]))
    #expect(audio.pushedSampleCount == 2)
  }

  @Test func anInboxNeverOpenedEndsAtOnce() async {
    let (inbox, opened) = AudioInbox.live()
    await inbox.finish(0)
    #expect(opened() == nil)
  }
}
