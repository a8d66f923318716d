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
/// A struct without logic gets an empty `State`, `Action` and `body`.
///
/// On an enum whose cases name reducers, the macro makes an enum reducer (``CaseReducer``): a
/// `State` enum and an `Action` enum with a case per reducer (`@CasePathable`,
/// `@dynamicMemberLookup`, and ``ObservableState()`` for the state), and a static `body` that
/// runs each case's reducer while the state is in that case. See ``ReducerCaseIgnored()`` and
/// ``ReducerCaseEphemeral()`` for cases without a reducer.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case settings(Settings)
///   case alert(AlertState<Alert>)
///   enum Alert { case confirm }
/// }
/// extension Destination.State: Equatable {}
/// ```
@attached(
  member,
  names: named(State), named(Action), named(body), named(_Body)
)
@attached(memberAttribute)
@attached(extension, conformances: Reducer, CaseReducer)
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

/// Holds a presented child's optional state in a ``PresentationState``, for
/// ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)``.
///
/// ```swift
/// @ObservableState
/// struct State: Equatable {
///   @Presents var destination: Destination.State?
/// }
///
/// state.destination = .settings(Settings.State())   // present
/// state.$destination                                 // the PresentationState, for `ifLet`
/// ```
///
/// In an ``ObservableState()`` struct the property is tracked like the others. In a plain
/// struct, ``PresentationState`` as a property wrapper (`@PresentationState var child`) does
/// the same job.
@attached(accessor, names: named(init), named(get), named(set), named(_modify))
@attached(peer, names: prefixed(`$`), prefixed(_))
public macro Presents() =
  #externalMacro(module: "ArchitectureMacros", type: "PresentsMacro")

/// Marks a case of a `@Reducer enum` that holds state but no feature: its state case keeps the
/// payload as written, and it has no action case and no reducer.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case editor(Editor)
///   @ReducerCaseIgnored
///   case preview(URL)
/// }
/// ```
@attached(peer)
public macro ReducerCaseIgnored() =
  #externalMacro(module: "ArchitectureMacros", type: "ReducerCaseMarkerMacro")

/// Marks a case of a `@Reducer enum` whose state has no logic of its own, like an alert: its
/// action case carries the state's action type, and any of those actions dismisses it after the
/// parent has seen it. `AlertState` and `ConfirmationDialogState` cases are ephemeral without the
/// mark.
///
/// ```swift
/// @Reducer
/// enum Destination {
///   case editor(Editor)
///   @ReducerCaseEphemeral
///   case notice(Notice<NoticeAction>)   // `Notice: _EphemeralState`
/// }
/// ```
@attached(peer)
public macro ReducerCaseEphemeral() =
  #externalMacro(module: "ArchitectureMacros", type: "ReducerCaseMarkerMacro")
