import Architecture
import Foundation

// Throughput of `Store.send` through three shapes of reducer, and the stack depth from `send` to
// the innermost reducer of a 20-level recursive feature. Build in release mode.

@MainActor
func measure(_ name: String, actions: Int, _ send: () -> Void) -> Double {
  for _ in 0..<(actions / 10) { send() }  // warm up
  let clock = ContinuousClock()
  var best = Duration.seconds(1_000)
  for _ in 0..<5 {
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
  print("Store.send throughput, best of 5 runs of \(actions) actions")

  let leafStore = Store(initialState: Leaf.State()) { Leaf() }
  _ = measure("leaf reducer", actions: actions) { leafStore.send(.increment) }

  let scopeStore = Store(initialState: Level1.State()) { Level1() }
  _ = measure("3-level Scope (protocol style)", actions: actions) {
    scopeStore.send(.child(.child(.child(.increment))))
  }

  let closureStore = Store(initialState: closureThreeLevelsState()) {
    Reduce(closureThreeLevels.run)
  }
  _ = measure("3-level pullback (closure style)", actions: actions) {
    closureStore.send(.child(.child(.child(.increment))))
  }

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

MainActor.assumeIsolated {
  run()
}
