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
    let (inbox, opened, _) = AudioInbox.live()
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
    let (inbox, _, _) = AudioInbox.live()
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

  @Test func utterancesStartedOneAfterAnotherEachGetTheirOwnMessages() async throws {
    let (inbox, latest, _) = AudioInbox.live()
    // Utterance one starts under 1 (messages 2, 3), utterance two under 4 (message 5); the
    // effects run out of order.
    let first = try pushedAudio(inbox.start(16_000, 1))
    inbox.push(3, ByteBuffer(bytes: [2, 0]))
    let second = try pushedAudio(inbox.start(8_000, 4))
    #expect(latest() === second)
    #expect(second.sampleRate == 8_000)
    inbox.push(5, ByteBuffer(bytes: [9, 0]))
    #expect(first.pushedSampleCount == 0 && second.pushedSampleCount == 0)
    inbox.push(2, ByteBuffer(bytes: [1, 0]))
    // The first audio ends after its last message, though its own end comes later.
    #expect(first.read(timeout: .zero) == .samples([1, 2]))
    #expect(first.isFinished)
    #expect(second.read(timeout: .zero) == .samples([9]))
    await inbox.finish(3)
    #expect(!second.isFinished)
    await inbox.finish(5)
    #expect(second.isFinished)
  }

  @Test func theSecondsConsumedCountEveryAudioEvenThoseLetGo() async throws {
    let (inbox, _, consumedSeconds) = AudioInbox.live()
    // 4 samples at 4 kHz (1 ms) in the first audio, 2 samples at 2 kHz (1 ms) in the second.
    let first = try pushedAudio(inbox.start(4_000, 1))
    inbox.push(2, ByteBuffer(bytes: [1, 0, 2, 0, 3, 0, 4, 0]))
    #expect(first.read(timeout: .zero) == .samples([1, 2, 3, 4]))
    #expect(consumedSeconds() == 0.001)
    // Starting the second lets the first go (it has ended); its seconds still count.
    let second = try pushedAudio(inbox.start(2_000, 3))
    inbox.push(4, ByteBuffer(bytes: [5, 0, 6, 0]))
    #expect(second.read(timeout: .zero) == .samples([5, 6]))
    #expect(consumedSeconds() == 0.002)
  }

  @Test func anInboxNeverOpenedEndsAtOnce() async {
    let (inbox, opened, _) = AudioInbox.live()
    await inbox.finish(0)
    #expect(opened() == nil)
  }
}
