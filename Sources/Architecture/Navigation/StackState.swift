import CasePaths
import ConcurrencyExtras
import CustomDump
import Dependencies
import IssueReporting

/// The state of a stack of child features, each element with its own id: a navigation path, a
/// wizard's steps.
///
/// ```swift
/// @Reducer
/// struct RootFeature {
///   @ObservableState
///   struct State: Equatable {
///     var path = StackState<Path.State>()
///   }
///   enum Action {
///     case path(StackActionOf<Path>)
///     case showDetail
///   }
///   var body: some ReducerOf<Self> {
///     Reduce { state, action in
///       switch action {
///       case .showDetail:
///         state.path.append(.detail(Detail.State()))
///         return .none
///       case .path:
///         return .none
///       }
///     }
///     .forEach(\.path, action: \.path)
///   }
/// }
/// ```
///
/// Appending an element gives it a new ``StackElementID``: ids count up from 0 in each test (and
/// in each store's run of a test), so tests can name elements `0`, `1`, ….
public struct StackState<Element> {
  @usableFromInline
  var _ids: [StackElementID]

  @usableFromInline
  var _elements: [Element]

  /// The ids that the stack reducer last saw, to cancel the effects of elements that another
  /// reducer removed since; `nil` until it has run. Not part of the stack's value.
  @usableFromInline
  var _mounted: [StackElementID]?

  /// Creates an empty stack.
  public init() {
    self._ids = []
    self._elements = []
  }

  /// Creates a stack of `elements`, giving each a new id.
  public init(_ elements: some Sequence<Element>) {
    self.init()
    append(contentsOf: elements)
  }

  /// The ids of the elements, bottom of the stack first.
  public var ids: [StackElementID] { _ids }

  /// The element with id `id`, or `nil`.
  ///
  /// Setting `nil` removes the element. Setting an element for an id that is not in the stack is
  /// reported as an issue and changes nothing, except in a test's assertion closure, where it
  /// appends the element under that id (so a test can write the stack it expects).
  public subscript(
    id id: StackElementID,
    fileID fileID: StaticString = #fileID,
    filePath filePath: StaticString = #filePath,
    line line: UInt = #line,
    column column: UInt = #column
  ) -> Element? {
    get {
      _ids.firstIndex(of: id).map { _elements[$0] }
    }
    set {
      if let index = _ids.firstIndex(of: id) {
        if let newValue {
          _elements[index] = newValue
        } else {
          _ids.remove(at: index)
          _elements.remove(at: index)
        }
      } else if let newValue {
        guard TestContext.isAsserting else {
          reportIssue(
            "Can't set the element of a 'StackState' at id \(id.generation): it has no such id.",
            fileID: fileID, filePath: filePath, line: line, column: column)
          return
        }
        _ids.append(id)
        _elements.append(newValue)
      }
    }
  }

  /// The element with id `id`, in the given case of an enum element.
  ///
  /// ```swift
  /// state.path[id: 0, case: \.detail]?.title = "Edited"
  /// ```
  ///
  /// Setting a value while the element is in another case changes nothing and is reported.
  public subscript<Case>(
    id id: StackElementID,
    case path: CaseKeyPath<Element, Case>,
    fileID fileID: StaticString = #fileID,
    filePath filePath: StaticString = #filePath,
    line line: UInt = #line,
    column column: UInt = #column
  ) -> Case? where Element: CasePathable {
    get { self[id: id].flatMap { $0[case: path] } }
    set {
      guard let index = _ids.firstIndex(of: id) else { return }
      guard _elements[index][case: path] != nil else {
        reportIssue(
          """
          Can't modify the element at id \(id.generation) of a 'StackState' through an unrelated \
          case: it is in another case of '\(Element.self)'.
          """,
          fileID: fileID, filePath: filePath, line: line, column: column)
        return
      }
      if let newValue {
        _elements[index] = AnyCasePath(path).embed(newValue)
      } else {
        _ids.remove(at: index)
        _elements.remove(at: index)
      }
    }
  }

  /// The element with id `id`, in the case of an enum element named by a case path
  /// (`/Element.int`), the spelling from before case key paths.
  @available(*, deprecated, message: "Use a case key path, like 'path[id: id, case: \\.detail]'.")
  public subscript<Case>(
    id id: StackElementID,
    case path: AnyCasePath<Element, Case>,
    fileID fileID: StaticString = #fileID,
    filePath filePath: StaticString = #filePath,
    line line: UInt = #line,
    column column: UInt = #column
  ) -> Case? {
    get { self[id: id].flatMap(path.extract(from:)) }
    set {
      guard let index = _ids.firstIndex(of: id) else { return }
      guard path.extract(from: _elements[index]) != nil else {
        reportIssue(
          """
          Can't modify the element at id \(id.generation) of a 'StackState' through an unrelated \
          case: it is in another case of '\(Element.self)'.
          """,
          fileID: fileID, filePath: filePath, line: line, column: column)
        return
      }
      if let newValue {
        _elements[index] = path.embed(newValue)
      } else {
        _ids.remove(at: index)
        _elements.remove(at: index)
      }
    }
  }

  /// Removes the element with id `id` and every element above it.
  public mutating func pop(from id: StackElementID) {
    guard let index = _ids.firstIndex(of: id) else { return }
    removeSubrange(index...)
  }

  /// Removes every element above the one with id `id`.
  public mutating func pop(to id: StackElementID) {
    guard let index = _ids.firstIndex(of: id) else { return }
    removeSubrange((index + 1)...)
  }

  /// Appends `element` under a given id, for ``StackAction/push(id:state:)``.
  @usableFromInline
  mutating func push(_ element: Element, id: StackElementID) {
    _ids.append(id)
    _elements.append(element)
  }
}

extension StackState: RandomAccessCollection, RangeReplaceableCollection, MutableCollection {
  public var startIndex: Int { _elements.startIndex }
  public var endIndex: Int { _elements.endIndex }
  public func index(after i: Int) -> Int { i + 1 }
  public func index(before i: Int) -> Int { i - 1 }

  public subscript(position: Int) -> Element {
    get { _elements[position] }
    set { _elements[position] = newValue }
    _modify { yield &_elements[position] }
  }

  public mutating func removeAll(keepingCapacity keepCapacity: Bool = false) {
    // In place (not `self = Self()`), so the stack reducer still knows which elements it had.
    _ids.removeAll(keepingCapacity: keepCapacity)
    _elements.removeAll(keepingCapacity: keepCapacity)
  }

  public mutating func replaceSubrange(
    _ subrange: Range<Int>, with newElements: some Collection<Element>
  ) {
    let nextID = DependencyValues._current.stackElementID
    let newElements = Array(newElements)
    _ids.replaceSubrange(subrange, with: newElements.map { _ in nextID() })
    _elements.replaceSubrange(subrange, with: newElements)
  }
}

extension StackState: ExpressibleByArrayLiteral {
  public init(arrayLiteral elements: Element...) {
    self.init(elements)
  }
}

extension StackState: Equatable where Element: Equatable {
  public static func == (lhs: Self, rhs: Self) -> Bool {
    lhs._ids == rhs._ids && lhs._elements == rhs._elements
  }
}

extension StackState: Hashable where Element: Hashable {
  public func hash(into hasher: inout Hasher) {
    hasher.combine(_ids)
    hasher.combine(_elements)
  }
}

extension StackState: Sendable where Element: Sendable {}

extension StackState: Decodable where Element: Decodable {
  /// Decodes the elements, giving each a new id.
  public init(from decoder: any Decoder) throws {
    self.init(try [Element](from: decoder))
  }
}

extension StackState: Encodable where Element: Encodable {
  /// Encodes the elements (not their ids).
  public func encode(to encoder: any Encoder) throws {
    try _elements.encode(to: encoder)
  }
}

extension StackState: CustomDumpReflectable {
  /// Dumps as a dictionary from ids (`#0`) to elements, bottom of the stack first.
  public var customDumpMirror: Mirror {
    Mirror(
      self,
      unlabeledChildren: zip(_ids, _elements).map { (key: $0, value: $1) },
      displayStyle: .dictionary)
  }
}

/// The id of one element of a ``StackState``. Write it as an integer literal in tests:
/// `.path(.element(id: 0, action: .saveButtonTapped))`.
public struct StackElementID: Hashable, Comparable, Sendable {
  /// The number of the element: 0 for the first element made in a test, 1 for the next, ….
  @_spi(Internals)
  public let generation: Int

  @_spi(Internals)
  public init(generation: Int) {
    self.generation = generation
  }

  public static func < (lhs: Self, rhs: Self) -> Bool {
    lhs.generation < rhs.generation
  }
}

extension StackElementID: ExpressibleByIntegerLiteral {
  public init(integerLiteral value: Int) {
    self.init(generation: value)
  }
}

extension StackElementID: CustomStringConvertible, CustomDumpStringConvertible {
  public var description: String { "#\(generation)" }
  public var customDumpDescription: String { "#\(generation)" }
}

/// Makes the ids of new stack elements: counting from 0, once per process when live and once per
/// test in tests.
@_spi(Internals)
public struct StackElementIDGenerator: Sendable {
  private let counter: LockIsolated<Int>

  init(startingAt first: Int = 0) {
    self.counter = LockIsolated(first)
  }

  /// A new id.
  public func next() -> StackElementID {
    counter.withValue { next in
      defer { next += 1 }
      return StackElementID(generation: next)
    }
  }

  /// The id that ``next()`` will return.
  public func peek() -> StackElementID {
    StackElementID(generation: counter.value)
  }

  func callAsFunction() -> StackElementID { next() }

  /// Makes sure that later ids come after `id`, which was given to an element from outside
  /// (``StackAction/push(id:state:)``).
  func skip(past id: StackElementID) {
    counter.withValue { next in next = max(next, id.generation + 1) }
  }
}

extension StackElementIDGenerator: DependencyKey {
  public static var liveValue: Self { Self() }
  public static var testValue: Self { Self() }
}

extension DependencyValues {
  /// Makes the ids of new ``StackState`` elements.
  @_spi(Internals)
  public var stackElementID: StackElementIDGenerator {
    get { self[StackElementIDGenerator.self] }
    set { self[StackElementIDGenerator.self] = newValue }
  }
}

/// Makes sure that the ids of new stack elements come after `id`.
@usableFromInline
func stackElementIDs(skipPast id: StackElementID) {
  DependencyValues._current.stackElementID.skip(past: id)
}

/// What a ``TestStore`` is doing on this task.
enum TestContext {
  /// Whether a test's assertion closure is running, in which a ``StackState`` accepts elements
  /// at ids it does not have.
  @TaskLocal static var isAsserting = false
}
