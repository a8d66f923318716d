import Testing

@testable import PocketSphinx

struct LoggedErrorTests {
  @Test func errorLinesSplitIntoSourceAndMessage() {
    let error = LoggedError(
      #"ERROR: "jsgf_parser.y", line 155: syntax error at line 3 current token '{'"#[...])
    #expect(
      error
        == LoggedError(source: "jsgf_parser.y", message: "syntax error at line 3 current token '{'")
    )
    #expect(error?.firstQuoted == "{")
  }

  @Test func otherLinesAreNotErrors() {
    #expect(LoggedError(#"INFO: "cmd_ln.c", line 1: Parsing command line:"#[...]) == nil)
    #expect(LoggedError("ERROR: no location here"[...])?.message == "no location here")
  }

  @Test func firstQuotedIsTheWordOfAMissingWordMessage() {
    let error = LoggedError(
      #"ERROR: "kws_search.c", line 528: Word 'flurbix' in phrase 'go flurbix' is missing in the dictionary"#[
        ...])
    #expect(error?.firstQuoted == "flurbix")
  }
}
