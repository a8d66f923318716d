import SwiftSyntax

extension DeclGroupSyntax {
  /// `public ` or `package ` when the declaration has that access, so generated members that
  /// witness protocol requirements are visible where the type is; otherwise empty.
  var accessPrefix: String {
    for modifier in modifiers {
      switch modifier.name.tokenKind {
      case .keyword(.public): return "public "
      case .keyword(.package): return "package "
      default: continue
      }
    }
    return ""
  }

  /// The names of the types this declaration inherits from, as written.
  var inheritedTypeNames: [String] {
    inheritanceClause?.inheritedTypes.map { $0.type.trimmedDescription } ?? []
  }
}

extension AttributeListSyntax {
  /// The plain names of the attributes in this list (`CasePathable` for
  /// `@CasePaths.CasePathable`).
  var names: [String] {
    compactMap { element in
      guard case .attribute(let attribute) = element else { return nil }
      let name = attribute.attributeName.trimmedDescription
      return name.split(separator: ".").last.map(String.init)
    }
  }
}

extension VariableDeclSyntax {
  /// Whether this is a `static` or `class` property.
  var isStatic: Bool {
    modifiers.contains {
      $0.name.tokenKind == .keyword(.static) || $0.name.tokenKind == .keyword(.class)
    }
  }
}

extension String {
  /// Whether this names `Type` itself or `Module.Type`.
  func names(_ type: String, module: String) -> Bool {
    self == type || self == "\(module).\(type)"
  }
}
