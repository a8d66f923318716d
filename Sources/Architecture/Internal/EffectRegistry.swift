import Foundation

/// The effects a store is running: for cancellation by id, for `TestStore`'s in-flight checks, and
/// so a store's `deinit` can cancel them from any thread.
///
/// Entries are added on the main actor before their task starts and removed by the task itself
/// when it ends, possibly on another thread, so the storage is guarded by a lock.
final class EffectRegistry<Origin>: EffectCanceller, @unchecked Sendable {
  struct Entry {
    var task: Task<Void, Never>?
    var cancelIDs: [_CancelID]
    var origin: Origin
    /// Whether a test stopped tracking this effect (`skipInFlightEffects`): it keeps running
    /// and sending actions, but no longer counts as in flight.
    var isSkipped = false
    /// Whether the effect was cancelled before its task was attached; attaching cancels it.
    var isCancelled = false
  }

  private let lock = NSLock()
  private var nextID = 0
  /// Made on first use, so a store that never throttles pays nothing for it.
  private var _throttles: ThrottleMemory?
  private var entries: [Int: Entry] = [:]
  private var idsByCancelID: [_CancelID: Set<Int>] = [:]
  /// The registered ids by their value alone (path left out), to find a child's uses of an id.
  private var scopedIDs: [_CancelID: Set<_CancelID>] = [:]

  /// When each throttle id last let an action through, and the action it holds back.
  var throttles: ThrottleMemory {
    lock.withLock {
      if let throttles = _throttles { return throttles }
      let throttles = ThrottleMemory()
      _throttles = throttles
      return throttles
    }
  }

  /// Registers an effect that is about to start and returns its key.
  func register(cancelIDs: [_CancelID], origin: Origin) -> Int {
    lock.withLock {
      nextID += 1
      entries[nextID] = Entry(task: nil, cancelIDs: cancelIDs, origin: origin)
      for id in cancelIDs {
        idsByCancelID[id, default: []].insert(nextID)
        scopedIDs[id.unscoped, default: []].insert(id)
      }
      return nextID
    }
  }

  /// Attaches the task that runs a registered effect, unless it already finished. A task whose
  /// effect was cancelled in between (from another thread) is cancelled at once.
  func attach(_ task: Task<Void, Never>, to key: Int) {
    let cancel = lock.withLock { () -> Bool in
      entries[key]?.task = task
      return entries[key]?.isCancelled == true
    }
    if cancel {
      task.cancel()
    }
  }

  /// Whether the effect registered under `key` was cancelled. Set under the lock before any task
  /// is cancelled, so a task that wakes because another one of the same cancellation was
  /// cancelled first already sees it (`Task.isCancelled` may not be set for it yet).
  func isCancelled(_ key: Int) -> Bool {
    lock.withLock { entries[key]?.isCancelled == true }
  }

  /// Forgets an effect that finished.
  func remove(_ key: Int) {
    lock.withLock {
      guard let entry = entries.removeValue(forKey: key) else { return }
      for id in entry.cancelIDs {
        idsByCancelID[id]?.remove(key)
        if idsByCancelID[id]?.isEmpty == true {
          idsByCancelID[id] = nil
          forget(id)
        }
      }
    }
  }

  private func forget(_ id: _CancelID) {
    let unscoped = id.unscoped
    scopedIDs[unscoped]?.remove(id)
    if scopedIDs[unscoped]?.isEmpty == true {
      scopedIDs[unscoped] = nil
    }
  }

  /// Cancels every effect registered under `id`, and under the same id in `id`'s descendants
  /// (a parent's `.cancel(id:)` reaches its children's uses of the id, as in TCA). They stay in
  /// flight until their tasks end.
  func cancel(id: _CancelID) {
    let tasks = lock.withLock { () -> [Task<Void, Never>] in
      let matching = (scopedIDs[id.unscoped] ?? []).filter { $0.isDescendant(of: id) }
      var keys = Set<Int>()
      for scoped in matching {
        keys.formUnion(idsByCancelID.removeValue(forKey: scoped) ?? [])
        forget(scoped)
      }
      for key in keys {
        entries[key]?.isCancelled = true
      }
      return keys.compactMap { entries[$0]?.task }
    }
    for task in tasks {
      task.cancel()
    }
  }

  /// Cancels every running effect.
  func cancelAll() {
    let tasks = lock.withLock { () -> [Task<Void, Never>] in
      idsByCancelID.removeAll()
      scopedIDs.removeAll()
      return entries.values.compactMap(\.task)
    }
    for task in tasks {
      task.cancel()
    }
  }

  /// The effects still running and tracked, oldest first.
  var running: [(key: Int, entry: Entry)] {
    lock.withLock {
      entries.filter { !$0.value.isSkipped }
        .sorted { $0.key < $1.key }.map { (key: $0.key, entry: $0.value) }
    }
  }

  /// Whether no tracked effect is running (skipped effects may still run).
  var isEmpty: Bool {
    lock.withLock { !entries.values.contains { !$0.isSkipped } }
  }

  /// Whether no effect at all is running, tracked or skipped, so none can send an action.
  var isIdle: Bool {
    lock.withLock { entries.isEmpty }
  }

  /// Stops tracking every running effect, without cancelling it.
  func skipAll() {
    lock.withLock {
      for key in entries.keys {
        entries[key]?.isSkipped = true
      }
    }
  }
}
