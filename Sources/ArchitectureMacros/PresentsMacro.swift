import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Presents`: keeps an optional child state in a `PresentationState` (`_name`), exposes the
/// child as `name` and the presentation state as `$name`.
///
/// In an `@ObservableState` struct, reads and writes of either are tracked like any other
/// property's: replacing or dismissing the child tells observers of `name`; changing it in place
/// tells observers of the child's own properties.
public enum PresentsMacro {}

extension PresentsMacro: AccessorMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let property = PresentedProperty(declaration, node: node, in: context) else {
      return []
    }
    let name = property.name
    let initAccessor: AccessorDeclSyntax = """
      @storageRestrictions(initializes: _\(raw: name))
      init(initialValue) {
        _\(raw: name) = Architecture.PresentationState(wrappedValue: initialValue)
      }
      """
    guard isInObservableState(context) else {
      return [
        initAccessor,
        "get { _\(raw: name).wrappedValue }",
        "set { _\(raw: name).wrappedValue = newValue }",
        "_modify { yield &_\(raw: name).wrappedValue }",
      ]
    }
    return [
      initAccessor,
      """
      get {
        _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
        return _\(raw: name).wrappedValue
      }
      """,
      """
      set {
        let oldID = Architecture._$observableStateIdentity(of: _\(raw: name))
        _\(raw: name).wrappedValue = newValue
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
        yield &_\(raw: name).wrappedValue
      }
      """,
    ]
  }
}

extension PresentsMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let property = PresentedProperty(declaration, node: node, in: context) else {
      return []
    }
    let name = property.name
    let stateType = "Architecture.PresentationState<\(property.wrappedType)>"
    let storage: DeclSyntax = """
      @Architecture.ObservationStateIgnored
      private var _\(raw: name) = \(raw: stateType)(wrappedValue: \(raw: property.initialValue))
      """
    guard isInObservableState(context) else {
      return [
        storage,
        """
        \(raw: property.access)var $\(raw: name): \(raw: stateType) {
          get { _\(raw: name) }
          set { _\(raw: name) = newValue }
          _modify { yield &_\(raw: name) }
        }
        """,
      ]
    }
    return [
      storage,
      """
      \(raw: property.access)var $\(raw: name): \(raw: stateType) {
        get {
          _$observationRegistrar.access(self, keyPath: \\.\(raw: name))
          return _\(raw: name)
        }
        set {
          let oldID = Architecture._$observableStateIdentity(of: _\(raw: name))
          _\(raw: name) = newValue
          _$observationRegistrar.didChange(
            self, keyPath: \\.\(raw: name), from: oldID,
            to: Architecture._$observableStateIdentity(of: _\(raw: name)))
        }
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
      }
      """,
    ]
  }
}

/// Whether the property the macro is attached to belongs to an `@ObservableState` type, whose
/// registrar the accessors then tell about reads and writes.
private func isInObservableState(_ context: some MacroExpansionContext) -> Bool {
  guard let type = context.lexicalContext.first?.asProtocol(DeclGroupSyntax.self) else {
    return false
  }
  return type.attributes.names.contains("ObservableState")
}

/// The parts of `@Presents var name: Child?` that the expansion uses.
private struct PresentedProperty {
  let name: String
  let wrappedType: String
  let initialValue: String
  let access: String

  init?(
    _ declaration: some DeclSyntaxProtocol, node: AttributeSyntax,
    in context: some MacroExpansionContext
  ) {
    guard let property = declaration.as(VariableDeclSyntax.self),
      property.bindingSpecifier.tokenKind == .keyword(.var),
      property.bindings.count == 1,
      let binding = property.bindings.first,
      binding.accessorBlock == nil,
      let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text
    else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: ReducerMacroMessage("'@Presents' applies to one stored 'var' of optional type")
        ))
      return nil
    }
    guard let type = binding.typeAnnotation?.type, let wrapped = Self.wrappedType(of: type) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: ReducerMacroMessage(
            "'@Presents' needs the property's optional type written out: 'var \(name): Child.State?'"
          )))
      return nil
    }
    self.name = name
    self.wrappedType = wrapped
    self.initialValue = binding.initializer?.value.trimmedDescription ?? "nil"
    self.access =
      property.modifiers.first {
        [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
      }.map { "\($0.name.text) " } ?? ""
  }

  /// `Child` for `Child?`, `Child!` and `Optional<Child>`.
  private static func wrappedType(of type: TypeSyntax) -> String? {
    if let optional = type.as(OptionalTypeSyntax.self) {
      return optional.wrappedType.trimmedDescription
    }
    if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return optional.wrappedType.trimmedDescription
    }
    if let identifier = type.as(IdentifierTypeSyntax.self),
      identifier.name.text == "Optional",
      let argument = identifier.genericArgumentClause?.arguments.first
    {
      return argument.trimmedDescription
    }
    return nil
  }
}
