import Foundation

/// How this `transcribe` came onto the machine, so that a message about a missing model or
/// library names the fix that works here: the Debian packages for the packaged command, the
/// repository's installer for a build from a checkout.
public enum Installation: Sendable, Equatable {
  /// `/usr/bin/transcribe`, from the `transcribe` Debian package.
  case debianPackage
  /// A build from the repository (`swift build`), wherever the binary was put.
  case checkout

  /// Where the Debian package installs the command.
  public static let packagedExecutable = "/usr/bin/transcribe"

  /// This process's installation, told by the path of its executable.
  public static let current = Installation(
    executable: try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe"))

  /// The installation a binary at `executable` (a path with its links resolved) belongs to.
  public init(executable: String?) {
    self = executable == Self.packagedExecutable ? .debianPackage : .checkout
  }

  /// How to get back what the `transcribe` package carries (Moonshine's model, Silero VAD, ONNX
  /// Runtime), as a clause that goes after a semicolon: "…; run `./scripts/…`".
  public var reinstallEnglishEngine: String {
    switch self {
    case .debianPackage:
      "reinstall the transcribe package (`sudo apt install --reinstall transcribe`)"
    case .checkout: "run `./scripts/install-dependencies.sh`"
    }
  }

  /// How to get Whisper, the engine of other languages, as a clause like
  /// ``reinstallEnglishEngine``.
  public var installWhisper: String {
    switch self {
    case .debianPackage:
      "install the transcribe-whisper package (`sudo apt install transcribe-whisper`)"
    case .checkout:
      "install it with `./scripts/install-dependencies.sh --whisper` and build transcribe again"
    }
  }
}
