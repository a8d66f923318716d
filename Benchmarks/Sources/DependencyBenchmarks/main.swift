import Dependencies
import Foundation

// Cost of reading a dependency through `@Dependency`, and of entering a `withDependencies` scope.
// Build in release mode.
//
// This file is compiled twice: here against this repository's `Dependencies`, and in
// `UpstreamDependencies/` (through a symbolic link) against swift-dependencies, whose module has
// the same name. Both builds therefore run exactly the same cases; `dependencies/run.sh` runs
// them interleaved. Use only API that both libraries share.

struct NumberClient: Sendable {
  var fetch: @Sendable () -> Int
}

extension NumberClient: DependencyKey {
  static let liveValue = NumberClient { 42 }
  static let testValue = NumberClient { 0 }
}

extension DependencyValues {
  var numberClient: NumberClient {
    get { self[NumberClient.self] }
    set { self[NumberClient.self] = newValue }
  }
}

/// A model that reads its dependency through the property wrapper, as features do.
struct Model {
  @Dependency(\.numberClient) var numberClient
}

@inline(never)
func blackHole(_ value: Int) {
  if value == .min { print(value) }
}

/// The case to run alone, when a second argument names one (`default`, `captured`, `scope`,
/// `entry`): `valgrind --tool=callgrind` counts the whole process, so `run.sh --callgrind` runs one
/// case per process.
let onlyCase = CommandLine.arguments.dropFirst(2).first

/// Runs `read` `count` times per run, five runs after a warm-up of `count / 10`, and prints the
/// best and the median run in nanoseconds per operation.
func measure(_ name: String, key: String, count: Int, _ read: () -> Int) {
  if let onlyCase, onlyCase != key { return }
  for _ in 0..<(count / 10) { blackHole(read()) }  // warm up
  let clock = ContinuousClock()
  var runs: [Double] = []
  for _ in 0..<5 {
    let elapsed = clock.measure {
      for _ in 0..<count { blackHole(read()) }
    }
    let seconds =
      Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    runs.append(seconds * 1e9 / Double(count))
  }
  runs.sort()
  let padded = name.padding(toLength: 34, withPad: " ", startingAt: 0)
  print(
    "\(padded) best \(String(format: "%8.1f", runs[0])) median \(String(format: "%8.1f", runs[2])) ns/op"
  )
}

let count = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
print("@Dependency cost, 5 runs of \(count) operations each (ns per operation)")

let plain = Model()
measure("default (cached live value)", key: "default", count: count) { plain.numberClient.fetch() }

let captured = withDependencies {
  $0.numberClient.fetch = { 7 }
} operation: {
  Model()
}
measure("override captured at creation", key: "captured", count: count) {
  captured.numberClient.fetch()
}

withDependencies {
  $0.numberClient.fetch = { 9 }
} operation: {
  measure("override in the reading scope", key: "scope", count: count) {
    plain.numberClient.fetch()
  }
}

measure("withDependencies scope entry", key: "entry", count: count) {
  withDependencies {
    $0.numberClient.fetch = { 11 }
  } operation: {
    plain.numberClient.fetch()
  }
}
