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
  /// It lists one capture device, `lorem`. Timing comes from `@Dependency(\.continuousClock)` and
  /// the random delay from `@Dependency(\.withRandomNumberGenerator)`, so tests drive it with a
  /// `TestClock` and a seeded generator.
  ///
  /// For ``SpeechRecognitionRequest/AudioSource/pushed(_:)`` audio the pace is the audio's
  /// instead of the clock's: it hears one word per ``loremWordDuration`` of pushed audio (with
  /// that word's place in the audio as its time), reports its position in the audio after every
  /// chunk it takes, and ends with a final result once the audio is finished and read;
  /// ``finishTask`` finishes the audio, so what was pushed before is still heard.
  public static func lorem(words: [String] = loremWords) -> SpeechClient {
    let recognizer = LoremRecognizer(words: words)
    return SpeechClient(
      requestAuthorization: { .authorized },
      startTask: { request in
        if case let .pushed(audio) = request.source {
          return await recognizer.start(
            pushed: audio, reportPartials: request.shouldReportPartialResults)
        }
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

  /// How much pushed audio makes one lorem word.
  public static let loremWordDuration = Duration.milliseconds(300)

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
    /// The audio a pushed task reads, which its finish ends.
    var pushed: PushedAudio?

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

  func start(
    pushed audio: PushedAudio, reportPartials: Bool
  ) -> AsyncThrowingStream<SpeechRecognitionResult, any Error> {
    stop(nil)
    nextID += 1
    let id = nextID
    let (stream, continuation) = AsyncThrowingStream<SpeechRecognitionResult, any Error>
      .makeStream(bufferingPolicy: .unbounded)
    let words = self.words
    let wordSamples = max(
      1, Int(SpeechClient.loremWordDuration.timeInterval * Double(audio.sampleRate)))
    let speaking = Task {
      var index = 0
      var heardSamples = 0
      while let samples = await audio.next() {
        heardSamples += samples.count
        while !words.isEmpty, heardSamples >= (index + 1) * wordSamples {
          self.heard(
            words[index % words.count], duration: SpeechClient.loremWordDuration,
            reportPartials: reportPartials, task: id, reportsPosition: false)
          index += 1
        }
        self.reachedPosition(audio.consumedDuration, reportPartials: reportPartials, task: id)
      }
      if !Task.isCancelled { self.finish(id) }
    }
    current = Speaking(id: id, continuation: continuation, speaking: speaking, pushed: audio)
    continuation.onTermination = { [weak self] _ in
      Task { await self?.stop(id) }
    }
    return stream
  }

  /// A pushed task took audio up to `position` seconds: says so, so the host knows.
  private func reachedPosition(_ position: TimeInterval, reportPartials: Bool, task id: Int) {
    guard var task = current, task.id == id else { return }
    if !reportPartials { task.transcript.partialSegments = [] }
    var result = task.result(isFinal: false)
    result.progress = RecognitionProgress(audioDuration: position)
    task.continuation.yield(result)
  }

  private func heard(
    _ word: String, duration: Duration, reportPartials: Bool, task id: Int,
    reportsPosition: Bool = true
  ) {
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
    if reportsPosition, reportPartials || task.transcript.partialSegments.isEmpty {
      task.continuation.yield(task.result(isFinal: false))
    }
  }

  func finish() {
    if let audio = current?.pushed {
      // The words of what was pushed before still come; the task ends when they have.
      audio.finish()
      return
    }
    finish(nil)
  }

  /// Ends task `id` (or whichever is running, for `nil`) with a final result.
  private func finish(_ id: Int?) {
    guard var task = current, id == nil || task.id == id else { return }
    current = nil
    task.speaking.cancel()
    // The words of the utterance being spoken end it.
    task.transcript.appendUtterance(task.transcript.partialSegments)
    var result = task.result(isFinal: true)
    if let audio = task.pushed {
      result.progress = RecognitionProgress(audioDuration: audio.consumedDuration)
    }
    task.continuation.yield(result)
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
