import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DependencyEndpoint`: makes one closure property of a struct default to an unimplemented
/// closure, kept in a private `_name` peer that the property reads and writes.
///
/// It also adds a method taking the closure's named parameters as labels (or named `method:`).
/// Inside `@DependencyClient` it is optional: the client's initializer gives every endpoint
/// the same default.
public struct DependencyEndpointMacro: AccessorMacro, PeerMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingAccessorsOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [AccessorDeclSyntax] {
    guard let (_, name, _) = endpoint(declaration) else { return [] }
    return [
      "get { _\(raw: name) }",
      "set { _\(raw: name) = newValue }",
    ]
  }

  public static func expansion(
    of node: AttributeSyntax,
    providingPeersOf declaration: some DeclSyntaxProtocol,
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let (variable, name, function) = endpoint(declaration),
      let binding = variable.bindings.first,
      let type = binding.typeAnnotation?.type.trimmed
    else {
      context.diagnose(Diagnostic(node: Syntax(node), message: EndpointMessage.notAClosure))
      return []
    }
    let owner =
      context.lexicalContext.lazy.compactMap {
        $0.as(StructDeclSyntax.self)?.name.trimmedDescription
      }.first ?? "Self"
    let endpointName = "\(owner).\(name)"
    guard
      let defaultClosure = DependencyClientMacro.unimplementedClosure(
        function: function, initializer: binding.initializer?.value, endpoint: endpointName)
    else {
      context.diagnose(
        Diagnostic(
          node: Syntax(binding),
          message: ClientMessage.defaultRequired(
            endpoint: endpointName, result: function.returnClause.type.trimmedDescription)))
      return []
    }
    var methodName: String?
    for argument in node.arguments?.as(LabeledExprListSyntax.self) ?? []
    where argument.label?.text == "method" {
      methodName = argument.expression.as(StringLiteralExprSyntax.self)?.representedLiteralValue
    }
    var peers: [DeclSyntax] = [
      "private var _\(raw: name): \(type) = \(raw: defaultClosure)"
    ]
    if let method = DependencyClientMacro.labeledMethod(
      name: name, function: function,
      access: DependencyClientMacro.accessModifier(of: variable),
      methodName: methodName.flatMap { $0.isEmpty ? nil : $0 })
    {
      peers.append(method)
    }
    return peers
  }

  private static func endpoint(
    _ declaration: some DeclSyntaxProtocol
  ) -> (VariableDeclSyntax, String, FunctionTypeSyntax)? {
    guard let variable = declaration.as(VariableDeclSyntax.self),
      variable.bindingSpecifier.tokenKind == .keyword(.var),
      let binding = variable.bindings.first,
      let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
      let type = binding.typeAnnotation?.type,
      let function = DependencyClientMacro.functionType(of: type)
    else { return nil }
    return (variable, identifier.text.filter { $0 != "`" }, function)
  }
}

/// `@DependencyEndpoint`'s diagnostics.
enum EndpointMessage: DiagnosticMessage {
  case notAClosure

  var message: String {
    "'@DependencyEndpoint' applies to a 'var' whose type is a closure"
  }

  var diagnosticID: MessageID {
    MessageID(domain: "DependenciesMacros", id: "endpointNotAClosure")
  }

  var severity: DiagnosticSeverity { .error }
}
