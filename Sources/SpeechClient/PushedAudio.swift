import Foundation

/// Audio that a host pushes in as it arrives, e.g. from a network connection: signed 16-bit mono
/// samples at any ``sampleRate``.
///
/// The host pushes samples (``push(_:)``, or little-endian bytes with ``push(littleEndian:)``)
/// and calls ``finish()`` after the last; a recognition task started with
/// ``SpeechRecognitionRequest/AudioSource/pushed(_:)`` reads them, either on a thread of its own
/// (``read(maximumCount:timeout:)``, which blocks for at most `timeout`) or from a task
/// (``next(maximumCount:)``). One reader at a time.
///
/// The audio counts what was pushed and what the reader has taken, so a host can hold back
/// (stop reading its socket) while too much waits (``unconsumedDuration``), and a client reports
/// its progress in pushed audio time: a result whose `progress.audioDuration` reaches
/// ``pushedDuration`` has decoded everything pushed so far.
///
/// Two values are equal only when they are the same instance, or when both were made with the
/// same ``identifier`` (and rate): a reducer can then make one as a value of its state, and a
/// test can expect it.
///
/// ```swift
/// let audio = PushedAudio(sampleRate: 8_000)
/// let request = SpeechRecognitionRequest(source: .pushed(audio))
/// audio.push(littleEndian: bytesFromTheSocket)
/// audio.finish()
/// ```
public final class PushedAudio: Sendable {
  /// The rate the pushed samples are recorded at, in Hz.
  public let sampleRate: Int
  /// What the stream is called where it was made, for equality; `nil`: equal only to itself.
  public let identifier: String?
  private let storage = Storage()

  /// Creates an empty stream of audio recorded at `sampleRate` Hz (at least 1), equal only to
  /// itself.
  public init(sampleRate: Int = 16_000) {
    self.sampleRate = max(1, sampleRate)
    self.identifier = nil
  }

  /// Creates an empty stream of audio recorded at `sampleRate` Hz (at least 1), equal to every
  /// other made with the same `identifier` and rate.
  ///
  /// For state that names its audio rather than holding on to an instance: a session's reducer
  /// makes `PushedAudio(sampleRate: 16_000, identifier: "audio 1")` for its recognition
  /// request, an effect hands the instance to whatever pushes into it, and a test expects the
  /// same value without having to be given the instance.
  public init(sampleRate: Int = 16_000, identifier: String) {
    self.sampleRate = max(1, sampleRate)
    self.identifier = identifier
  }

  /// What a blocking ``read(maximumCount:timeout:)`` found.
  public enum ReadResult: Equatable, Sendable {
    /// Samples that were waiting (never empty).
    case samples([Int16])
    /// Nothing arrived within the timeout; the stream goes on.
    case timedOut
    /// The stream is finished and every sample has been read.
    case finished
  }

  /// Appends samples; ignored after ``finish()``.
  public func push(_ samples: [Int16]) {
    guard !samples.isEmpty else { return }
    storage.append(samples)
  }

  /// Appends signed 16-bit little-endian samples given as bytes. An odd byte at the end is kept
  /// and joined with the first byte of the next push.
  public func push(littleEndian bytes: some Collection<UInt8>) {
    var samples: [Int16] = []
    samples.reserveCapacity((bytes.count + 1) / 2)
    var pending = storage.takeLeftoverByte()
    for byte in bytes {
      if let low = pending {
        samples.append(Int16(bitPattern: UInt16(low) | UInt16(byte) << 8))
        pending = nil
      } else {
        pending = byte
      }
    }
    storage.keepLeftoverByte(pending)
    push(samples)
  }

  /// Ends the stream: the reader gets what was pushed, then the end.
  public func finish() {
    storage.finish()
  }

  /// Whether ``finish()`` was called.
  public var isFinished: Bool { storage.snapshot.isFinished }

  /// The samples pushed so far.
  public var pushedSampleCount: Int { storage.snapshot.pushed }

  /// The samples the reader has taken so far.
  public var consumedSampleCount: Int { storage.snapshot.consumed }

  /// The audio pushed so far, in seconds.
  public var pushedDuration: TimeInterval { Double(pushedSampleCount) / Double(sampleRate) }

  /// The audio the reader has taken so far, in seconds.
  public var consumedDuration: TimeInterval { Double(consumedSampleCount) / Double(sampleRate) }

  /// The audio pushed and not taken yet, in seconds.
  public var unconsumedDuration: TimeInterval {
    let snapshot = storage.snapshot
    return Double(snapshot.pushed - snapshot.consumed) / Double(sampleRate)
  }

  /// Takes up to `maximumCount` waiting samples, waiting at most `timeout` for some to arrive.
  /// Blocks the calling thread: for a reader's own thread, never a task.
  public func read(maximumCount: Int = .max, timeout: Duration) -> ReadResult {
    storage.read(maximumCount: max(1, maximumCount), timeout: timeout)
  }

  /// Takes up to `maximumCount` waiting samples, suspending until some arrive; `nil` once the
  /// stream is finished and read, or when the calling task is cancelled.
  public func next(maximumCount: Int = .max) async -> [Int16]? {
    await storage.next(maximumCount: max(1, maximumCount))
  }
}

extension PushedAudio: Hashable {
  /// The same instance, or the same ``identifier`` and rate.
  public static func == (lhs: PushedAudio, rhs: PushedAudio) -> Bool {
    if lhs === rhs { return true }
    guard let identifier = lhs.identifier else { return false }
    return identifier == rhs.identifier && lhs.sampleRate == rhs.sampleRate
  }

  /// Hashes the identifier and rate, or the identity.
  public func hash(into hasher: inout Hasher) {
    if let identifier {
      hasher.combine(identifier)
      hasher.combine(sampleRate)
    } else {
      hasher.combine(ObjectIdentifier(self))
    }
  }
}

extension PushedAudio: CustomStringConvertible {
  /// The rate and the counts, for logs and test diffs.
  public var description: String {
    let snapshot = storage.snapshot
    return
      "PushedAudio(\(identifier.map { "\($0), " } ?? "")\(sampleRate) Hz, pushed \(snapshot.pushed), consumed \(snapshot.consumed)"
      + (snapshot.isFinished ? ", finished)" : ")")
  }
}

/// The samples waiting, the counts, and the reader waiting for them; every access takes the lock.
private final class Storage: @unchecked Sendable {
  struct Snapshot {
    var pushed = 0
    var consumed = 0
    var isFinished = false
  }

  private let condition = NSCondition()
  private var buffer: [Int16] = []
  private var head = 0
  private var counts = Snapshot()
  private var leftoverByte: UInt8?
  private var waiter: (id: Int, continuation: CheckedContinuation<[Int16]?, Never>, limit: Int)?
  private var nextWaiterID = 0

  var snapshot: Snapshot { condition.withLock { counts } }

  func takeLeftoverByte() -> UInt8? {
    condition.withLock {
      defer { leftoverByte = nil }
      return leftoverByte
    }
  }

  func keepLeftoverByte(_ byte: UInt8?) {
    condition.withLock { leftoverByte = byte }
  }

  func append(_ samples: [Int16]) {
    let resumed: (CheckedContinuation<[Int16]?, Never>, [Int16]?)? = condition.withLock {
      guard !counts.isFinished else { return nil }
      buffer += samples
      counts.pushed += samples.count
      condition.broadcast()
      return takeForWaiter()
    }
    if let (continuation, samples) = resumed { continuation.resume(returning: samples) }
  }

  func finish() {
    let resumed: (CheckedContinuation<[Int16]?, Never>, [Int16]?)? = condition.withLock {
      counts.isFinished = true
      condition.broadcast()
      return takeForWaiter()
    }
    if let (continuation, samples) = resumed { continuation.resume(returning: samples) }
  }

  func read(maximumCount: Int, timeout: Duration) -> PushedAudio.ReadResult {
    let deadline = Date().addingTimeInterval(max(0, timeout.timeInterval))
    return condition.withLock {
      while true {
        if let samples = take(maximumCount) { return .samples(samples) }
        if counts.isFinished { return .finished }
        if !condition.wait(until: deadline) {
          if let samples = take(maximumCount) { return .samples(samples) }
          return counts.isFinished ? .finished : .timedOut
        }
      }
    }
  }

  func next(maximumCount: Int) async -> [Int16]? {
    let id = condition.withLock {
      nextWaiterID += 1
      return nextWaiterID
    }
    return await withTaskCancellationHandler {
      await withCheckedContinuation { continuation in
        let ready: [Int16]?? = condition.withLock {
          if let samples = take(maximumCount) { return .some(samples) }
          if counts.isFinished || Task.isCancelled { return .some(nil) }
          waiter = (id, continuation, maximumCount)
          return nil
        }
        if let ready { continuation.resume(returning: ready) }
      }
    } onCancel: {
      let cancelled = condition.withLock { () -> CheckedContinuation<[Int16]?, Never>? in
        guard let waiter, waiter.id == id else { return nil }
        self.waiter = nil
        return waiter.continuation
      }
      cancelled?.resume(returning: nil)
    }
  }

  /// Hands the waiting task what it can have now; call under the lock.
  private func takeForWaiter() -> (CheckedContinuation<[Int16]?, Never>, [Int16]?)? {
    guard let waiter else { return nil }
    if let samples = take(waiter.limit) {
      self.waiter = nil
      return (waiter.continuation, samples)
    }
    if counts.isFinished {
      self.waiter = nil
      return (waiter.continuation, nil)
    }
    return nil
  }

  /// Takes up to `limit` waiting samples; `nil` when none wait. Call under the lock.
  private func take(_ limit: Int) -> [Int16]? {
    let available = buffer.count - head
    guard available > 0 else { return nil }
    let count = min(limit, available)
    let samples = Array(buffer[head..<head + count])
    head += count
    counts.consumed += count
    if head == buffer.count {
      buffer.removeAll(keepingCapacity: buffer.count < 1 << 16)
      head = 0
    } else if head > 1 << 16, head * 2 > buffer.count {
      buffer.removeFirst(head)
      head = 0
    }
    return samples
  }
}
