import Architecture
import Foundation
import Testing

@MainActor
struct DependencyKeyWritingReducerTests {
  struct Feature: Reducer {
    struct State: Equatable { var seen: [String] = [] }
    enum Action: Equatable { case read, readInEffect, record(String) }
    @Dependency(\.context) var context
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      switch action {
      case .read:
        state.seen.append("\(context)")
        return .none
      case .readInEffect:
        return .run { send in
          @Dependency(\.context) var context
          await send(.record("effect: \(context)"))
        }
      case .record(let entry):
        state.seen.append(entry)
        return .none
      }
    }
  }

  @Test func overrideReachesReducerAndEffect() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature().dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["preview"] }
    await store.send(.readInEffect)
    await store.receive(.record("effect: preview")) { $0.seen.append("effect: preview") }
  }

  @Test func innermostOverrideWins() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
        .dependency(\.context, .live)
        .dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["live"] }
  }

  @Test func innermostOverrideWinsAcrossReducers() async {
    let store = TestStore(initialState: Feature.State()) {
      CombineReducers {
        Feature().dependency(\.context, .live)
      }
      .dependency(\.context, .preview)
    }
    await store.send(.read) { $0.seen = ["live"] }
  }

  @Test func transformDependencyStartsFromTheValueAround() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
        .transformDependency(\.context) { context in
          context = context == .test ? .preview : .live
        }
    }
    await store.send(.read) { $0.seen = ["preview"] }
  }

  @Test func testStoreDependenciesReachTheEffect() async {
    let store = TestStore(initialState: Feature.State()) {
      Feature()
    } withDependencies: {
      $0.context = .preview
    }
    await store.send(.readInEffect)
    await store.receive(.record("effect: preview")) { $0.seen = ["effect: preview"] }
  }
}

/// Overrides of keys whose test value reports when it is read (issue #41): writing one with
/// `.dependency` or `.transformDependency` must not count as reading it, as in `withDependencies`.
@MainActor
struct DependencyKeyWritingReportingKeysTests {
  /// Reads three built-in keys whose test values report when read without an override.
  struct Clockface: Reducer {
    struct State: Equatable { var label = "" }
    enum Action: Equatable { case tap }
    @Dependency(\.calendar) var calendar
    @Dependency(\.locale) var locale
    @Dependency(\.timeZone) var timeZone
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.label = "\(calendar.identifier) \(locale.identifier) \(timeZone.secondsFromGMT())"
      return .none
    }
  }

  /// Calls the endpoints of the forecast client at `client`.
  struct Forecaster: Reducer {
    struct State: Equatable {
      var forecast = ""
      var temperature = 0
    }
    enum Action: Equatable { case fetch, fetched(String), measure, measured(Int) }
    let client: KeyPath<DependencyValues, ForecastClient> & Sendable
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      @Dependency(client) var forecastClient
      switch action {
      case .fetch:
        return .run { send in
          await send(.fetched(try await forecastClient.forecast(city: "Oslo")))
        }
      case .fetched(let forecast):
        state.forecast = forecast
        return .none
      case .measure:
        return .run { send in await send(.measured(await forecastClient.temperature())) }
      case .measured(let temperature):
        state.temperature = temperature
        return .none
      }
    }
  }

  @Test func keyPathOverridesReportNothing() async {
    let store = TestStore(initialState: Clockface.State()) {
      Clockface()
        .dependency(\.calendar, Calendar(identifier: .gregorian))
        .dependency(\.locale, Locale(identifier: "en_US"))
        .dependency(\.timeZone, TimeZone(secondsFromGMT: 0)!)
    }
    await store.send(.tap) { $0.label = "gregorian en_US 0" }
  }

  @Test func nestedKeyPathOverridesReportNothing() async {
    let store = TestStore(initialState: Clockface.State()) {
      CombineReducers {
        CombineReducers {
          Clockface().dependency(\.calendar, Calendar(identifier: .gregorian))
        }
        .dependency(\.locale, Locale(identifier: "en_US"))
      }
      .dependency(\.timeZone, TimeZone(secondsFromGMT: 0)!)
    }
    await store.send(.tap) { $0.label = "gregorian en_US 0" }
  }

  @Test func transformsReportNothing() async {
    let store = TestStore(initialState: Clockface.State()) {
      Clockface()
        .transformDependency(\.calendar) { $0 = Calendar(identifier: .gregorian) }
        .transformDependency(\.locale) { $0 = Locale(identifier: "en_US") }
        .transformDependency(\.timeZone) { $0 = TimeZone(secondsFromGMT: 0)! }
    }
    await store.send(.tap) { $0.label = "gregorian en_US 0" }
  }

  @Test func aKeyTheTestDidNotSetStillReports() async {
    let store = TestStore(initialState: Clockface.State()) {
      Clockface()
        .dependency(\.calendar, Calendar(identifier: .gregorian))
        .transformDependency(\.locale) { $0 = Locale(identifier: "en_US") }
    }
    let offset = TimeZone.autoupdatingCurrent.secondsFromGMT()
    await withKnownIssue {
      await store.send(.tap) { $0.label = "gregorian en_US \(offset)" }
    } matching: {
      $0.description.contains(
        #"@Dependency(\.timeZone) has no test implementation, but was read from a test."#)
    }
  }

  @Test func settingOneEndpointOfAnUnimplementedClientReportsNothing() async {
    let store = TestStore(initialState: Forecaster.State()) {
      Forecaster(client: \.forecast)
        .transformDependency(\.forecast) { $0.forecast = { _ in "sunny" } }
    }
    await store.send(.fetch)
    await store.receive(.fetched("sunny")) { $0.forecast = "sunny" }
  }

  @Test func settingOneEndpointThroughAKeyPathReportsNothing() async {
    let store = TestStore(initialState: Forecaster.State()) {
      Forecaster(client: \.forecast)
        .dependency(\.forecast.forecast, { @Sendable _ in "sunny" })
    }
    await store.send(.fetch)
    await store.receive(.fetched("sunny")) { $0.forecast = "sunny" }
  }

  @Test func anEndpointTheTestDidNotSetStillReports() async {
    let store = TestStore(initialState: Forecaster.State()) {
      Forecaster(client: \.forecast)
        .transformDependency(\.forecast) { $0.forecast = { _ in "sunny" } }
    }
    await withKnownIssue {
      await store.send(.measure)
      await store.receive(.measured(0))
    } matching: {
      $0.description.contains("'ForecastClient.temperature'")
    }
  }

  @Test func transformingAClientWhoseReadReportsReportsNothing() async {
    let store = TestStore(initialState: Forecaster.State()) {
      Forecaster(client: \.liveOnlyForecast)
        .transformDependency(\.liveOnlyForecast) { $0.forecast = { _ in "rain" } }
    }
    await store.send(.fetch)
    await store.receive(.fetched("rain")) { $0.forecast = "rain" }
  }

  @Test func settingAnEndpointOfAClientWhoseReadReportsReportsNothing() async {
    let store = TestStore(initialState: Forecaster.State()) {
      Forecaster(client: \.liveOnlyForecast)
        .dependency(\.liveOnlyForecast.forecast, { @Sendable _ in "rain" })
    }
    await store.send(.fetch)
    await store.receive(.fetched("rain")) { $0.forecast = "rain" }
  }
}

/// Overrides of a dependency that is its own key, with `.dependency(_:)`.
@MainActor
struct DependencyKeyWritingTypeKeyedTests {
  /// Greets with the `Salutation` in force.
  struct Welcome: Reducer {
    struct State: Equatable { var message = "" }
    enum Action: Equatable { case greet }
    @Dependency(Salutation.self) var salutation
    func reduce(into state: inout State, action: Action) -> Effect<Action> {
      state.message = "\(salutation.greeting), Oslo"
      return .none
    }
  }

  @Test func overrideOfAKeyWhoseReadReportsReportsNothing() async {
    let store = TestStore(initialState: Welcome.State()) {
      Welcome().dependency(Salutation(greeting: "Hi"))
    }
    await store.send(.greet) { $0.message = "Hi, Oslo" }
  }

  @Test func innermostOverrideWins() async {
    let store = TestStore(initialState: Welcome.State()) {
      Welcome()
        .dependency(Salutation(greeting: "Hi"))
        .dependency(Salutation(greeting: "Hey"))
    }
    await store.send(.greet) { $0.message = "Hi, Oslo" }
  }

  @Test func innermostOverrideWinsAcrossReducers() async {
    let store = TestStore(initialState: Welcome.State()) {
      CombineReducers {
        Welcome().dependency(Salutation(greeting: "Hi"))
      }
      .dependency(Salutation(greeting: "Hey"))
    }
    await store.send(.greet) { $0.message = "Hi, Oslo" }
  }

  @Test func anInnerTransformStartsFromTheOverride() async {
    let store = TestStore(initialState: Welcome.State()) {
      Welcome()
        .transformDependency(\.salutation) { $0.greeting += "!" }
        .dependency(Salutation(greeting: "Hi"))
    }
    await store.send(.greet) { $0.message = "Hi!, Oslo" }
  }

  @Test func mixesWithKeyPathOverrides() async {
    let store = TestStore(initialState: Welcome.State()) {
      Welcome()
        .dependency(\.timeZone, TimeZone(secondsFromGMT: 0)!)
        .dependency(Salutation(greeting: "Hi"))
        .dependency(\.locale, Locale(identifier: "en_US"))
    }
    await store.send(.greet) { $0.message = "Hi, Oslo" }
  }

  @Test func aClientWithOneEndpointSetReportsNothing() async {
    let store = TestStore(
      initialState: DependencyKeyWritingReportingKeysTests.Forecaster.State()
    ) {
      DependencyKeyWritingReportingKeysTests.Forecaster(client: \.forecast)
        .dependency(ForecastClient(forecast: { _ in "sunny" }))
    }
    await store.send(.fetch)
    await store.receive(.fetched("sunny")) { $0.forecast = "sunny" }
    await withKnownIssue {
      await store.send(.measure)
      await store.receive(.measured(0))
    } matching: {
      $0.description.contains("'ForecastClient.temperature'")
    }
  }

  @Test func withoutAnOverrideTheReadStillReports() async {
    let store = TestStore(initialState: Welcome.State()) {
      Welcome()
    }
    await withKnownIssue {
      await store.send(.greet) { $0.message = "Hello, Oslo" }
    } matching: {
      $0.description.contains(
        "@Dependency(Salutation.self) has no test implementation, but was read from a test.")
    }
  }
}

/// A dependency that is its own key and has only a live value, so reading it in a test reports.
struct Salutation: DependencyKey, Sendable {
  var greeting: String
  static let liveValue = Salutation(greeting: "Hello")
}

/// A client whose endpoints are unimplemented in tests; it is its own key.
@DependencyClient
struct ForecastClient: Sendable {
  var forecast: @Sendable (_ city: String) async throws -> String
  var temperature: @Sendable () async -> Int = { 0 }
}

extension ForecastClient: TestDependencyKey {
  static let testValue = ForecastClient()
}

/// The forecast client registered with only a live value, so reading it in a test reports.
private enum LiveOnlyForecastKey: DependencyKey {
  static let liveValue = ForecastClient(forecast: { _ in "live" }, temperature: { 20 })
}

extension DependencyValues {
  fileprivate var forecast: ForecastClient {
    get { self[ForecastClient.self] }
    set { self[ForecastClient.self] = newValue }
  }

  fileprivate var salutation: Salutation {
    get { self[Salutation.self] }
    set { self[Salutation.self] = newValue }
  }

  fileprivate var liveOnlyForecast: ForecastClient {
    get { self[LiveOnlyForecastKey.self] }
    set { self[LiveOnlyForecastKey.self] = newValue }
  }
}
