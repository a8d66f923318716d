import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ObservationStateTracked`: turns a stored property of an `@ObservableState` struct into a
/// computed one over private storage (`_name`), telling the struct's registrar about every read
/// and write.
///
/// A write tells observers of the property, unless the old and new values are the same
/// observable state (a child mutated in place, whose own observers are told instead), the same
/// observable states in a collection, or equal values that hold no observable state. Before an
/// in-place modification the child gets a new identity, so that replacing it during the
/// modification with a copy of another value (`self = other`) still counts as a replacement.
public enum ObservationStateTrackedMacro {}

extension ObservationStateTrackedMacro: AccessorMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let property = declaration.as(VariableDeclSyntax.self), property.isTrackable,
      let name = property.bindings.first?.pattern.trimmedDescription
    else { return [] }
    return [
      """
      @storageRestrictions(initializes: _\(raw: name))
      init(initialValue) {
        _\(raw: name) = initialValue
      }
      """,
      """
      get {
        _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
        return _\(raw: name)
      }
      """,
      """
      set {
        if Architecture._$isUnchangedValue(_\(raw: name), newValue) {
          _\(raw: name) = newValue
          return
        }
        let oldID = Architecture._$observableStateIdentity(of: _\(raw: name))
        _\(raw: name) = newValue
        _$observationRegistrar.didChange(
          self, keyPath: \\.\(raw: name), from: oldID,
          to: Architecture._$observableStateIdentity(of: _\(raw: name)))
      }
      """,
      """
      _modify {
        Architecture._$willModify(&_\(raw: name))
        let oldID = Architecture._$observableStateIdentity(of: _\(raw: name))
        defer {
          _$observationRegistrar.didChange(
            self, keyPath: \\.\(raw: name), from: oldID,
            to: Architecture._$observableStateIdentity(of: _\(raw: name)))
        }
        yield &_\(raw: name)
      }
      """,
    ]
  }
}

extension ObservationStateTrackedMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let property = declaration.as(VariableDeclSyntax.self), property.isTrackable,
      let binding = property.bindings.first
    else { return [] }
    let name = binding.pattern.trimmedDescription
    let type = binding.typeAnnotation.map { ": \($0.type.trimmedDescription)" } ?? ""
    let initializer = binding.initializer.map { " = \($0.value.trimmedDescription)" } ?? ""
    return [
      "@Architecture.ObservationStateIgnored private var _\(raw: name)\(raw: type)\(raw: initializer)"
    ]
  }
}

/// `@ObservationStateIgnored`: leaves a property of an `@ObservableState` struct untracked.
public enum ObservationStateIgnoredMacro: AccessorMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    []
  }
}
