extension String {
  /// Every non-empty line indented by four spaces, to nest a dump in an issue message.
  @usableFromInline
  var indentedForIssue: String {
    split(separator: "\n", omittingEmptySubsequences: false)
      .map { $0.isEmpty ? "" : "    " + $0 }
      .joined(separator: "\n")
  }
}
