import Architecture
import ConcurrencyExtras
import Testing

@MainActor
struct PrintChangesTests {
  @Test func printsTheActionAndAStateDiff() {
    let output = LockIsolated<[String]>([])
    let store = Store(initialState: 0) {
      Reduce<Int, String> { state, action in
        if action == "increment" { state += 1 }
        return .none
      }
      ._printChanges(.customDump { line in output.withValue { $0.append(line) } })
    }
    store.send("increment")
    store.send("noop")
    #expect(
      output.value == [
        """
        received action:
          "increment"
        - 0
        + 1
        """,
        """
        received action:
          "noop"
          (No state changes)
        """,
      ]
    )
  }
}
