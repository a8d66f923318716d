import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@Reducer`: makes a struct a reducer the way TCA 1.x's macro does.
///
/// - Adds the `Reducer` conformance (unless the struct declares it).
/// - Marks a nested `enum Action`, and a nested `enum State`, `@CasePathable` and
///   `@dynamicMemberLookup`, so case key paths (`\.child.tap`) name their cases.
/// - Marks `var body: some Reducer<…>` with `@ReducerBuilder`.
/// - Fills in what a reducer without logic leaves out: an empty `State` and `Action`, and an
///   empty `body`.
///
/// On an enum of reducers it generates an enum reducer instead (see `EnumReducer`).
public enum ReducerMacro {}

/// `@ReducerCaseIgnored` and `@ReducerCaseEphemeral`: marks that `@Reducer` reads on an enum's
/// cases; they expand to nothing.
public enum ReducerCaseMarkerMacro: PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    []
  }
}

extension ReducerMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    if declaration.is(EnumDeclSyntax.self) {
      let decl: DeclSyntax =
        "extension \(type.trimmed): Architecture.CaseReducer, Architecture.Reducer {}"
      return [decl.cast(ExtensionDeclSyntax.self)]
    }
    guard declaration.is(StructDeclSyntax.self) else { return [] }
    if declaration.inheritedTypeNames.contains(where: {
      $0.names("Reducer", module: "Architecture")
    }) {
      return []
    }
    let decl: DeclSyntax = "extension \(type.trimmed): Architecture.Reducer {}"
    return [decl.cast(ExtensionDeclSyntax.self)]
  }
}

extension ReducerMacro: MemberAttributeMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard declaration.is(StructDeclSyntax.self) else { return [] }
    if let enumDecl = member.as(EnumDeclSyntax.self) {
      guard ["State", "Action"].contains(enumDecl.name.text) else { return [] }
      var wanted = ["CasePathable", "dynamicMemberLookup"]
      let present = enumDecl.attributes.names
      if enumDecl.inheritedTypeNames.contains(where: {
        $0.names("CasePathable", module: "CasePaths")
      }) {
        wanted.removeAll { $0 == "CasePathable" }
      }
      wanted.removeAll { present.contains($0) }
      return wanted.map { name in
        let qualified = name == "CasePathable" ? "CasePaths.CasePathable" : name
        return AttributeSyntax(attributeName: IdentifierTypeSyntax(name: .identifier(qualified)))
      }
    }
    if let property = member.as(VariableDeclSyntax.self),
      property.bindingSpecifier.tokenKind == .keyword(.var),
      !property.isStatic,
      property.bindings.count == 1,
      let binding = property.bindings.first,
      binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body",
      let arguments = binding.typeAnnotation?.type.as(SomeOrAnyTypeSyntax.self)?
        .constraint.as(IdentifierTypeSyntax.self)?.genericArgumentClause?.arguments
    {
      if property.attributes.names.contains(where: { $0.hasPrefix("ReducerBuilder") }) {
        return []
      }
      let builderArguments =
        arguments.count == 1
        ? "\(arguments.trimmedDescription).State, \(arguments.trimmedDescription).Action"
        : arguments.trimmedDescription
      return [
        AttributeSyntax(
          attributeName: IdentifierTypeSyntax(
            name: .identifier("Architecture.ReducerBuilder<\(builderArguments)>")))
      ]
    }
    return []
  }
}

extension ReducerMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      return EnumReducer.members(of: enumDecl, in: context)
    }
    guard declaration.is(StructDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: ReducerMacroMessage("'@Reducer' applies to structs and enums")))
      return []
    }
    let access = declaration.accessPrefix
    let members = declaration.memberBlock.members
    let typeNames = members.compactMap {
      $0.decl.as(StructDeclSyntax.self)?.name.text
        ?? $0.decl.as(EnumDeclSyntax.self)?.name.text
        ?? $0.decl.as(TypeAliasDeclSyntax.self)?.name.text
        ?? $0.decl.as(ClassDeclSyntax.self)?.name.text
    }
    let bindings = members.flatMap { $0.decl.as(VariableDeclSyntax.self)?.bindings ?? [] }
    let hasReduceMethod = members.contains {
      guard let function = $0.decl.as(FunctionDeclSyntax.self) else { return false }
      let parameters = function.signature.parameterClause.parameters
      return function.name.text == "reduce" && parameters.count == 2
        && parameters.first?.firstName.text == "into"
        && parameters.last?.firstName.text == "action"
    }
    let hasBody =
      hasReduceMethod
      || bindings.contains {
        $0.pattern.as(IdentifierPatternSyntax.self)?.identifier.text == "body"
      }
    var decls: [DeclSyntax] = []
    if !typeNames.contains("State"), !hasBody {
      // `ObservableState` is declared here rather than left to the attached macro's extension,
      // for the reason given in `EnumReducer`.
      decls.append(
        """
        @Architecture.ObservableState
        \(raw: access)struct State: Codable, Equatable, Hashable, Sendable, \
        Architecture.ObservableState, Observation.Observable {
          \(raw: access)init() {}
        }
        """)
    }
    if !typeNames.contains("Action"), !hasBody {
      decls.append("\(raw: access)enum Action: Equatable, Hashable, Sendable {}")
    }
    if !hasBody {
      decls.append(
        "\(raw: access)var body: Architecture.EmptyReducer<State, Action> { .init() }")
    }
    return decls
  }
}

struct ReducerMacroMessage: DiagnosticMessage {
  let message: String
  var diagnosticID: MessageID { MessageID(domain: "ArchitectureMacros", id: "Reducer") }
  var severity: DiagnosticSeverity { .error }

  init(_ message: String) {
    self.message = message
  }
}
