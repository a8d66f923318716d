import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxBuilder
import SwiftSyntaxMacros

/// The members `@Reducer` generates for an enum of reducers: the `State` and `Action` enums and
/// the static `body`, each with a case per reducer case, keeping the enum's `#if` blocks.
enum EnumReducer {
  static func members(
    of enumDecl: EnumDeclSyntax, in context: some MacroExpansionContext
  ) -> [DeclSyntax] {
    let access = enumDecl.accessPrefix
    let items = CaseItem.items(in: enumDecl.memberBlock.members)
    let typeNames = enumDecl.memberBlock.members.compactMap {
      $0.decl.as(EnumDeclSyntax.self)?.name.text ?? $0.decl.as(TypeAliasDeclSyntax.self)?.name.text
        ?? $0.decl.as(StructDeclSyntax.self)?.name.text
    }
    var decls: [DeclSyntax] = []
    if !typeNames.contains("State") {
      let cases = CaseItem.render(items) {
        ReducerCase(element: $0, in: $1).stateCase(access: access)
      }
      // The conformances that the attached macros would add in extensions are written here, so
      // those macros add members only. swift-frontend 6.3.1 crashes (signal 11) on a file where
      // enough extensions come from macros attached to types that this expansion generates: six
      // enum reducers without cases, or three beside a `@Reducer` struct that one of them uses.
      decls.append(
        """
        @CasePaths.CasePathable
        @dynamicMemberLookup
        @Architecture.ObservableState
        \(raw: access)enum State: Architecture.CaseReducerState, Architecture.ObservableState, \
        Observation.Observable, CasePaths.CasePathable, CasePaths.CasePathIterable {
        \(raw: access)typealias StateReducer = \(raw: enumDecl.name.text)
        \(raw: cases)
        }
        """)
    }
    if !typeNames.contains("Action") {
      let cases = CaseItem.render(items) { ReducerCase(element: $0, in: $1).actionCase }
      decls.append(
        """
        @CasePaths.CasePathable
        @dynamicMemberLookup
        \(raw: access)enum Action: CasePaths.CasePathable, CasePaths.CasePathIterable {
        \(raw: cases)
        }
        """)
    }
    let scopes = CaseItem.render(items) { ReducerCase(element: $0, in: $1).scope }
    // A concrete type, named as `_Body` so that it is not inferred from `Reducer`'s `Never` default.
    let reducers =
      scopes.isEmpty
      ? "Architecture.EmptyReducer<Self.State, Self.Action>()"
      : "Architecture.CombineReducers {\n\(scopes)\n}"
    decls.append(
      "\(raw: access)typealias _Body = Architecture.Reduce<Self.State, Self.Action>")
    decls.append(
      """
      @Architecture.ReducerBuilder<Self.State, Self.Action>
      \(raw: access)static var body: Architecture.Reduce<Self.State, Self.Action> {
      Architecture.Reduce<Self.State, Self.Action>(
      \(raw: reducers)
      )
      }
      """)
    return decls
  }
}

/// A case of an enum, or an `#if` block of them.
indirect enum CaseItem {
  case element(EnumCaseElementSyntax, EnumCaseDeclSyntax)
  case ifConfig([(directive: String, items: [CaseItem])])

  /// The reducer cases among `members`, looking into `#if` blocks.
  static func items(in members: MemberBlockItemListSyntax) -> [CaseItem] {
    members.flatMap { member -> [CaseItem] in
      if let caseDecl = member.decl.as(EnumCaseDeclSyntax.self) {
        return caseDecl.elements.map { .element($0, caseDecl) }
      }
      if let ifConfig = member.decl.as(IfConfigDeclSyntax.self) {
        let clauses = ifConfig.clauses.map { clause -> (String, [CaseItem]) in
          let directive =
            clause.poundKeyword.text
            + (clause.condition.map { " \($0.trimmedDescription)" } ?? "")
          guard case .decls(let members) = clause.elements else { return (directive, []) }
          return (directive, items(in: members))
        }
        return [.ifConfig(clauses)]
      }
      return []
    }
  }

  /// `line` of each case, one a line, with the `#if` blocks around them; empty when no case
  /// gives a line.
  static func render(
    _ items: [CaseItem], line: (EnumCaseElementSyntax, EnumCaseDeclSyntax) -> String?
  ) -> String {
    items.compactMap { item -> String? in
      switch item {
      case .element(let element, let caseDecl):
        return line(element, caseDecl)
      case .ifConfig(let clauses):
        let rendered = clauses.map { ($0.directive, render($0.items, line: line)) }
        guard rendered.contains(where: { !$0.1.isEmpty }) else { return nil }
        return
          rendered
          .map { directive, body in body.isEmpty ? directive : "\(directive)\n\(body)" }
          .joined(separator: "\n") + "\n#endif"
      }
    }
    .joined(separator: "\n")
  }

  /// Calls `body` with every case, in `#if` blocks too, in order.
  static func forEach(
    _ items: [CaseItem], _ body: (EnumCaseElementSyntax, EnumCaseDeclSyntax) -> Void
  ) {
    for item in items {
      switch item {
      case .element(let element, let caseDecl):
        body(element, caseDecl)
      case .ifConfig(let clauses):
        for clause in clauses { forEach(clause.items, body) }
      }
    }
  }
}

/// One case of an enum reducer and what it becomes in `State`, `Action` and `body`.
struct ReducerCase {
  enum Kind {
    /// `case settings(Settings)`: a feature, run with `Scope`.
    case reducer(type: String, instance: String)
    /// `case alert(AlertState<Alert>)`: state without logic, dismissed by any of its actions.
    case ephemeral(stateType: String, actionType: String)
    /// `@ReducerCaseIgnored case banner(String)` or `case empty`: state only.
    case ignored(payload: String?)
  }

  let name: String
  let kind: Kind

  init(element: EnumCaseElementSyntax, in caseDecl: EnumCaseDeclSyntax) {
    self.name = element.name.text
    let marks = caseDecl.attributes.names
    let parameters = element.parameterClause?.parameters ?? []
    guard let parameter = parameters.first else {
      self.kind = .ignored(payload: nil)
      return
    }
    let payload = parameters.map { parameter in
      [parameter.firstName?.text, parameter.type.trimmedDescription]
        .compactMap { $0 }.joined(separator: ": ")
    }
    .joined(separator: ", ")
    if marks.contains("ReducerCaseIgnored") || parameters.count > 1 {
      self.kind = .ignored(payload: payload)
      return
    }
    let type = parameter.type.trimmedDescription
    let genericArgument = parameter.type.as(IdentifierTypeSyntax.self)?
      .genericArgumentClause?.arguments.first?.trimmedDescription
    let baseName = parameter.type.as(IdentifierTypeSyntax.self)?.name.text ?? ""
    if marks.contains("ReducerCaseEphemeral")
      || ["AlertState", "ConfirmationDialogState"].contains(baseName)
    {
      self.kind = .ephemeral(stateType: type, actionType: genericArgument ?? "\(type).Action")
      return
    }
    self.kind = .reducer(
      type: type, instance: parameter.defaultValue?.value.trimmedDescription ?? "\(type)()")
  }

  func stateCase(access: String) -> String {
    switch kind {
    case .reducer(let type, _):
      return "case \(name)(\(type).State)"
    case .ephemeral(let stateType, _):
      return "case \(name)(\(stateType))"
    case .ignored(let payload):
      return payload.map { "case \(name)(\($0))" } ?? "case \(name)"
    }
  }

  var actionCase: String? {
    switch kind {
    case .reducer(let type, _):
      return "case \(name)(\(type).Action)"
    case .ephemeral(_, let actionType):
      return "case \(name)(\(actionType))"
    case .ignored:
      return nil
    }
  }

  var scope: String? {
    guard case .reducer(_, let instance) = kind else { return nil }
    return """
      Architecture.Scope(state: \\.\(name), action: \\.\(name)) {
        \(instance)
      }
      """
  }
}
