import Foundation

/// What the help may say about the machine it runs on.
///
/// `--help` shows this machine's values (`the number of cores, 2 here`). The manual pages and
/// shell completions are generated from the same help (`--experimental-dump-help`,
/// `--generate-completion-script`) and shipped to every machine (the Debian package, `debian/rules`), so
/// for them the help leaves those values out: the documents then come out the same wherever
/// they are built.
enum HelpContext {
  /// Whether this process only writes the help out for a document.
  static let isGeneratingDocuments = isGeneratingDocuments(CommandLine.arguments)

  /// Whether `arguments` (the program's name first) ask for a document rather than a run.
  static func isGeneratingDocuments(_ arguments: [String]) -> Bool {
    arguments.dropFirst().contains { argument in
      argument == "--experimental-dump-help" || argument == "--generate-completion-script"
        || argument.hasPrefix("--generate-completion-script=")
    }
  }

  /// `text` in the help shown on this machine; nothing in a generated document.
  static func local(_ text: @autoclosure () -> String) -> String {
    isGeneratingDocuments ? "" : text()
  }
}
