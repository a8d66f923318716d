import Dependencies
import Foundation

extension SpeechClient {
  /// A client that "hears" lorem ipsum, for previews, demos and `transcribe --preview`.
  ///
  /// It needs no audio server and no model. Once a task starts it emits one word at a time, each
  /// after `letters × 50 ms + a random 0…200 ms` (a speaking cadence), as cumulative results
  /// whose ``Transcription/formattedString`` holds every word so far and whose segments carry
  /// timestamps; every eighth word ends an utterance. ``finishTask`` ends the stream with an ``SpeechRecognitionResult/isFinal``
  /// result. Timing comes from `@Dependency(\.continuousClock)` and the random delay from
  /// `@Dependency(\.withRandomNumberGenerator)`, so tests drive it with a `TestClock` and a seeded
  /// generator.
  public static func lorem(words: [String] = loremWords) -> SpeechClient {
    let recognizer = LoremRecognizer(words: words)
    return SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { request in
        @Dependency(\.continuousClock) var clock
        @Dependency(\.withRandomNumberGenerator) var withRandomNumberGenerator
        return await recognizer.start(
          clock: clock, random: withRandomNumberGenerator,
          reportPartials: request.shouldReportPartialResults)
      },
      finishTask: {
        await recognizer.finish()
      }
    )
  }

  /// The words the lorem client speaks, in order (it starts over after the last).
  public static let loremWords: [String] = """
    lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut \
    labore et dolore magna aliqua ut enim ad minim veniam quis nostrud exercitation ullamco \
    laboris nisi ut aliquip ex ea commodo consequat duis aute irure dolor in reprehenderit in \
    voluptate velit esse cillum dolore eu fugiat nulla pariatur excepteur sint occaecat \
    cupidatat non proident sunt in culpa qui officia deserunt mollit anim id est laborum
    """.split(separator: " ").map(String.init)

  /// How many words make a lorem utterance.
  public static let loremUtteranceLength = 8

  /// The delay before a lorem word: 50 ms per letter plus a random 0…200 ms.
  public static func loremDelay(for word: String, random: WithRandomNumberGenerator) -> Duration {
    let jitter = random { Int.random(in: 0...200, using: &$0) }
    return .milliseconds(word.count * 50 + jitter)
  }
}

/// The state of the lorem client: one task at a time, like the live recognizer.
private actor LoremRecognizer {
  let words: [String]
  private var continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation?
  private var speaking: Task<Void, Never>?
  private var segments: [TranscriptionSegment] = []

  init(words: [String]) {
    self.words = words
  }

  func start(
    clock: any Clock<Duration>, random: WithRandomNumberGenerator, reportPartials: Bool
  ) -> AsyncThrowingStream<SpeechRecognitionResult, any Error> {
    stop()
    segments = []
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream()
    self.continuation = continuation
    let words = self.words
    speaking = Task {
      var elapsed = Duration.zero
      var index = 0
      while !Task.isCancelled, !words.isEmpty {
        let word = words[index % words.count]
        let delay = SpeechClient.loremDelay(for: word, random: random)
        do {
          try await clock.sleep(for: delay)
        } catch {
          return
        }
        self.heard(word, at: elapsed, duration: delay, reportPartials: reportPartials)
        elapsed += delay
        index += 1
      }
    }
    continuation.onTermination = { [weak self] _ in
      Task { await self?.stop() }
    }
    return stream
  }

  private func heard(_ word: String, at start: Duration, duration: Duration, reportPartials: Bool) {
    guard let continuation else { return }
    // After the previous word and a space.
    let location =
      segments.last.map { $0.substringRange.location + $0.substringRange.length + 1 }
      ?? 0
    segments.append(
      TranscriptionSegment(
        substring: word,
        substringRange: .init(location: location, length: word.utf16.count),
        timestamp: start.seconds,
        duration: duration.seconds,
        confidence: 1,
        endsUtterance: (segments.count + 1) % SpeechClient.loremUtteranceLength == 0
      ))
    if reportPartials {
      continuation.yield(result(isFinal: false))
    }
  }

  func finish() {
    speaking?.cancel()
    speaking = nil
    continuation?.yield(result(isFinal: true))
    continuation?.finish()
    continuation = nil
  }

  private func stop() {
    speaking?.cancel()
    speaking = nil
    continuation?.finish()
    continuation = nil
  }

  private func result(isFinal: Bool) -> SpeechRecognitionResult {
    SpeechRecognitionResult(
      bestTranscription: Transcription(
        formattedString: segments.map(\.substring).joined(separator: " "),
        segments: segments),
      isFinal: isFinal)
  }
}

extension Duration {
  /// The duration in seconds, as a `TimeInterval`.
  var seconds: TimeInterval {
    let (seconds, attoseconds) = components
    return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
  }
}
