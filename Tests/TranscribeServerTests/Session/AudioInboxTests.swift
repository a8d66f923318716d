import Dependencies
import NIOCore
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// The live audio inbox: messages handed on in the order of their numbers, whatever order the
/// effects starting audios, pushing messages and ending audios run in, and the end only after
/// the last of them.
@Suite struct AudioInboxTests {
  @Test func messagesAreHandedOnInTheOrderOfTheirNumbers() throws {
    let (inbox, started, _) = AudioInbox.live()
    #expect(started() == nil)
    // Messages that come before their audio has started wait for it.
    inbox.push(3, ByteBuffer(bytes: [5, 0]))
    inbox.push(1, ByteBuffer(bytes: [1, 0, 2, 0]))
    let audio = PushedAudio(sampleRate: 8_000)
    inbox.start(audio, 0)
    #expect(started() === audio)
    #expect(audio.read(timeout: .zero) == .samples([1, 2]))
    inbox.push(2, ByteBuffer(bytes: [3, 0, 4, 0]))
    #expect(audio.read(timeout: .zero) == .samples([3, 4, 5]))
  }

  @Test func theAudioEndsOnlyAfterTheMessagesBeforeTheEnd() async throws {
    let (inbox, _, _) = AudioInbox.live()
    let audio = PushedAudio()
    inbox.start(audio, 0)
    inbox.push(2, ByteBuffer(bytes: [2, 0]))
    let finishing = Task.immediate { await inbox.finish(2) }
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

  @Test func anEndAskedForBeforeItsAudioStartedWaitsForIt() async throws {
    let (inbox, _, _) = AudioInbox.live()
    // The effects of one audio (started under 1, message 2, the end after it) run backwards
    // (an immediate task asks before it first waits).
    let finishing = Task.immediate { await inbox.finish(2) }
    inbox.push(2, ByteBuffer(bytes: [7, 0]))
    let audio = PushedAudio()
    inbox.start(audio, 1)
    await finishing.value
    #expect(audio.read(timeout: .zero) == .samples([7]))
    #expect(audio.read(timeout: .zero) == .finished)
  }

  @Test func utterancesStartedOneAfterAnotherEachGetTheirOwnMessages() async throws {
    let (inbox, latest, _) = AudioInbox.live()
    // Utterance one starts under 1 (messages 2, 3), utterance two under 4 (message 5); the
    // effects run out of order.
    let first = PushedAudio(sampleRate: 16_000)
    let second = PushedAudio(sampleRate: 8_000)
    inbox.start(first, 1)
    inbox.push(3, ByteBuffer(bytes: [2, 0]))
    inbox.push(5, ByteBuffer(bytes: [9, 0]))
    inbox.start(second, 4)
    #expect(latest() === second)
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
    let first = PushedAudio(sampleRate: 4_000)
    inbox.start(first, 1)
    inbox.push(2, ByteBuffer(bytes: [1, 0, 2, 0, 3, 0, 4, 0]))
    #expect(first.read(timeout: .zero) == .samples([1, 2, 3, 4]))
    #expect(consumedSeconds() == 0.001)
    // Starting the second lets the first go (it has ended); its seconds still count.
    let second = PushedAudio(sampleRate: 2_000)
    inbox.start(second, 3)
    inbox.push(4, ByteBuffer(bytes: [5, 0, 6, 0]))
    #expect(second.read(timeout: .zero) == .samples([5, 6]))
    #expect(consumedSeconds() == 0.002)
  }

  @Test func audiosStartedOutOfOrderStillGetTheirOwnMessages() async throws {
    let (inbox, _, _) = AudioInbox.live()
    // Utterance one under 1 (message 2), utterance two under 3 (message 4): the second's start
    // runs first.
    let first = PushedAudio(sampleRate: 16_000)
    let second = PushedAudio(sampleRate: 16_000)
    inbox.start(second, 3)
    inbox.push(4, ByteBuffer(bytes: [4, 0]))
    inbox.push(2, ByteBuffer(bytes: [2, 0]))
    #expect(!second.isFinished && second.pushedSampleCount == 0)
    inbox.start(first, 1)
    #expect(first.read(timeout: .zero) == .samples([2]))
    #expect(first.isFinished)
    #expect(second.read(timeout: .zero) == .samples([4]))
    #expect(!second.isFinished)
    await inbox.finish(4)
    #expect(second.isFinished)
  }

  @Test func anEndBeforeTheOnlyAudioStartedUnderZeroWaitsForIt() async throws {
    let (inbox, started, _) = AudioInbox.live()
    // vosk's end with no audio: the audio started under 0 and its end, run the other way round.
    // An immediate task asks before it first waits, so the end is asked for first.
    let finishing = Task.immediate { await inbox.finish(0) }
    let audio = PushedAudio()
    inbox.start(audio, 0)
    await finishing.value
    #expect(started() === audio)
    #expect(audio.read(timeout: .zero) == .finished)
  }

  /// Sessions of one to four audios, their starts, messages and ends called in a seeded random
  /// order, each end from a task of its own (as effects run): every audio gets exactly its own
  /// messages, in order, and ends. The seed is in the failure's message.
  @Test(arguments: 1...200)
  func everyOrderOfTheEffectsGivesEachAudioItsOwnSamplesInOrder(seed: UInt64) async throws {
    var random = SeededRandomNumberGenerator(seed: seed)
    enum Call {
      case start(PushedAudio, Int)
      case push(Int, [Int16])
      case finish(Int)
    }
    var calls: [Call] = []
    var expected: [(audio: PushedAudio, samples: [Int16])] = []
    var number = 1
    var sample: Int16 = 1
    for index in 0..<Int.random(in: 1...4, using: &random) {
      let audio = PushedAudio(sampleRate: 16_000, identifier: "audio \(index)")
      calls.append(.start(audio, number))
      var samples: [Int16] = []
      for _ in 0..<Int.random(in: 0...8, using: &random) {
        number += 1
        let message = (0..<Int.random(in: 1...5, using: &random)).map { offset in
          sample + Int16(offset)
        }
        sample += Int16(message.count)
        samples += message
        calls.append(.push(number, message))
      }
      calls.append(.finish(number))
      expected.append((audio, samples))
      number += 1
    }
    calls.shuffle(using: &random)

    let (inbox, _, _) = AudioInbox.live()
    var finishing: [Task<Void, Never>] = []
    for call in calls {
      switch call {
      case .start(let audio, let number): inbox.start(audio, number)
      case .push(let number, let samples):
        inbox.push(
          number, ByteBuffer(bytes: samples.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }))
      case .finish(let number): finishing.append(Task.immediate { await inbox.finish(number) })
      }
      if Bool.random(using: &random) { await Task.yield() }
    }
    // Every end asked for returns (a waiter left hanging fails the test instead of hanging it).
    let returned = Mutex(0)
    Task { [finishing] in
      for task in finishing {
        await task.value
        returned.withLock { $0 += 1 }
      }
    }
    let deadline = ContinuousClock.now + .seconds(10)
    while returned.withLock({ $0 }) < finishing.count, ContinuousClock.now < deadline {
      try await Task.sleep(for: .milliseconds(1))
    }
    #expect(returned.withLock { $0 } == finishing.count, "seed \(seed): an end never returned")
    for (audio, samples) in expected {
      var read: [Int16] = []
      while case .samples(let more) = audio.read(timeout: .zero) { read += more }
      #expect(read == samples, "seed \(seed): \(audio)")
      #expect(audio.isFinished, "seed \(seed): \(audio)")
    }
  }
}
