import Architecture
import Foundation

// Throughput of `Store.send` through three shapes of reducer, and the stack depth from `send` to
// the innermost reducer of a 20-level recursive feature. Build in release mode.

/// The value after `flag` on the command line, if any.
func option(_ flag: String) -> String? {
  guard let index = CommandLine.arguments.firstIndex(of: flag),
    index + 1 < CommandLine.arguments.count
  else { return nil }
  return CommandLine.arguments[index + 1]
}

/// `--only leaf|scope|closure|iflet|optional|foreach|closureforeach|effect` runs one throughput
/// case (for `valgrind --tool=callgrind`, which counts the whole process); `--runs N` sets the
/// number of timed runs (default 5).
let onlyCase = option("--only")
let timedRuns = Int(option("--runs") ?? "") ?? 5

@MainActor
func measure(_ name: String, key: String, actions: Int, _ send: () -> Void) -> Double {
  if let onlyCase, onlyCase != key { return 0 }
  for _ in 0..<(actions / 10) { send() }  // warm up
  let clock = ContinuousClock()
  var best = Duration.seconds(1_000)
  for _ in 0..<timedRuns {
    let elapsed = clock.measure {
      for _ in 0..<actions { send() }
    }
    best = min(best, elapsed)
  }
  let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
  let rate = Double(actions) / seconds
  let padded = name.padding(toLength: 34, withPad: " ", startingAt: 0)
  print("\(padded) \(String(format: "%12.0f", rate)) actions/s")
  return rate
}

@MainActor
func nestedState(depth: Int) -> (Nested.State, Nested.Action) {
  var state = Nested.State(id: depth)
  var action = Nested.Action.nameChanged("Blob")
  for level in (0..<depth).reversed() {
    state = Nested.State(id: level, rows: [state])
    action = .rows(.element(id: level + 1, action: action))
  }
  // The root is level 0; its only row is level 1, and so on down to level `depth`, which the
  // action addresses.
  return (state, action)
}

@MainActor
func run() {
  let actions = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
  print("Store.send throughput, best of \(timedRuns) runs of \(actions) actions")

  let leafStore = Store(initialState: Leaf.State()) { Leaf() }
  _ = measure("leaf reducer", key: "leaf", actions: actions) { leafStore.send(.increment) }

  let scopeStore = Store(initialState: Level1.State()) { Level1() }
  _ = measure("3-level Scope (protocol style)", key: "scope", actions: actions) {
    scopeStore.send(.child(.child(.child(.increment))))
  }

  let closureStore = Store(initialState: closureThreeLevelsState()) {
    Reduce(closureThreeLevels.run)
  }
  _ = measure("3-level pullback (closure style)", key: "closure", actions: actions) {
    closureStore.send(.child(.child(.child(.increment))))
  }

  typealias OptionalChain = OptionalLevel<OptionalLevel<OptionalLevel<Leaf>>>
  let ifLetStore = Store(
    initialState: OptionalChain.State(child: .init(child: .init(child: .init())))
  ) { OptionalChain() }
  _ = measure("3-level ifLet (protocol style)", key: "iflet", actions: actions) {
    ifLetStore.send(.child(.child(.child(.increment))))
  }

  let closureOptionalStore = Store(
    initialState: ClosureOptionalState(
      child: ClosureOptionalState(child: ClosureOptionalState(child: Leaf.State())))
  ) { Reduce(closureOptionalThreeLevels.run) }
  _ = measure("3-level optional (closure style)", key: "optional", actions: actions) {
    closureOptionalStore.send(.child(.child(.child(.increment))))
  }

  typealias ElementChain = ElementLevel<ElementLevel<ElementLevel<ElementLeaf>>>
  let forEachStore = Store(
    initialState: ElementChain.State(rows: [.init(rows: [.init(rows: [.init()])])])
  ) { ElementChain() }
  _ = measure("3-level forEach (protocol style)", key: "foreach", actions: actions) {
    forEachStore.send(
      .rows(
        .element(
          id: 0, action: .rows(.element(id: 0, action: .rows(.element(id: 0, action: .increment)))))
      ))
  }

  let closureElementStore = Store(
    initialState: ClosureElementState(
      rows: [ClosureElementState(rows: [ClosureElementState(rows: [ElementLeaf.State()])])])
  ) { Reduce(closureElementThreeLevels.run) }
  _ = measure("3-level forEach (closure style)", key: "closureforeach", actions: actions) {
    closureElementStore.send(
      .rows(
        .element(
          id: 0, action: .rows(.element(id: 0, action: .rows(.element(id: 0, action: .increment)))))
      ))
  }

  if onlyCase != nil { return }
  print("")
  print("Stack frames from Store.send to the innermost reducer, Nested at 20 levels")
  let (state, action) = nestedState(depth: 20)

  let protocolStore = Store(initialState: state) { Nested() }
  let protocolFrames = framesFromSendToInnermostReducer { protocolStore.send(action) }
  print("protocol style: \(protocolFrames.count) frames")

  let closureNestedStore = Store(initialState: state) { Reduce(closureNested.run) }
  let closureFrames = framesFromSendToInnermostReducer { closureNestedStore.send(action) }
  print("closure style:  \(closureFrames.count) frames")

  if CommandLine.arguments.contains("--frames") {
    print("\nprotocol style frames (innermost first):")
    protocolFrames.frames.forEach { print($0) }
    print("\nclosure style frames (innermost first):")
    closureFrames.frames.forEach { print($0) }
  }
}

/// Like `measure`, for a case that awaits each round.
@MainActor
func measure(
  _ name: String, key: String, actions: Int, _ send: @MainActor () async -> Void
) async -> Double {
  if let onlyCase, onlyCase != key { return 0 }
  for _ in 0..<(actions / 10) { await send() }  // warm up
  let clock = ContinuousClock()
  var best = Duration.seconds(1_000)
  for _ in 0..<timedRuns {
    let start = clock.now
    for _ in 0..<actions { await send() }
    best = min(best, clock.now - start)
  }
  let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
  let rate = Double(actions) / seconds
  let padded = name.padding(toLength: 34, withPad: " ", startingAt: 0)
  print("\(padded) \(String(format: "%12.0f", rate)) actions/s")
  return rate
}

/// An effect's round trip: an action whose `.run` effect sends an action back, awaited to its end.
@MainActor
func runEffects() async {
  let actions = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
  let store = Store(initialState: RoundTrip.State()) { RoundTrip() }
  _ = await measure("effect round trip", key: "effect", actions: actions) {
    await store.send(.start).finish()
  }
}

MainActor.assumeIsolated {
  run()
}
// The effect case awaits: a task on the main actor, with the main run loop serving it. (Not a
// top-level `await`: valgrind crashes on an asynchronous `main`.)
Task { @MainActor in
  await runEffects()
  exit(0)
}
RunLoop.main.run()
