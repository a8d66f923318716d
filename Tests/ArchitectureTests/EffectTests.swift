import Architecture
import ConcurrencyExtras
import Testing

@MainActor
struct EffectTests {
  typealias LogReducer = Reduce<[String], String>

  @Test func concatenateStartsEachEffectAfterThePreviousFinished() async {
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return .concatenate(
          .run { send in
            await Task.yield()
            await send("first")
          },
          .send("second"),
          .run { send in await send("third") }
        )
      }
    }
    await store.send("start").finish()
    #expect(store.state == ["start", "first", "second", "third"])
  }

  @Test func mergeStartsAllEffectsAtOnce() async {
    let gate = AsyncStream<Void>.makeStream()
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return .merge(
          .run { send in
            for await _ in gate.stream { break }
            await send("waited")
          },
          .run { send in
            await send("immediate")
            gate.continuation.yield()
          }
        )
      }
    }
    await store.send("start").finish()
    #expect(store.state == ["start", "immediate", "waited"])
  }

  @Test func mapTransformsEveryAction() async {
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return Effect<Int>.merge(.send(1), .run { send in await send(2) })
          .map { "mapped \($0)" }
      }
    }
    await store.send("start").finish()
    #expect(store.state == ["start", "mapped 1", "mapped 2"])
  }

  @Test func runWithCatchSendsTheError() async {
    struct Failure: Error {}
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return .run { _ in
          throw Failure()
        } catch: { error, send in
          await send("caught \(error is Failure)")
        }
      }
    }
    await store.send("start").finish()
    #expect(store.state == ["start", "caught true"])
  }

  @Test func unhandledErrorIsReportedWithTheEffectsLocationAndItsTypeName() async {
    struct Failure: Error {}
    let store = Store(initialState: [String]()) {
      LogReducer { _, _ in
        .run { _ in throw Failure() }
      }
    }
    await withKnownIssue {
      await store.send("start").finish()
    } matching: {
      $0.description.contains("An 'Effect.run' created at ArchitectureTests/EffectTests.swift:")
        && $0.description.contains("threw an unhandled error of type 'Failure'")
        && $0.description.contains("Failure()")
        && !$0.description.contains("unknown context")
    }
  }

  @Test func cancellationErrorIsSilent() async {
    let store = Store(initialState: [String]()) {
      LogReducer { _, _ in
        .run { _ in throw CancellationError() }
      }
    }
    await store.send("start").finish()
  }

  @Test func runSeesDependenciesWhereItWasCreated() async {
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return withDependencies {
          $0.context = .preview
        } operation: {
          .run { send in
            @Dependency(\.context) var context
            await send("\(context)")
          }
        }
      }
    }
    await store.send("start").finish()
    #expect(store.state == ["start", "preview"])
  }

  @Test func actionSentFromACompletedEffectIsReportedNotProcessed() async {
    let escaped = LockIsolated<Send<String>?>(nil)
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        guard action == "start" else { return .none }
        return .run { send in escaped.setValue(send) }
      }
    }
    await store.send("start").finish()
    await withKnownIssue {
      await escaped.value?("late")
    } matching: {
      $0.description.contains("An effect sent an action after it had finished")
        && $0.description.contains("\"late\"")
        && $0.description.contains("\"start\"")
    }
    #expect(store.state == ["start"])
  }

  @Test func effectIsSendable() async {
    let effect = Effect<Int>.send(1)
    let moved = await Task.detached { effect }.value
    let store = Store(initialState: [String]()) {
      LogReducer { state, action in
        state.append(action)
        return action == "go" ? moved.map { "\($0)" } : .none
      }
    }
    store.send("go")
    #expect(store.state == ["go", "1"])
  }
}
