import Dependencies
import Foundation

// Cost of reading a dependency through `@Dependency`, best of five runs. Build in release mode.

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

func measure(_ name: String, reads: Int, _ read: () -> Int) {
  for _ in 0..<(reads / 10) { blackHole(read()) }  // warm up
  let clock = ContinuousClock()
  var best = Duration.seconds(1_000)
  for _ in 0..<5 {
    let elapsed = clock.measure {
      for _ in 0..<reads { blackHole(read()) }
    }
    best = min(best, elapsed)
  }
  let seconds = Double(best.components.seconds) + Double(best.components.attoseconds) / 1e18
  let nanoseconds = seconds * 1e9 / Double(reads)
  let padded = name.padding(toLength: 44, withPad: " ", startingAt: 0)
  print("\(padded) \(String(format: "%8.1f", nanoseconds)) ns/read")
}

let reads = Int(CommandLine.arguments.dropFirst().first ?? "") ?? 1_000_000
print("@Dependency read cost, best of 5 runs of \(reads) reads")

let plain = Model()
measure("default (cached live value)", reads: reads) { plain.numberClient.fetch() }

let captured = withDependencies {
  $0.numberClient.fetch = { 7 }
} operation: {
  Model()
}
measure("override captured at creation", reads: reads) { captured.numberClient.fetch() }

withDependencies {
  $0.numberClient.fetch = { 9 }
} operation: {
  measure("override in the reading scope", reads: reads) { plain.numberClient.fetch() }
}
