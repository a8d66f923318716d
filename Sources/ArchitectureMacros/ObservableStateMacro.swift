import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@ObservableState`: makes a feature's state observable through Swift's Observation module.
///
/// On a struct, every stored `var` becomes a computed property over private storage that tells
/// an observation registrar when it is read and written (`@ObservationStateTracked`), and the
/// struct gets an identity (`_$id`) that its copies share, so a parent can tell "the child
/// changed inside" (observers of the child's own properties are told) from "the child was
/// replaced" (observers of the parent's property are told).
///
/// On an enum, the identity is the case together with the identity of its observable payload.
public enum ObservableStateMacro {}

extension ObservableStateMacro: ExtensionMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingExtensionsOf type: some TypeSyntaxProtocol,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [ExtensionDeclSyntax] {
    if declaration.inheritedTypeNames.contains(where: {
      $0.names("ObservableState", module: "Architecture")
    }) {
      return []
    }
    let decl: DeclSyntax =
      "extension \(type.trimmed): Architecture.ObservableState, Observation.Observable {}"
    return [decl.cast(ExtensionDeclSyntax.self)]
  }
}

extension ObservableStateMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    let access = declaration.accessPrefix
    if let enumDecl = declaration.as(EnumDeclSyntax.self) {
      return enumMembers(enumDecl, access: access)
    }
    guard declaration.is(StructDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(
          node: node,
          message: ReducerMacroMessage("'@ObservableState' applies to structs and enums")))
      return []
    }
    return [
      "var _$observationRegistrar = Architecture.ObservationStateRegistrar()",
      """
      \(raw: access)var _$id: Architecture.ObservableStateID {
        _$observationRegistrar.id
      }
      """,
      """
      \(raw: access)mutating func _$willModify() {
        _$observationRegistrar._$willModify()
      }
      """,
    ]
  }

  private static func enumMembers(_ enumDecl: EnumDeclSyntax, access: String) -> [DeclSyntax] {
    let elements = enumDecl.memberBlock.members
      .compactMap { $0.decl.as(EnumCaseDeclSyntax.self) }
      .flatMap(\.elements)
    var idCases: [String] = []
    var willModifyCases: [String] = []
    for (tag, element) in elements.enumerated() {
      let name = element.name.text
      let count = element.parameterClause?.parameters.count ?? 0
      switch count {
      case 0:
        idCases.append("case .\(name): return Architecture.ObservableStateID()._$tag(\(tag))")
      case 1:
        idCases.append(
          """
          case .\(name)(let state): \
          return Architecture._$observableStateID(of: state)._$tag(\(tag))
          """)
        willModifyCases.append(
          """
          case .\(name)(var state):
            Architecture._$willModify(&state)
            self = .\(name)(state)
          """)
      default:
        let wildcards = Array(repeating: "_", count: count).joined(separator: ", ")
        idCases.append(
          "case .\(name)(\(wildcards)): return Architecture.ObservableStateID()._$tag(\(tag))")
      }
    }
    let idBody =
      idCases.isEmpty
      ? "Architecture.ObservableStateID()"
      : "switch self {\n\(idCases.joined(separator: "\n"))\n}"
    let willModifyBody =
      willModifyCases.isEmpty
      ? ""
      : "switch self {\n\(willModifyCases.joined(separator: "\n"))\ndefault: break\n}"
    return [
      """
      \(raw: access)var _$id: Architecture.ObservableStateID {
        \(raw: idBody)
      }
      """,
      """
      \(raw: access)mutating func _$willModify() {
        \(raw: willModifyBody)
      }
      """,
    ]
  }
}

extension ObservableStateMacro: MemberAttributeMacro {
  public static func expansion(
    of node: AttributeSyntax,
    attachedTo declaration: some DeclGroupSyntax,
    providingAttributesFor member: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AttributeSyntax] {
    guard declaration.is(StructDeclSyntax.self),
      let property = member.as(VariableDeclSyntax.self),
      property.isTrackable
    else { return [] }
    let present = property.attributes.names
    let skip = [
      "ObservationStateIgnored", "ObservationStateTracked", "ObservationIgnored", "Presents",
    ]
    if present.contains(where: skip.contains) { return [] }
    return [
      AttributeSyntax(
        attributeName: IdentifierTypeSyntax(
          name: .identifier("Architecture.ObservationStateTracked")))
    ]
  }
}

extension VariableDeclSyntax {
  /// Whether this is a stored instance `var` that observation can track: one binding, a plain
  /// name, no accessors, not `lazy`.
  var isTrackable: Bool {
    guard bindingSpecifier.tokenKind == .keyword(.var), !isStatic,
      !modifiers.contains(where: { $0.name.tokenKind == .keyword(.lazy) }),
      bindings.count == 1,
      let binding = bindings.first,
      let name = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier.text,
      !name.hasPrefix("_$")
    else { return false }
    return binding.accessorBlock == nil
  }
}
