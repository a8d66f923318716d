import Foundation
import Synchronization

/// A serial executor with a thread of its own: the jobs of every actor that runs on it run on that
/// thread, one at a time, in the order they were enqueued.
///
/// ``ActorStore`` runs on one. Stores spread over a few of them (``next()`` takes the process's
/// executors in turn, one per core) reduce in parallel with one another, on threads that neither
/// the main actor nor Swift's cooperative pool uses: work that waits for the pool (a connection's
/// reads and writes, effects) does not queue behind reducers, nor reducers behind it. That is
/// what the main actor gives a single store, for several.
///
/// An executor and its thread last as long as the process: make a few and keep them.
///
/// ```swift
/// let executor = ThreadExecutor(name: "sessions")
/// let store = ActorStore(initialState: Session.State(), executor: executor) { Session() }
/// ```
public final class ThreadExecutor: SerialExecutor, @unchecked Sendable {
  private let condition = NSCondition()
  /// Jobs waiting, from `head` on (guarded by `condition`).
  private var jobs: [UnownedJob] = []
  private var head = 0
  /// The thread's identity, once it runs.
  private let thread = Mutex<pthread_t?>(nil)

  /// Starts an executor and its thread.
  ///
  /// - Parameter name: the thread's name, as `top -H` shows it.
  public init(name: String) {
    let started = DispatchSemaphore(value: 0)
    let thread = Thread { [self] in
      self.thread.withLock { $0 = pthread_self() }
      started.signal()
      run()
    }
    thread.name = name
    thread.start()
    started.wait()
  }

  public func enqueue(_ job: consuming ExecutorJob) {
    let job = UnownedJob(job)
    condition.withLock {
      jobs.append(job)
      condition.signal()
    }
  }

  public func asUnownedSerialExecutor() -> UnownedSerialExecutor {
    UnownedSerialExecutor(ordinary: self)
  }

  /// Stops the process unless the caller runs on this executor's thread (what
  /// `assumeIsolated` asks of an actor on it).
  public func checkIsolated() {
    precondition(isCurrent, "not on the thread of the executor this actor runs on")
  }

  /// Whether the caller runs on this executor's thread.
  public var isCurrent: Bool {
    thread.withLock { $0.map { pthread_equal($0, pthread_self()) != 0 } ?? false }
  }

  private func run() {
    let executor = asUnownedSerialExecutor()
    while true {
      let job = condition.withLock {
        while head == jobs.count { condition.wait() }
        let job = jobs[head]
        head += 1
        if head == jobs.count {
          jobs.removeAll(keepingCapacity: true)
          head = 0
        } else if head > 256, head * 2 > jobs.count {
          jobs.removeFirst(head)
          head = 0
        }
        return job
      }
      job.runSynchronously(on: executor)
    }
  }

  /// The process's executors: one per core, at least two, started on first use.
  public static let shared: [ThreadExecutor] =
    (0..<max(2, ProcessInfo.processInfo.activeProcessorCount))
    .map { ThreadExecutor(name: "store.\($0)") }

  /// The process's turn through ``shared``.
  private static let rotation = Rotation()

  /// The next of ``shared``, in turn: what a new ``ActorStore`` runs on unless given another.
  public static func next() -> ThreadExecutor {
    rotation.next()
  }

  /// A turn of its own through ``shared``: what a host that makes many stores (a server, for
  /// its sessions) hands them, so two it makes one after the other never share a thread,
  /// whatever else in the process makes stores meanwhile.
  ///
  /// A host whose stores come and go takes a ``Lease`` for each instead (``lease()``): the
  /// executor with the fewest leases held, so stores that outlive others do not pile up on one
  /// thread while another idles.
  ///
  /// ```swift
  /// let lease = executors.lease()
  /// defer { lease.release() }
  /// let store = ActorStore(initialState: Session.State(), executor: lease.executor) { Session() }
  /// ```
  public final class Rotation: Sendable {
    private let turn = Atomic<UInt>(0)
    /// Leases held, by index in ``shared`` (empty until the first lease, so the executors
    /// still start on first use), and where the next tie is broken.
    private let leases = Mutex(Leases())

    private struct Leases {
      var held: [Int] = []
      var turn = 0
    }

    public init() {}

    /// The next executor.
    public func next() -> ThreadExecutor {
      let shared = ThreadExecutor.shared
      let turn = turn.wrappingAdd(1, ordering: .relaxed).oldValue
      return shared[Int(turn % UInt(shared.count))]
    }

    /// The executor the fewest of this rotation's leases hold (among equals, the next in turn),
    /// held until the lease is released.
    public func lease() -> Lease {
      let index = leases.withLock { leases in
        if leases.held.isEmpty {
          leases.held = Array(repeating: 0, count: ThreadExecutor.shared.count)
        }
        let count = leases.held.count
        var best = leases.turn % count
        for offset in 1..<count {
          let index = (leases.turn + offset) % count
          if leases.held[index] < leases.held[best] { best = index }
        }
        leases.held[best] += 1
        leases.turn = best + 1
        return best
      }
      return Lease(executor: ThreadExecutor.shared[index]) { [self] in
        leases.withLock { $0.held[index] -= 1 }
      }
    }
  }

  /// An executor a ``Rotation`` handed out, counted as busy until ``release()`` (or until the
  /// lease goes).
  public final class Lease: Sendable {
    /// The executor.
    public let executor: ThreadExecutor
    private let onRelease: Mutex<(@Sendable () -> Void)?>

    init(executor: ThreadExecutor, onRelease: @escaping @Sendable () -> Void) {
      self.executor = executor
      self.onRelease = Mutex(onRelease)
    }

    /// Gives the executor back; once or again, the same.
    public func release() {
      let release = onRelease.withLock { action in
        defer { action = nil }
        return action
      }
      release?()
    }

    deinit {
      release()
    }
  }
}
