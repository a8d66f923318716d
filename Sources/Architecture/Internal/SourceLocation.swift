/// A place in source code where an issue is reported: a `send` or `receive` line, or where an
/// operator such as `ifLet` was applied.
@usableFromInline
struct SourceLocation: Sendable {
  @usableFromInline var fileID: StaticString
  @usableFromInline var filePath: StaticString
  @usableFromInline var line: UInt
  @usableFromInline var column: UInt

  @usableFromInline
  init(fileID: StaticString, filePath: StaticString, line: UInt, column: UInt) {
    self.fileID = fileID
    self.filePath = filePath
    self.line = line
    self.column = column
  }
}
