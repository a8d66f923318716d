import AudioInput
import CMalloc
import ConcurrencyExtras
import Foundation
import Moonshine
import PocketSphinx
import Recognition
import SpeechClient

/// Audio files decoded ahead, in parallel, on the shared decoder pool, and delivered in order.
///
/// Creating a batch starts a reader thread that opens the files one after another, cuts each at
/// pauses into pieces (``UtteranceSegmenter``) and queues the pieces on the decoder pool of
/// ``LiveSpeechConfiguration/jobs`` workers, which decode them at the same time: the pieces of
/// one long file, and the files of a batch, use every core. Each file's results come in order
/// with times from the start of that file. With sentence endpointing the pieces are cut at the
/// longest pauses (where a live stream ends its utterance whatever was said) and each is split
/// into sentences by what the model wrote; where speech went on too long and a piece was cut
/// for length, the sentence across the cut is mended (`PieceJoins`). The batch's ``client(at:)`` for a file answers
/// `startTask` with that file's results, decoded or not yet.
///
/// The reader stays at most a few pieces ahead of the decoders, so memory does not grow with
/// the length of the files.
///
/// ```swift
/// let requests = paths.map { SpeechRecognitionRequest(source: .file(URL(fileURLWithPath: $0))) }
/// var configuration = LiveSpeechConfiguration()
/// configuration.jobs = 2
/// let batch = FileRecognitionBatch(requests, configuration: configuration)
/// for (index, request) in requests.enumerated() {
///   let client = batch.client(at: index)
///   for try await result in await client.startTask(request) where result.isFinal {
///     print(result.bestTranscription.formattedString)
///   }
/// }
/// ```
public final class FileRecognitionBatch: Sendable {
  /// The file of each request, `nil` for a request whose source is not a file.
  private let files: [FileRecognition?]
  private let requests: [SpeechRecognitionRequest]
  private let configuration: LiveSpeechConfiguration
  /// Each file's length in seconds, once the reader has looked at every file.
  private let lengths = LockIsolated<[TimeInterval]?>(nil)

  /// Starts decoding the files among `requests`; the others (standard input, capture sources)
  /// are left to stream when their turn comes.
  public init(_ requests: [SpeechRecognitionRequest], configuration: LiveSpeechConfiguration) {
    let files = requests.map { $0.source.isFileSource ? FileRecognition(request: $0) : nil }
    self.files = files
    self.requests = requests
    self.configuration = configuration
    let recognitions = files.compactMap { $0 }
    let settings = configuration
    let lengths = self.lengths
    DedicatedThread.start(name: "transcribe.reader") {
      lengths.setValue(Self.lengths(of: recognitions, configuration: settings))
      Self.read(recognitions, configuration: settings)
    }
  }

  /// How far decoding has come over all the files: finished files, and audio decoded.
  public var progress: FileBatchProgress {
    let recognitions = files.compactMap { $0 }
    let lengths = self.lengths.value
    var finished = 0
    var decoded: TimeInterval = 0
    for (index, recognition) in recognitions.enumerated() {
      if recognition.isFinished {
        finished += 1
        decoded += lengths?[index] ?? recognition.decodedAudio
      } else {
        decoded += recognition.decodedAudio
      }
    }
    return FileBatchProgress(
      finishedFiles: finished, fileCount: recognitions.count, decodedAudio: decoded,
      totalAudio: lengths?.reduce(0, +))
  }

  /// Each file's length in seconds, from its header (0 for a file that cannot be opened).
  private static func lengths(
    of recognitions: [FileRecognition], configuration: LiveSpeechConfiguration
  ) -> [TimeInterval] {
    recognitions.map { recognition in
      let input = try? recognition.request.source.open(
        configuration: configuration, stopSignal: StopSignal())
      return AudioBudget.length(of: input?.totalDuration, for: recognition.request) ?? 0
    }
  }

  /// The live client for the request at `index` of the batch: its first `startTask` delivers
  /// that file's results, decoded ahead; other tasks (and a request that is not a file) run as
  /// a plain live client's do.
  public func client(at index: Int) -> SpeechClient {
    var configuration = configuration
    if requests.indices.contains(index) {
      configuration.authorizationRequest = requests[index]
    }
    return .live(configuration, file: file(at: index))
  }

  /// The file of the request at `index`, `nil` when that request is not a file.
  func file(at index: Int) -> FileRecognition? {
    files.indices.contains(index) ? files[index] : nil
  }

  /// Reads every file in order, queueing its pieces on the pool.
  private static func read(
    _ recognitions: [FileRecognition], configuration: LiveSpeechConfiguration
  ) {
    let jobs = max(1, configuration.jobs)
    // Pieces read but not decoded yet: enough to keep every worker busy, and no more.
    let ahead = DispatchSemaphore(value: 2 * jobs + 2)
    for recognition in recognitions {
      // With `--language auto`, the file's first 30 s say which language (and so which engine)
      // decodes all of it: read them first, and decode them with the rest.
      var request = recognition.request
      var detectionInput: (input: any SampleSource, samples: [[Int16]])?
      if request.language == .automatic {
        do {
          let input = try request.source.open(
            configuration: configuration, stopSignal: StopSignal())
          var samples: [[Int16]] = []
          var count = 0
          let wanted = LiveSpeechConfiguration.languageDetectionSamples
          while count < wanted, let chunk = try input.read() {
            samples.append(chunk)
            count += chunk.count
          }
          request = try configuration.resolvingLanguage(of: request, from: samples.flatMap { $0 })
          detectionInput = (input, samples)
        } catch {
          recognition.readingEnded(at: 0, failure: SpeechClient.Failure(live: error))
          continue
        }
      }
      let engine: LiveEngine
      let pooled: LiveEngine
      do {
        engine = try configuration.engine(for: request)
        pooled = try configuration.pooledEngine(for: request)
      } catch {
        recognition.readingEnded(at: 0, failure: error)
        continue
      }
      let pool =
        (configuration.reportsPartialWordsOfFiles ? pooled : pooled.withoutPartialResults())
        .sharedPool(size: jobs)
      if pool.workerCount == 0 {
        // A worker loads its recognizer (the model, for the first) while this thread opens the
        // file and finds its first pause, instead of after.
        pool.submitAny { _ in }
      }
      let rate = Double(RecognitionAudio.sampleRate)
      // With sentence endpointing, a cut made for length may fall inside a sentence: the pieces
      // on either side are mended by decoding across it (see `PieceJoins`).
      let judgesSentences =
        recognition.request.voiceActivity?.judgesSentences ?? (engine.endpointing == .sentence)
      let joins =
        judgesSentences && engine.endpointing == .sentence
        ? PieceJoins(
          recognition: recognition, longest: configuration.maximumUtteranceDuration,
          endsSentence: { ($0 as? MoonshineRecognizer)?.lastSegmentEndsSentence ?? false })
        : nil
      // The request's phrases, which the pool's recognizers do not know, and its own pauses
      // (nil: the configuration's), for this file.
      let prepare = { @Sendable (recognizer: any SpeechRecognizer) in
        engine.favourPhrases(on: recognizer)
        let tuning = recognition.request.voiceActivity
        recognizer.tuneVoiceActivity(threshold: nil, endOfUtteranceSilence: tuning?.minimumSilence)
        recognizer.tuneEndpointing(
          judgesSentences: tuning?.judgesSentences, maximumSilence: tuning?.maximumSilence)
      }
      var pieces = 0
      let submit = { (segment: UtteranceSegmenter.Segment) in
        ahead.wait()
        let index = recognition.addSegment(
          startingAt: segment.startTime,
          endingAt: Double(segment.start + segment.samples.count) / rate)
        pieces += 1
        if segment.isCutForLength { joins?.cutForLength(index) }
        pool.submitAny { recognizer in
          defer { ahead.signal() }
          guard !recognition.isStopped else {
            if let joins {
              joins.decoded(index, .success([]), piece: segment, endsSentence: true, using: nil)
            } else {
              recognition.segmentDecoded(index, .success([]))
            }
            return
          }
          let result = recognizer.flatMap { recognizer in
            prepare(recognizer)
            return Result { () throws(RecognitionFailure) in
              try recognizer.decodeSegment(
                segment.samples, startingAt: segment.startTime, speech: segment.speech)
            }
          }
          .mapError(SpeechClient.Failure.init)
          // What a Moonshine piece's decoding freed goes back to the system: glibc keeps freed
          // memory in each thread's heap, and over an hour-long file the peak climbed by about
          // 100 MiB that way (`Benchmarks/decode/README.md`, 30 Nov).
          if case .success(let recognizer) = recognizer, recognizer is MoonshineRecognizer {
            malloc_trim(0)
          }
          guard let joins else {
            recognition.segmentDecoded(index, result)
            return
          }
          // A join decodes on this worker's recognizer, still tuned for this file.
          let recognizer = try? recognizer.get()
          joins.decoded(
            index, result, piece: segment,
            endsSentence: (recognizer as? MoonshineRecognizer)?.lastSegmentEndsSentence ?? false,
            using: recognizer)
        }
      }
      var segmenter: UtteranceSegmenter?
      var failure: SpeechClient.Failure?
      var read = 0
      do {
        try engine.validate()
        // A request may tune the detector for its file.
        let tuning = recognition.request.voiceActivity
        var detection = engine.voiceActivity
        if let threshold = tuning?.threshold { detection.threshold = threshold }
        // Pieces are cut only at pauses that end any utterance: with sentence endpointing the
        // longest, so no sentence is cut (the recognizer ends utterances inside a piece).
        let judgesSentences = tuning?.judgesSentences ?? (engine.endpointing == .sentence)
        let pauses = engine.endOfUtteranceSilence
        segmenter = UtteranceSegmenter(
          minimumPause: judgesSentences && engine.endpointing == .sentence
            ? max(tuning?.maximumSilence ?? pauses.longest, tuning?.minimumSilence ?? 0)
            : tuning?.minimumSilence
              ?? Endpointing.fixed.silence(
                configuredFor: engine.endpointing, configuredSilence: pauses.shortest),
          maximumDuration: configuration.maximumUtteranceDuration,
          voiceActivity: try detection.makeStream())
        let input =
          try detectionInput?.input
          ?? recognition.request.source.open(configuration: configuration, stopSignal: StopSignal())
        // The language detected for `--language auto`, which the results carry.
        var detectedLanguage: String?
        if recognition.request.language == .automatic, case .code(let code) = request.language {
          detectedLanguage = code
        }
        recognition.opened(
          totalDuration: AudioBudget.length(of: input.totalDuration, for: recognition.request),
          recordedSampleRate: input.recordedSampleRate, detectedLanguage: detectedLanguage)
        var budget = AudioBudget(recognition.request)
        // The samples read to detect the language come first.
        var early = detectionInput?.samples ?? []
        detectionInput = nil
        func next() throws -> [Int16]? {
          if !early.isEmpty { return early.removeFirst() }
          return try input.read()
        }
        while !recognition.isStopped, !budget.isSpent, var samples = try next() {
          budget.take(&samples)
          read += samples.count
          for segment in try segmenter?.append(samples) ?? [] {
            submit(segment)
          }
        }
      } catch {
        failure = SpeechClient.Failure(live: error)
      }
      // A file that fails part-way (truncated, damaged) still gets the words read before.
      if !recognition.isStopped, let last = segmenter?.finish() {
        submit(last)
      }
      if let joins {
        // What is left to hand on may need a join: on a worker, with its recognizer.
        let count = pieces
        pool.submitAny { recognizer in
          let recognizer = try? recognizer.get()
          if let recognizer { prepare(recognizer) }
          joins.readingEnded(pieces: count, using: recognizer)
        }
      }
      recognition.readingEnded(at: Double(read) / rate, failure: failure)
    }
  }
}

extension SpeechRecognitionRequest.AudioSource {
  /// Whether the source is a file, which the decoder pool decodes in pieces, rather than a
  /// stream (a capture source, standard input, a named pipe, pushed audio).
  public var isFileSource: Bool {
    switch self {
    case .file(let url), .rawFile(let url):
      // A named pipe or device given as a file may stall or never end: it streams too. A path
      // that does not exist is a file the pool reports as unreadable.
      Self.isRegularFileOrMissing(url.path)
    // Standard input may be a pipe that never ends: it streams, as a capture source does.
    // Pushed audio arrives as it is produced: it streams.
    case .microphone, .device, .standardInput, .pushed: false
    }
  }

  private static func isRegularFileOrMissing(_ path: String) -> Bool {
    var info = stat()
    guard stat(path, &info) == 0 else { return true }
    return info.st_mode & S_IFMT == S_IFREG
  }
}
