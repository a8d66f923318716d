import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// `@DependencyClient`: gives a struct of closure endpoints an initializer in which every endpoint
/// defaults to an unimplemented closure.
///
/// An unimplemented endpoint reports an issue naming `Client.endpoint` when called, then throws
/// (throwing endpoints), returns `nil` (optional results), returns nothing (`Void`) or runs the
/// default closure written on the property. A non-throwing endpoint with any other result has no
/// honest value to return, so it must be given a default closure; the macro says so.
public struct DependencyClientMacro: MemberMacro {
  public static func expansion(
    of node: AttributeSyntax,
    providingMembersOf declaration: some DeclGroupSyntax,
    conformingTo protocols: [TypeSyntax],
    in context: some MacroExpansionContext
  ) throws -> [DeclSyntax] {
    guard let structDecl = declaration.as(StructDeclSyntax.self) else {
      context.diagnose(
        Diagnostic(node: Syntax(node), message: ClientMessage.notAStruct))
      return []
    }
    let clientName = structDecl.name.trimmedDescription
    var parameters: [String] = []
    var assignments: [String] = []
    var lateAssignments: [String] = []
    var methods: [DeclSyntax] = []
    var failed = false

    for member in structDecl.memberBlock.members {
      guard let variable = member.decl.as(VariableDeclSyntax.self),
        !variable.modifiers.contains(where: {
          $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
        })
      else { continue }
      let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)
      for binding in variable.bindings {
        guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self)?.identifier,
          isStored(binding)
        else { continue }
        // A constant with a value, or a property without a written type, is not a parameter.
        if isLet && binding.initializer != nil { continue }
        guard let type = binding.typeAnnotation?.type.trimmed else { continue }
        let name = identifier.trimmedDescription
        let label = name
        let endpoint = "\(clientName).\(name.filter { $0 != "`" })"

        if let function = functionType(of: type) {
          guard
            let defaultClosure = unimplementedClosure(
              function: function, initializer: binding.initializer?.value, endpoint: endpoint)
          else {
            context.diagnose(
              Diagnostic(
                node: Syntax(binding),
                message: ClientMessage.defaultRequired(
                  endpoint: endpoint, result: function.returnClause.type.trimmedDescription)))
            failed = true
            continue
          }
          parameters.append("\(label): @escaping \(type) = \(defaultClosure)")
          // `@DependencyEndpoint` adds the labelled method itself.
          if !hasEndpointAttribute(variable),
            let method = labeledMethod(
              name: name, function: function, access: accessModifier(of: variable))
          {
            methods.append(method)
          }
        } else if let initializer = binding.initializer?.value {
          parameters.append("\(label): \(type) = \(initializer.trimmedDescription)")
        } else if type.is(OptionalTypeSyntax.self)
          || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
        {
          parameters.append("\(label): \(type) = nil")
        } else {
          parameters.append("\(label): \(type)")
        }
        // An endpoint marked `@DependencyEndpoint` is computed: set it once `self` is whole.
        if hasEndpointAttribute(variable) {
          lateAssignments.append("self.\(name) = \(name)")
        } else {
          assignments.append("self.\(name) = \(name)")
        }
      }
    }
    if failed { return [] }

    let access =
      structDecl.modifiers.first {
        [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
      }.map { "\($0.name.text) " } ?? ""
    let initializer: DeclSyntax = """
      \(raw: access)init(
      \(raw: parameters.joined(separator: ",\n"))
      ) {
      \(raw: (assignments + lateAssignments).joined(separator: "\n"))
      }
      """
    return [initializer] + methods
  }

  static func hasEndpointAttribute(_ variable: VariableDeclSyntax) -> Bool {
    variable.attributes.contains {
      $0.as(AttributeSyntax.self)?.attributeName.trimmedDescription == "DependencyEndpoint"
    }
  }

  static func accessModifier(of variable: VariableDeclSyntax) -> String {
    variable.modifiers.first {
      [.keyword(.public), .keyword(.package)].contains($0.name.tokenKind)
    }.map { "\($0.name.text) " } ?? ""
  }

  /// For an endpoint whose closure type names its parameters (`(_ id: Int) -> User`), a method
  /// that takes them as argument labels (`client.fetch(id: 1)`) and calls the closure.
  static func labeledMethod(
    name: String, function: FunctionTypeSyntax, access: String, methodName: String? = nil
  ) -> DeclSyntax? {
    guard methodName != nil || function.parameters.contains(where: { $0.secondName != nil })
    else { return nil }
    var parameters: [String] = []
    var arguments: [String] = []
    for (offset, parameter) in function.parameters.enumerated() {
      let label = parameter.secondName?.text ?? "_"
      parameters.append("\(label) p\(offset): \(parameter.type.trimmedDescription)")
      if let attributed = parameter.type.as(AttributedTypeSyntax.self),
        attributed.trimmedDescription.hasPrefix("inout ")
      {
        arguments.append("&p\(offset)")
      } else {
        arguments.append("p\(offset)")
      }
    }
    var call = "self.\(name)(\(arguments.joined(separator: ", ")))"
    if function.effectSpecifiers?.asyncSpecifier != nil { call = "await " + call }
    if function.effectSpecifiers?.throwsClause != nil { call = "try " + call }
    let effects = function.effectSpecifiers.map { " \($0.trimmedDescription)" } ?? ""
    return """
      \(raw: access)func \(raw: methodName ?? name)(\(raw: parameters.joined(separator: ", ")))\(raw: effects) \
      \(raw: function.returnClause.trimmedDescription) {
      \(raw: call)
      }
      """
  }

  /// Whether a binding stores a value (no `get`/`set`, only observers at most).
  private static func isStored(_ binding: PatternBindingSyntax) -> Bool {
    guard let accessorBlock = binding.accessorBlock else { return true }
    switch accessorBlock.accessors {
    case .getter:
      return false
    case .accessors(let accessors):
      return accessors.allSatisfy {
        [.keyword(.willSet), .keyword(.didSet)].contains($0.accessorSpecifier.tokenKind)
      }
    }
  }

  /// The function type of a property, looking through attributes and parentheses.
  static func functionType(of type: TypeSyntax) -> FunctionTypeSyntax? {
    if let function = type.as(FunctionTypeSyntax.self) { return function }
    if let attributed = type.as(AttributedTypeSyntax.self) {
      return functionType(of: attributed.baseType)
    }
    if let tuple = type.as(TupleTypeSyntax.self), tuple.elements.count == 1,
      let element = tuple.elements.first, element.firstName == nil
    {
      return functionType(of: element.type)
    }
    return nil
  }

  /// The closure an endpoint defaults to, or `nil` when there is no honest result to give.
  static func unimplementedClosure(
    function: FunctionTypeSyntax, initializer: ExprSyntax?, endpoint: String
  ) -> String? {
    let report = "Dependencies._reportUnimplementedEndpoint(\(literal(endpoint)))"
    if let closure = initializer?.as(ClosureExprSyntax.self) {
      var statements = closure.statements.map { $0.trimmedDescription }
      if statements.count == 1, let only = closure.statements.first,
        only.item.is(ExprSyntax.self), !isVoid(function.returnClause.type),
        !only.trimmedDescription.hasPrefix("fatalError(")
      {
        statements = ["return \(only.trimmedDescription)"]
      }
      // The closure already matches the endpoint's type (it compiles as the property's value),
      // so its signature — or its use of `$0` — is kept as written.
      let signature = closure.signature.map { "\($0.trimmedDescription) " } ?? ""
      return "{ \(signature)\n\(([report] + statements).joined(separator: "\n"))\n}"
    }
    if let initializer {
      // A default that is not a closure literal (a function name): call it after reporting.
      let arguments = (0..<function.parameters.count).map { "$\($0)" }.joined(separator: ", ")
      var call = "(\(initializer.trimmedDescription))(\(arguments))"
      if function.effectSpecifiers?.asyncSpecifier != nil { call = "await " + call }
      if function.effectSpecifiers?.throwsClause != nil { call = "try " + call }
      return "{\n\(report)\nreturn \(call)\n}"
    }
    let parameters =
      function.parameters.isEmpty ? "" : wildcards(count: function.parameters.count) + " in"
    let ending: String
    if function.effectSpecifiers?.throwsClause != nil {
      ending = "throw Dependencies.UnimplementedEndpoint(\(literal(endpoint)))"
    } else if isVoid(function.returnClause.type) {
      ending = ""
    } else if isOptional(function.returnClause.type) {
      ending = "return nil"
    } else {
      return nil
    }
    return "{ \(parameters)\n\(report)\n\(ending)\n}"
  }

  private static func wildcards(count: Int) -> String {
    Array(repeating: "_", count: count).joined(separator: ", ")
  }

  private static func isVoid(_ type: TypeSyntax) -> Bool {
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      return identifier.name.text == "Void"
    }
    if let member = type.as(MemberTypeSyntax.self) {
      return member.trimmedDescription == "Swift.Void"
    }
    if let tuple = type.as(TupleTypeSyntax.self) {
      return tuple.elements.isEmpty
    }
    return false
  }

  private static func isOptional(_ type: TypeSyntax) -> Bool {
    if type.is(OptionalTypeSyntax.self) || type.is(ImplicitlyUnwrappedOptionalTypeSyntax.self) {
      return true
    }
    if let identifier = type.as(IdentifierTypeSyntax.self) {
      return identifier.name.text == "Optional"
    }
    return false
  }

  private static func literal(_ text: String) -> String {
    var escaped = ""
    for character in text {
      if character == "\\" || character == "\"" { escaped.append("\\") }
      escaped.append(character)
    }
    return "\"\(escaped)\""
  }
}

/// The macro's diagnostics.
enum ClientMessage: DiagnosticMessage {
  case notAStruct
  case defaultRequired(endpoint: String, result: String)

  var message: String {
    switch self {
    case .notAStruct:
      return "'@DependencyClient' applies to a struct of closure endpoints"
    case .defaultRequired(let endpoint, let result):
      return """
        '\(endpoint)' neither throws nor returns 'Void' or an optional, so an unimplemented \
        version has nothing to return: give the property a default closure that returns any \
        '\(result)' (it is only used, after the test fails, when a test calls the endpoint \
        without overriding it), or make the endpoint 'throws'
        """
    }
  }

  var diagnosticID: MessageID {
    switch self {
    case .notAStruct: MessageID(domain: "DependenciesMacros", id: "notAStruct")
    case .defaultRequired: MessageID(domain: "DependenciesMacros", id: "defaultRequired")
    }
  }

  var severity: DiagnosticSeverity { .error }
}
