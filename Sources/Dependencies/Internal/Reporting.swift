import IssueReporting

/// Reports that a key with only a live value was read in a test.
func reportMissingTestValue<Key: TestDependencyKey>(_ key: Key.Type) {
  let accessName = DependencyValues.currentAccess?.name
  let propertyName = accessName.flatMap { $0.hasPrefix("\\.") ? String($0.dropFirst(2)) : nil }
  reportDependencyIssue(
    Key.self,
    problem: "has no test implementation, but was read from a test.",
    fix: """
      Tests must not reach live dependencies. To fix it, override \
      \(propertyName.map { "'\($0)'" } ?? "the dependency") for this test (in 'withDependencies' \
      or a 'TestStore''s 'withDependencies' / 'dependencies'), or give \
      '\(typeName(Key.self))' a 'testValue' so every test gets a safe default.
      """)
}

/// Reports that a key with no live value (its live module is not linked) was read live.
func reportMissingLiveValue<Key: TestDependencyKey>(_ key: Key.Type) {
  reportDependencyIssue(
    Key.self,
    problem: "has no live implementation, but was read in the live context.",
    fix: """
      '\(typeName(Key.self))' conforms only to 'TestDependencyKey' here: its 'DependencyKey' \
      conformance (with 'liveValue') lives in a module that is not linked into this program. \
      Link the live module into the executable (add it to the target's dependencies), or \
      override the dependency with 'withDependencies'. Using its preview value instead.
      """)
}

/// Reports an issue about a dependency: who read it, its key and value types, and the fix, at
/// the reading `@Dependency`'s location when there is one.
private func reportDependencyIssue<Key: TestDependencyKey>(
  _ key: Key.Type, problem: String, fix: String
) {
  let access = DependencyValues.currentAccess
  let name =
    access.map { "@Dependency(\($0.name))" } ?? "A dependency of key '\(typeName(Key.self))'"
  var message = """
    \(name) \(problem)

      Key:   \(typeName(Key.self))
      Value: \(typeName(Key.Value.self))
    """
  if let access {
    message += "\n  Read at: \(access.fileID):\(access.line)"
  }
  message += "\n\n" + fix
  if let access {
    reportIssue(
      message, fileID: access.fileID, filePath: access.filePath, line: access.line,
      column: access.column)
  } else {
    reportIssue(message)
  }
}

/// A type's name with its module, e.g. `SpeechClient.SpeechClient`.
func typeName(_ type: Any.Type) -> String {
  String(reflecting: type)
}
