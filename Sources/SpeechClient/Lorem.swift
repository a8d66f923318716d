import Dependencies
import Foundation

extension SpeechClient {
  /// A client that "hears" lorem ipsum, for previews, demos and `transcribe --preview`.
  ///
  /// It needs no audio server and no model. Once a task starts it emits one word at a time, each
  /// after `letters × 50 ms + a random 0…200 ms` (a speaking cadence), as cumulative results
  /// whose ``Transcription/formattedString`` holds every word so far and whose segments carry
  /// timestamps; every eighth word ends an utterance. ``finishTask`` ends the utterance being
  /// spoken and the stream with an ``SpeechRecognitionResult/isFinal`` result. Starting a task
  /// ends the previous one's stream; a stream whose consumer goes away stops only its own task.
  /// It lists one capture device, `lorem`. Timing comes from `@Dependency(\.continuousClock)` and the random delay from
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
      },
      captureDevices: {
        [CaptureDevice(name: "lorem", description: "Lorem ipsum (preview)", isDefault: true)]
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
  private var current: Speaking?

  /// The task being spoken: its number, so an older stream ending never stops a newer task.
  private struct Speaking {
    var id: Int
    var continuation: AsyncThrowingStream<SpeechRecognitionResult, any Error>.Continuation
    var speaking: Task<Void, Never>
    var transcript = TranscriptionBuilder()
    var wordCount = 0
    var elapsed = Duration.zero

    func result(isFinal: Bool) -> SpeechRecognitionResult {
      SpeechRecognitionResult(
        bestTranscription: transcript.transcription, isFinal: isFinal,
        progress: RecognitionProgress(audioDuration: elapsed.timeInterval))
    }
  }
  private var nextID = 0

  init(words: [String]) {
    self.words = words
  }

  func start(
    clock: any Clock<Duration>, random: WithRandomNumberGenerator, reportPartials: Bool
  ) -> AsyncThrowingStream<SpeechRecognitionResult, any Error> {
    stop(nil)
    nextID += 1
    let id = nextID
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream(bufferingPolicy: .unbounded)
    let words = self.words
    let speaking = Task {
      var index = 0
      while !Task.isCancelled, !words.isEmpty {
        let word = words[index % words.count]
        let delay = SpeechClient.loremDelay(for: word, random: random)
        do {
          try await clock.sleep(for: delay)
        } catch {
          return
        }
        self.heard(word, duration: delay, reportPartials: reportPartials, task: id)
        index += 1
      }
    }
    current = Speaking(id: id, continuation: continuation, speaking: speaking)
    continuation.onTermination = { [weak self] _ in
      Task { await self?.stop(id) }
    }
    return stream
  }

  private func heard(_ word: String, duration: Duration, reportPartials: Bool, task id: Int) {
    guard var task = current, task.id == id else { return }
    task.transcript.partialSegments.append(
      TranscriptionSegment(
        substring: word, timestamp: task.elapsed.timeInterval, duration: duration.timeInterval,
        confidence: 1))
    task.elapsed += duration
    task.wordCount += 1
    if task.wordCount % SpeechClient.loremUtteranceLength == 0 {
      task.transcript.appendUtterance(task.transcript.partialSegments)
    }
    current = task
    if reportPartials || task.transcript.partialSegments.isEmpty {
      task.continuation.yield(task.result(isFinal: false))
    }
  }

  func finish() {
    guard var task = current else { return }
    current = nil
    task.speaking.cancel()
    // The words of the utterance being spoken end it.
    task.transcript.appendUtterance(task.transcript.partialSegments)
    task.continuation.yield(task.result(isFinal: true))
    task.continuation.finish()
  }

  /// Stops task `id` (or whichever is running, for `nil`) without a final result.
  private func stop(_ id: Int?) {
    guard let task = current, id == nil || task.id == id else { return }
    current = nil
    task.speaking.cancel()
    task.continuation.finish()
  }
}
