import CasePaths
import CustomDump
import IssueReporting

/// The state of a child feature that a parent presents (a sheet, a pop-up, a screen pushed on top,
/// or a child that runs for a while), `nil` while nothing is presented.
///
/// Hold it with ``Presents()`` in an ``ObservableState()`` struct, or with the property wrapper
/// in a plain struct, and integrate the child with
/// ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)``:
///
/// ```swift
/// @Reducer
/// struct Inbox {
///   @ObservableState
///   struct State: Equatable {
///     @Presents var compose: Compose.State?
///   }
///   enum Action {
///     case compose(PresentationAction<Compose.Action>)
///     case composeButtonTapped
///   }
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       switch action {
///       case .composeButtonTapped:
///         state.compose = Compose.State()
///         return .none
///       case .compose:
///         return .none
///       }
///     }
///     .ifLet(\.$compose, action: \.compose) { Compose() }
///   }
/// }
/// ```
///
/// The value is kept in a reference, copied on write, so a state can present a state of its own
/// type (a recursive drill-down) and stays one word wide however large the child is. Two
/// presentation states are equal when their values are.
@propertyWrapper
public struct PresentationState<State> {
  @usableFromInline
  final class Storage: @unchecked Sendable {
    // Only mutated through `PresentationState`, which copies the storage first unless it is the
    // only owner; shared storage is never written.
    @usableFromInline
    var value: State?
    /// The identity of the child that the presentation reducer last saw presented, to cancel its
    /// effects when another child (or none) takes its place.
    @usableFromInline
    var presentedID: _NavigationID?

    @usableFromInline
    init(value: State?, presentedID: _NavigationID?) {
      self.value = value
      self.presentedID = presentedID
    }
  }

  @usableFromInline
  var storage: Storage

  /// Creates a presentation state holding `wrappedValue`.
  @inlinable
  public init(wrappedValue: State?) {
    self.storage = Storage(value: wrappedValue, presentedID: nil)
  }

  /// The presented child's state, or `nil`.
  @inlinable
  public var wrappedValue: State? {
    get { storage.value }
    set {
      makeUnique()
      storage.value = newValue
    }
    _modify {
      makeUnique()
      yield &storage.value
    }
  }

  /// The presentation state itself (`state.$destination`), for
  /// ``Reducer/ifLet(_:action:destination:fileID:filePath:line:column:)`` and ``subscript(case:)``.
  @inlinable
  public var projectedValue: Self {
    get { self }
    set { self = newValue }
    _modify { yield &self }
  }

  @usableFromInline
  var presentedID: _NavigationID? {
    get { storage.presentedID }
    set {
      makeUnique()
      storage.presentedID = newValue
    }
  }

  @inlinable
  mutating func makeUnique() {
    if !isKnownUniquelyReferenced(&storage) {
      storage = Storage(value: storage.value, presentedID: storage.presentedID)
    }
  }

  /// The presented value in one case of an enum state, to read it or change it in place:
  ///
  /// ```swift
  /// state.$destination[case: \.editor]?.title = "Draft"
  /// ```
  ///
  /// Setting `nil` dismisses the case. Setting a value while the state is in another case changes
  /// nothing and is reported as an issue: present another case by assigning the whole destination.
  public subscript<Case>(
    case path: CaseKeyPath<State, Case>,
    fileID fileID: StaticString = #fileID,
    filePath filePath: StaticString = #filePath,
    line line: UInt = #line,
    column column: UInt = #column
  ) -> Case? where State: CasePathable {
    get { wrappedValue.flatMap { $0[case: path] } }
    set {
      modifyCase(
        AnyCasePath(path), newValue,
        location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }

  /// The presented value in one case of an enum state, named by a case path (`/Child.int`), the
  /// spelling from before case key paths.
  @available(*, deprecated, message: "Use a case key path, like '$destination[case: \\.editor]'.")
  public subscript<Case>(
    case path: AnyCasePath<State, Case>,
    fileID fileID: StaticString = #fileID,
    filePath filePath: StaticString = #filePath,
    line line: UInt = #line,
    column column: UInt = #column
  ) -> Case? {
    get { wrappedValue.flatMap(path.extract(from:)) }
    set {
      modifyCase(
        path, newValue,
        location: SourceLocation(fileID: fileID, filePath: filePath, line: line, column: column))
    }
  }

  private mutating func modifyCase<Case>(
    _ path: AnyCasePath<State, Case>, _ newValue: Case?, location: SourceLocation
  ) {
    guard let current = wrappedValue else { return }
    guard path.extract(from: current) != nil else {
      reportIssue(
        """
        Can't modify unrelated case \(caseName(of: current)) of '\(State.self)' through \
        '$destination[case:]'.

        A case subscript changes the presented value only while it is in that case. To present \
        another case, or to dismiss, assign the whole value instead ('state.destination = …').
        """,
        fileID: location.fileID, filePath: location.filePath, line: location.line,
        column: location.column)
      return
    }
    wrappedValue = newValue.map(path.embed)
  }
}

/// The name of the enum case `value` is in, quoted, for messages.
private func caseName(of value: Any) -> String {
  let mirror = Mirror(reflecting: value)
  guard mirror.displayStyle == .enum else { return "'\(String(describing: value))'" }
  return "'\(mirror.children.first?.label ?? String(describing: value))'"
}

extension PresentationState: Equatable where State: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs.storage === rhs.storage || lhs.wrappedValue == rhs.wrappedValue
  }
}

extension PresentationState: Hashable where State: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(wrappedValue)
  }
}

extension PresentationState: Sendable where State: Sendable {}

extension PresentationState: Decodable where State: Decodable {
  public init(from decoder: any Decoder) throws {
    self.init(wrappedValue: try State?(from: decoder))
  }
}

extension PresentationState: Encodable where State: Encodable {
  public func encode(to encoder: any Encoder) throws {
    try wrappedValue.encode(to: encoder)
  }
}

extension PresentationState: CustomReflectable {
  /// Reflects as the presented value, so dumps and test failures show the child's state.
  public var customMirror: Mirror {
    Mirror(reflecting: wrappedValue as Any)
  }
}

/// The identity of the presented child, for ``Presents()`` in an ``ObservableState()`` struct.
@inlinable
public func _$observableStateIdentity<Value>(
  of value: PresentationState<Value>
) -> ObservableStateID? {
  value.wrappedValue.map { _$observableStateID(of: $0) }
}

/// Gives the presented child a new identity before it is changed in place, for ``Presents()``.
@inlinable
public func _$willModify<Value: ObservableState>(_ value: inout PresentationState<Value>) {
  value.wrappedValue?._$willModify()
}
