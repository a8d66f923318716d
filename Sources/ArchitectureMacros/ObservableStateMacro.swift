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
    let items = CaseItem.items(in: enumDecl.memberBlock.members)
    // Each case gets its own tag, counted across `#if` blocks too.
    var tags: [String: Int] = [:]
    var needsDefault = false
    CaseItem.forEach(items) { element, _ in
      tags[element.name.text] = tags.count
      if element.parameterClause?.parameters.count != 1 { needsDefault = true }
    }
    let idCases = CaseItem.render(items) { element, _ in
      let name = element.name.text
      let tag = tags[name] ?? 0
      switch element.parameterClause?.parameters.count ?? 0 {
      case 0:
        return "case .\(name): return Architecture.ObservableStateID()._$tag(\(tag))"
      case 1:
        return """
          case .\(name)(let state): \
          return Architecture._$observableStateID(of: state)._$tag(\(tag))
          """
      case let count:
        let wildcards = Array(repeating: "_", count: count).joined(separator: ", ")
        return "case .\(name)(\(wildcards)): return Architecture.ObservableStateID()._$tag(\(tag))"
      }
    }
    let willModifyCases = CaseItem.render(items) { element, _ in
      let name = element.name.text
      guard element.parameterClause?.parameters.count == 1 else { return nil }
      return """
        case .\(name)(var state):
          Architecture._$willModify(&state)
          self = .\(name)(state)
        """
    }
    let idBody =
      tags.isEmpty
      ? "Architecture.ObservableStateID()"
      : "switch self {\n\(idCases)\n}"
    let willModifyBody =
      willModifyCases.isEmpty
      ? ""
      : "switch self {\n\(willModifyCases)\n\(needsDefault ? "default: break\n" : "")}"
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
