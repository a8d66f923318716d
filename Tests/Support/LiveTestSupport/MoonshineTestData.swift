import Foundation
import Moonshine

/// Moonshine as `./scripts/install-dependencies.sh` installs it, for the tests that run the
/// real model through the command-line tool and the live client.
public enum MoonshineTestData {
  /// Whether ONNX Runtime loads and the installed model's files are there: what `transcribe`
  /// itself checks before making Moonshine its default.
  public static let isInstalled = MoonshineRuntime.isInstalled()

  /// The installed model's directory (where `transcribe` finds it by itself).
  public static var modelDirectory: URL { MoonshineConfiguration.defaultModelDirectory }

  /// Whether the Moonshine tests run: when it is installed, and always on CI
  /// (`CI` set), where a missing install must fail them rather than skip them.
  public static let testsRun = isInstalled || ProcessInfo.processInfo.environment["CI"] != nil

  /// Why the tests are skipped otherwise.
  public static let requirement = "needs Moonshine (./scripts/install-dependencies.sh)"
}
