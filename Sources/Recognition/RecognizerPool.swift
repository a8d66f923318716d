import Foundation

/// A fixed number of worker threads, each with its own recognizer, that run jobs in the order
/// they were submitted.
///
/// A worker loads its recognizer the first time it gets a job and keeps it for every job after,
/// so a pool pays for loading once per worker, not once per file, utterance or session.
/// Workers are started as jobs arrive, never more than ``size``, and wait for work while idle.
/// Whatever an engine can share between its recognizers (a memory-mapped language model, one
/// neural model per process) it shares itself; the pool only keeps one recognizer per worker.
///
/// ```swift
/// let pool = RecognizerPool(size: 2) { () throws(RecognitionFailure) in
///   try Decoder(configuration: configuration)
/// }
/// pool.submit { recognizer in
///   let events = try recognizer.get().decodeSegment(samples, startingAt: 0)
/// }
/// ```
public final class RecognizerPool<Recognizer: SpeechRecognizer>: Sendable {
  /// How many workers, and so recognizers, the pool runs at most.
  public let size: Int

  /// A job: gets the worker's recognizer, or the failure that kept it from loading.
  public typealias Job = @Sendable (Result<Recognizer, RecognitionFailure>) -> Void

  private let queue: PoolJobQueue<Recognizer>
  private let load: @Sendable () throws(RecognitionFailure) -> Recognizer
  private let threadName: String

  /// Creates a pool; no thread starts and nothing loads until the first job.
  ///
  /// - Parameters:
  ///   - size: the number of workers, at least 1.
  ///   - threadName: the workers' thread name, as `top -H` shows it.
  ///   - load: makes a worker's recognizer, on the worker's thread.
  public init(
    size: Int, threadName: String = "transcribe.decoder",
    load: @escaping @Sendable () throws(RecognitionFailure) -> Recognizer
  ) {
    self.size = max(1, size)
    self.queue = PoolJobQueue()
    self.load = load
    self.threadName = threadName
  }

  deinit {
    queue.close()
  }

  /// The number of processors the system has: the default pool size.
  public static var defaultSize: Int {
    max(1, ProcessInfo.processInfo.activeProcessorCount)
  }

  /// How many workers have started so far.
  public var workerCount: Int {
    queue.workerCount
  }

  /// How many workers have been running their current job for longer than `bound`.
  ///
  /// A job of a server's stream lasts as long as the stream, so this alone says little; but
  /// when it reaches ``size`` while fewer streams run than that, some worker is busy with work
  /// nobody waits for any more, and a new job waits.
  public func workersBusy(longerThan bound: Duration) -> Int {
    queue.workersBusy(longerThan: bound)
  }

  /// Queues a job; it runs on the first free worker, after every job submitted before it has
  /// started. Returns at once.
  public func submit(_ job: @escaping Job) {
    if let worker = queue.append(job, startingWorkerIfBelow: size) {
      startWorker(worker)
    }
  }

  private func startWorker(_ worker: Int) {
    let queue = self.queue
    let load = self.load
    let thread = Thread {
      // The recognizer lives and dies on this thread; a load failure is handed to every job.
      var recognizer: Result<Recognizer, RecognitionFailure>?
      while let job = queue.next(worker: worker) {
        if recognizer == nil {
          recognizer = Result { () throws(RecognitionFailure) in try load() }
        }
        if let recognizer { job(recognizer) }
      }
    }
    thread.name = threadName
    // pocketsphinx is used to a process's main stack; give every engine as much.
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// A pool whose recognizer type is not known to the caller: jobs get the recognizer as
/// `any SpeechRecognizer`. Lets one registry hold the pools of several engines.
public protocol AnyRecognizerPool: Sendable {
  /// How many workers the pool runs at most.
  var size: Int { get }
  /// How many workers have started so far.
  var workerCount: Int { get }
  /// How many workers have been running their current job for longer than `bound`.
  func workersBusy(longerThan bound: Duration) -> Int
  /// Queues a job that gets the worker's recognizer.
  func submitAny(
    _ job: @escaping @Sendable (Result<any SpeechRecognizer, RecognitionFailure>) -> Void)
}

extension RecognizerPool: AnyRecognizerPool {
  public func submitAny(
    _ job: @escaping @Sendable (Result<any SpeechRecognizer, RecognitionFailure>) -> Void
  ) {
    submit { recognizer in job(recognizer.map { $0 as any SpeechRecognizer }) }
  }
}

/// The pool's jobs, waited on by its workers.
private final class PoolJobQueue<Recognizer: SpeechRecognizer>: @unchecked Sendable {
  typealias Job = RecognizerPool<Recognizer>.Job
  private let condition = NSCondition()
  private var jobs: [Job] = []
  private var head = 0
  private var idleWorkers = 0
  private var workers = 0
  private var isClosed = false
  /// When each busy worker (by number) took its current job.
  private var busySince: [Int: ContinuousClock.Instant] = [:]

  var workerCount: Int {
    condition.withLock { workers }
  }

  func workersBusy(longerThan bound: Duration) -> Int {
    let now = ContinuousClock.now
    return condition.withLock { busySince.values.count { now - $0 > bound } }
  }

  /// Appends a job; returns the number of the worker the caller should start for it when no
  /// worker is idle and there are fewer than `limit`.
  func append(_ job: @escaping Job, startingWorkerIfBelow limit: Int) -> Int? {
    condition.withLock {
      jobs.append(job)
      let pending = jobs.count - head
      if pending > idleWorkers, workers < limit {
        workers += 1
        return workers - 1
      }
      condition.signal()
      return nil
    }
  }

  /// The next job for `worker`, which has finished its last one, waiting for one while there is
  /// none; `nil` once the pool is gone.
  func next(worker: Int) -> Job? {
    condition.withLock {
      busySince[worker] = nil
      while head == jobs.count, !isClosed {
        idleWorkers += 1
        condition.wait()
        idleWorkers -= 1
      }
      guard head < jobs.count else { return nil }
      let job = jobs[head]
      busySince[worker] = .now
      head += 1
      if head > 64, head * 2 > jobs.count {
        jobs.removeFirst(head)
        head = 0
      }
      return job
    }
  }

  /// Lets idle workers end (and free their recognizers) once the queued jobs are done.
  func close() {
    condition.withLock {
      isClosed = true
      condition.broadcast()
    }
  }
}
