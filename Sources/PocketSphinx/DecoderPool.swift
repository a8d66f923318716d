import Foundation
import SpeechClient

/// A fixed number of worker threads, each with its own ``Decoder``, that run decoding jobs in
/// the order they were submitted.
///
/// A worker loads the model the first time it gets a job and keeps its decoder for every job
/// after, so a pool pays for loading once per worker, not once per file, utterance or session.
/// The language model is memory-mapped, so every extra worker adds only its search state and
/// acoustic scores (about 20 MiB with the default English model), not a second copy of the model.
/// Workers are started as jobs arrive, never more than ``size``, and wait for work while idle.
///
/// ```swift
/// let pool = DecoderPool(configuration: DecoderConfiguration(model: .default), size: 2)
/// pool.submit { decoder in
///   let words = try decoder.get().decodeStream(samples)
/// }
/// ```
public final class DecoderPool: Sendable {
  /// What every worker's decoder loads.
  public let configuration: DecoderConfiguration
  /// How many workers, and so decoders, the pool runs at most.
  public let size: Int

  /// A job: gets the worker's decoder, or the failure that kept it from loading.
  public typealias Job = @Sendable (Result<Decoder, SpeechClient.Failure>) -> Void

  private let queue: JobQueue

  /// Creates a pool; no thread starts and no model loads until the first job.
  ///
  /// - Parameter size: the number of workers, at least 1.
  public init(configuration: DecoderConfiguration, size: Int) {
    self.configuration = configuration
    self.size = max(1, size)
    self.queue = JobQueue()
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

  /// Queues a job; it runs on the first free worker, after every job submitted before it has
  /// started. Returns at once.
  public func submit(_ job: @escaping Job) {
    if queue.append(job, startingWorkerIfBelow: size) {
      startWorker()
    }
  }

  private func startWorker() {
    let queue = self.queue
    let configuration = self.configuration
    let thread = Thread {
      // The decoder lives and dies on this thread; a load failure is handed to every job.
      var decoder: Result<Decoder, SpeechClient.Failure>?
      while let job = queue.next() {
        if decoder == nil {
          decoder = Result { () throws(SpeechClient.Failure) in
            try Decoder(configuration: configuration)
          }
        }
        if let decoder { job(decoder) }
      }
    }
    thread.name = "transcribe.decoder"
    // pocketsphinx is used to a process's main stack; give it as much.
    thread.stackSize = 8 << 20
    thread.start()
  }
}

/// The pool's jobs, waited on by its workers.
private final class JobQueue: @unchecked Sendable {
  private let condition = NSCondition()
  private var jobs: [DecoderPool.Job] = []
  private var head = 0
  private var idleWorkers = 0
  private var workers = 0
  private var isClosed = false

  var workerCount: Int {
    condition.withLock { workers }
  }

  /// Appends a job; returns whether the caller should start a worker for it (no worker is idle
  /// and there are fewer than `limit`).
  func append(_ job: @escaping DecoderPool.Job, startingWorkerIfBelow limit: Int) -> Bool {
    condition.withLock {
      jobs.append(job)
      let pending = jobs.count - head
      if pending > idleWorkers, workers < limit {
        workers += 1
        return true
      }
      condition.signal()
      return false
    }
  }

  /// The next job, waiting for one while there is none; `nil` once the pool is gone.
  func next() -> DecoderPool.Job? {
    condition.withLock {
      while head == jobs.count, !isClosed {
        idleWorkers += 1
        condition.wait()
        idleWorkers -= 1
      }
      guard head < jobs.count else { return nil }
      let job = jobs[head]
      head += 1
      if head > 64, head * 2 > jobs.count {
        jobs.removeFirst(head)
        head = 0
      }
      return job
    }
  }

  /// Lets idle workers end (and free their decoders) once the queued jobs are done.
  func close() {
    condition.withLock {
      isClosed = true
      condition.broadcast()
    }
  }
}
