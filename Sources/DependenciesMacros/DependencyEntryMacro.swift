import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DependencyEntry`: registers a dependency from one property in an extension of
/// `DependencyValues`, generating its key type and the accessors that go through it.
///
/// The property's initial value is the test value (and the live and preview value unless
/// `liveValue:` / `previewValue:` give others). The key is `__Key_<property>`, or the name
/// given as the first argument.
public struct DependencyEntryMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let (_, identifier) = property(declaration) else { return [] }
    let key = keyName(node: node, identifier: identifier)
    return [
      "get { self[\(raw: key).self] }",
      "set { self[\(raw: key).self] = newValue }",
    ]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let (binding, identifier) = property(declaration) else {
      context.diagnose(Diagnostic(node: Syntax(node), message: EntryMessage.notAVariable))
      return []
    }
    var liveValue: ExprSyntax?
    var previewValue: ExprSyntax?
    for argument in node.arguments?.as(LabeledExprListSyntax.self) ?? [] {
      switch argument.label?.text {
      case "liveValue": liveValue = argument.expression.trimmed
      case "previewValue": previewValue = argument.expression.trimmed
      default: break
      }
    }
    let testValue = binding.initializer?.value.trimmed
    guard testValue != nil || liveValue != nil else {
      context.diagnose(Diagnostic(node: Syntax(binding), message: EntryMessage.noValue))
      return []
    }
    var members: [String] = []
    let type = binding.typeAnnotation?.type.trimmedDescription
    if let type { members.append("typealias Value = \(type)") }
    func member(_ name: String, _ value: ExprSyntax?) {
      guard let value else { return }
      if let type {
        members.append("static var \(name): \(type) { \(value) }")
      } else {
        members.append("static let \(name) = \(value)")
      }
    }
    member("liveValue", liveValue ?? testValue)
    member("previewValue", previewValue)
    member("testValue", testValue)
    let key = keyName(node: node, identifier: identifier)
    // The key is as visible as the property when that is public or package (so other modules can
    // name it), else visible in the file.
    let access =
      declaration.as(VariableDeclSyntax.self)?.modifiers.first {
        [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
      }?.name.text ?? "fileprivate"
    let memberAccess = access == "fileprivate" ? "" : "\(access) "
    members = members.map { memberAccess + $0 }
    return [
      """
      \(raw: access) enum \(raw: key): Dependencies.DependencyKey {
      \(raw: members.joined(separator: "\n"))
      }
      """
    ]
  }

  private static func property(
    _ declaration: some DeclSyntaxProtocol
  ) -> (PatternBindingSyntax, String)? {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      variable.bindingSpecifier.tokenKind == .keyword(.var),
      let binding = variable.bindings.first,
      let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier
    else { return nil }
    return (binding, identifier.text.filter { $0 != "`" })
  }

  private static func keyName(node: AttributeSyntax, identifier: String) -> String {
    if let first = node.arguments?.as(LabeledExprListSyntax.self)?.first, first.label == nil,
      let literal = first.expression.as(StringLiteralExprSyntax.self),
      let name = literal.representedLiteralValue, !name.isEmpty
    {
      return name
    }
    return "__Key_\(identifier)"
  }
}

/// `@DependencyEntry`'s diagnostics.
enum EntryMessage: DiagnosticMessage {
  case notAVariable
  case noValue

  var message: String {
    switch self {
    case .notAVariable:
      return "'@DependencyEntry' applies to a 'var' in an extension of 'DependencyValues'"
    case .noValue:
      return """
        '@DependencyEntry' needs an initial value (the test value) or a 'liveValue:' argument
        """
    }
  }

  var diagnosticID: MessageID {
    switch self {
    case .notAVariable: MessageID(domain: "DependenciesMacros", id: "entryNotAVariable")
    case .noValue: MessageID(domain: "DependenciesMacros", id: "entryNoValue")
    }
  }

  var severity: DiagnosticSeverity { .error }
}
