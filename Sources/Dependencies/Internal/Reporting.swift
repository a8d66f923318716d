import IssueReporting

/// Reports that a key with only a live value was read in a test.
func reportMissingTestValue<Key: TestDependencyKey>(_ key: Key.Type) {
  let name = DependencyValues.dependencyName(function: DependencyValues.currentName)
  let override = name.map { $0.hasPrefix("\\.") ? "'\($0.dropFirst(2))'" : "'\($0)'" }
  reportDependencyIssue(
    Key.self,
    name: name,
    problem: "has no test implementation, but was read from a test.",
    fix: """
      Tests must not reach live dependencies. To fix it, override \
      \(override ?? "the dependency") for this test (in 'withDependencies' \
      or a 'TestStore''s 'withDependencies' / 'dependencies'), or give \
      '\(typeName(Key.self))' a 'testValue' so every test gets a safe default.
      """)
}

/// Reports that a key with no live value (its live module is not linked) was read live.
func reportMissingLiveValue<Key: TestDependencyKey>(_ key: Key.Type) {
  reportDependencyIssue(
    Key.self,
    name: DependencyValues.dependencyName(function: DependencyValues.currentName),
    problem: "has no live implementation, but was read in the live context.",
    fix: """
      '\(typeName(Key.self))' conforms only to 'TestDependencyKey' here: its 'DependencyKey' \
      conformance (with 'liveValue') lives in a module that is not linked into this program. \
      Link the live module into the executable (add it to the target's dependencies), or \
      override the dependency with 'withDependencies'. Using its preview value instead.
      """)
}

/// Reports that `prepareDependencies` tried to set a default that was already read or prepared.
func reportAlreadyPrepared<Key: TestDependencyKey>(_ key: Key.Type, function: StaticString) {
  reportDependencyIssue(
    Key.self,
    name: DependencyValues.dependencyName(function: function),
    problem: "was already read or prepared, so 'prepareDependencies' cannot set it now.",
    fix: """
      Prepare each dependency once, before anything reads it (at the start of the program). \
      To change a dependency for part of the program, use 'withDependencies' instead.
      """)
}

/// Reports an issue about a dependency: who read it, its key and value types, and the fix, at
/// the reading `@Dependency`'s location when there is one.
private func reportDependencyIssue<Key: TestDependencyKey>(
  _ key: Key.Type, name: String?, problem: String, fix: String
) {
  let access = DependencyValues.currentAccess
  let subject =
    name.map { "@Dependency(\($0))" } ?? "A dependency of key '\(typeName(Key.self))'"
  var message = """
    \(subject) \(problem)

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
