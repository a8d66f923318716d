import Observation

/// Makes a struct a reducer, as TCA 1.x's `@Reducer` does.
///
/// The macro adds the ``Reducer`` conformance, marks a nested `enum Action` (and an `enum State`)
/// `@CasePathable` and `@dynamicMemberLookup` so their cases have case key paths, and marks
/// `body` with ``ReducerBuilder``:
///
/// ```swift
/// @Reducer
/// struct Counter {
///   @ObservableState
///   struct State: Equatable { var count = 0 }
///   enum Action { case incrementButtonTapped, child(Child.Action) }
///
///   var body: some ReducerOf<Self> {
///     Scope(state: \.child, action: \.child) { Child() }
///     Reduce { state, action in ... }
///   }
/// }
///
/// await store.send(.child(.tap))
/// await store.receive(\.child.tapped)
/// ```
///
/// A struct without logic gets an empty `State`, `Action` and `body`. Enum reducers
/// (`@Reducer enum Destination`) are not supported: write a struct with an enum `State` and
/// compose its cases with ``Scope`` or ``Reducer/ifCaseLet(_:action:then:fileID:filePath:line:column:)``.
@attached(
  member,
  names: named(State), named(Action), named(body)
)
@attached(memberAttribute)
@attached(extension, conformances: Reducer)
public macro Reducer() =
  #externalMacro(module: "ArchitectureMacros", type: "ReducerMacro")

/// Makes a feature's state observable through Swift's Observation module.
///
/// Reading a property inside `withObservationTracking` registers it; changing it calls
/// `onChange`. Through a store:
///
/// ```swift
/// @ObservableState
/// struct State { var count = 0 }
///
/// withObservationTracking {
///   _ = store.state.count
/// } onChange: {
///   print("count will change")
/// }
/// store.send(.incrementButtonTapped)  // prints
/// ```
///
/// A child state mutated in place notifies observers of its own properties, not observers of the
/// parent's property that holds it; replacing the child notifies the parent's observers. Mark a
/// property with ``ObservationStateIgnored()`` to leave it untracked.
@attached(extension, conformances: ObservableState, Observable)
@attached(member, names: named(_$id), named(_$observationRegistrar), named(_$willModify))
@attached(memberAttribute)
public macro ObservableState() =
  #externalMacro(module: "ArchitectureMacros", type: "ObservableStateMacro")

/// Tracks one stored property of an ``ObservableState()`` struct; the macro adds it to every
/// stored `var`, so you don't write it yourself.
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(_))
public macro ObservationStateTracked() =
  #externalMacro(module: "ArchitectureMacros", type: "ObservationStateTrackedMacro")

/// Leaves a property of an ``ObservableState()`` struct untracked: reading it registers nothing
/// and changing it tells no one.
@attached(accessor, names: named(willSet))
public macro ObservationStateIgnored() =
  #externalMacro(module: "ArchitectureMacros", type: "ObservationStateIgnoredMacro")
