import Foundation
import SpeechClient
import Testing

@Suite struct PushedAudioTests {
  @Test func samplesPushedAreReadInOrderAndCounted() {
    let audio = PushedAudio(sampleRate: 8_000)
    audio.push([1, 2, 3])
    audio.push([4])
    #expect(audio.pushedSampleCount == 4)
    #expect(audio.read(maximumCount: 3, timeout: .zero) == .samples([1, 2, 3]))
    #expect(audio.consumedSampleCount == 3)
    #expect(audio.unconsumedDuration == 1.0 / 8_000)
    #expect(audio.read(timeout: .zero) == .samples([4]))
    #expect(audio.read(timeout: .milliseconds(1)) == .timedOut)
    audio.finish()
    #expect(audio.read(timeout: .seconds(10)) == .finished)
  }

  @Test func littleEndianBytesJoinAcrossPushes() {
    let audio = PushedAudio()
    audio.push(littleEndian: [0x01, 0x02, 0xFF])
    audio.push(littleEndian: [0xFF])
    #expect(audio.read(timeout: .zero) == .samples([0x0201, -1]))
  }

  @Test func finishingDeliversWhatWasPushedFirst() {
    let audio = PushedAudio()
    audio.push([7])
    audio.finish()
    audio.push([8])
    #expect(audio.isFinished)
    #expect(audio.read(timeout: .zero) == .samples([7]))
    #expect(audio.read(timeout: .zero) == .finished)
  }

  @Test func aWaitingReaderWakesForPushedSamples() async {
    let audio = PushedAudio()
    let reader = Task { await audio.next() }
    audio.push([5, 6])
    #expect(await reader.value == [5, 6])
    audio.finish()
    #expect(await audio.next() == nil)
  }

  @Test func cancellingAWaitingReaderEndsItsWait() async {
    let audio = PushedAudio()
    let reader = Task { await audio.next() }
    reader.cancel()
    #expect(await reader.value == nil)
  }

  @Test func equalityIsIdentity() {
    let audio = PushedAudio()
    #expect(audio == audio)
    #expect(audio != PushedAudio())
    #expect(
      SpeechRecognitionRequest(source: .pushed(audio))
        == SpeechRecognitionRequest(source: .pushed(audio)))
    #expect(!SpeechRecognitionRequest.AudioSource.pushed(audio).isLive)
  }

  @Test func audiosMadeWithTheSameIdentifierAndRateAreEqual() {
    let audio = PushedAudio(sampleRate: 16_000, identifier: "audio 1")
    #expect(audio == PushedAudio(sampleRate: 16_000, identifier: "audio 1"))
    #expect(audio.hashValue == PushedAudio(sampleRate: 16_000, identifier: "audio 1").hashValue)
    #expect(audio != PushedAudio(sampleRate: 8_000, identifier: "audio 1"))
    #expect(audio != PushedAudio(sampleRate: 16_000, identifier: "audio 2"))
    // One without an identifier is only ever itself.
    #expect(audio != PushedAudio(sampleRate: 16_000))
    #expect(PushedAudio(sampleRate: 16_000) != audio)
    #expect("\(audio)".hasPrefix("PushedAudio(audio 1, 16000 Hz"))
  }
}
