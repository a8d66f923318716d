import Foundation
import Testing

@testable import transcribe

/// The manual pages and shell completions `debian/rules` generates from the help:
/// they go to every machine, so they say nothing about the one they were made on, while
/// `--help` still does.
extension CommandTests {
  @Suite struct GeneratedDocumentsCommandTests {
    /// `text` with its words on one line: the help wraps at 80 columns.
    static func words(_ text: String) -> String {
      text.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    static let hostName = ProcessInfo.processInfo.hostName

    @Test func onlyTheDocumentRequestsCountAsGeneratingDocuments() {
      #expect(HelpContext.isGeneratingDocuments(["transcribe", "--experimental-dump-help"]))
      #expect(
        HelpContext.isGeneratingDocuments(["transcribe", "--generate-completion-script", "zsh"]))
      #expect(
        HelpContext.isGeneratingDocuments(["transcribe", "--generate-completion-script=fish"]))
      #expect(!HelpContext.isGeneratingDocuments(["transcribe", "--help"]))
      #expect(!HelpContext.isGeneratingDocuments(["transcribe", "serve", "--port", "0"]))
      // The program's own name is not an argument.
      #expect(!HelpContext.isGeneratingDocuments(["--experimental-dump-help"]))
    }

    @Test func theHelpShowsThisMachinesDefaults() async throws {
      let transcribe = Self.words(try await TranscribeProcess.run(["--help"], timeout: 30).stdout)
      #expect(transcribe.contains("(default: the number of cores, "), "\(transcribe)")
      let serve = Self.words(
        try await TranscribeProcess.run(["serve", "--help"], timeout: 30).stdout)
      #expect(serve.contains("three quarters of the open-file limit, "), "\(serve)")
      #expect(serve.contains("8 per core with Moonshine, "), "\(serve)")
      #expect(serve.contains("(default as flag: transcribe-\(Self.hostName))"), "\(serve)")
    }

    @Test(arguments: [
      ["--experimental-dump-help"], ["--generate-completion-script", "bash"],
      ["--generate-completion-script", "zsh"], ["--generate-completion-script=fish"],
    ])
    func generatedDocumentsLeaveThisMachineOut(arguments: [String]) async throws {
      let output = try await TranscribeProcess.run(arguments, timeout: 30)
      #expect(output.status == 0, "\(output.stderr)")
      #expect(!output.stdout.isEmpty)
      let text = Self.words(output.stdout)
      #expect(text.range(of: #"[0-9]+ here\b"#, options: .regularExpression) == nil, "\(text)")
      #expect(!text.contains("transcribe-\(Self.hostName)"), "\(text)")
      if arguments == ["--experimental-dump-help"] {
        #expect(text.contains("(default: the number of cores)"), "\(text)")
        #expect(text.contains("(default: 8 per core with Moonshine; 1 per core with"), "\(text)")
        #expect(text.contains("three quarters of the open-file limit)"), "\(text)")
        #expect(text.contains("transcribe-HOSTNAME"), "\(text)")
      }
    }
  }
}
