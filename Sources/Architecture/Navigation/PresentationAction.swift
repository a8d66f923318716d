import CasePaths

/// The actions of a presented child feature, as its parent receives them: the child's own actions,
/// and `dismiss`.
///
/// ```swift
/// enum Action {
///   case compose(PresentationAction<Compose.Action>)
/// }
///
/// await store.send(\.compose.sendButtonTapped)   // `.compose(.presented(.sendButtonTapped))`
/// await store.receive(\.compose.dismiss)
/// ```
///
/// Case key paths see through `presented`: `\.compose.sendButtonTapped` names the child's
/// action directly.
public enum PresentationAction<Action> {
  /// Dismisses the child: the presentation reducer sets its state to `nil` after the parent has
  /// seen this action, which cancels the child's effects. A child sends it for itself with
  /// ``DismissEffect`` (`@Dependency(\.dismiss)`).
  case dismiss

  /// An action of the presented child.
  indirect case presented(Action)
}

extension PresentationAction: CasePathable {
  public static var allCasePaths: AllCasePaths { AllCasePaths() }

  /// The case paths of a presentation action: `dismiss`, `presented`, and the child's own cases
  /// through `presented`.
  @dynamicMemberLookup
  public struct AllCasePaths: Sendable {
    /// The `dismiss` case.
    public var dismiss: AnyCasePath<PresentationAction, Void> {
      AnyCasePath(
        embed: { .dismiss },
        extract: { action in
          guard case .dismiss = action else { return nil }
          return ()
        })
    }

    /// The `presented` case.
    public var presented: AnyCasePath<PresentationAction, Action> {
      AnyCasePath(
        embed: { .presented($0) },
        extract: { action in
          guard case .presented(let child) = action else { return nil }
          return child
        })
    }

    /// A case of the child's actions, through `presented`: `\.compose.sendButtonTapped`.
    public subscript<Member>(
      dynamicMember keyPath: CaseKeyPath<Action, Member>
    ) -> AnyCasePath<PresentationAction, Member> where Action: CasePathable {
      let presented: CaseKeyPath<PresentationAction, Action> = \.presented
      return AnyCasePath(presented.appending(path: keyPath))
    }
  }
}

extension PresentationAction: Equatable where Action: Equatable {}
extension PresentationAction: Hashable where Action: Hashable {}
extension PresentationAction: Sendable where Action: Sendable {}
extension PresentationAction: Decodable where Action: Decodable {}
extension PresentationAction: Encodable where Action: Encodable {}
