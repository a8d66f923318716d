import Foundation

/// Moonshine as `./scripts/install-dependencies.sh` installs it, for the tests that run the
/// real model through the command-line tool and the live client.
public enum MoonshineTestData {
  /// Whether the converted model and the ONNX Runtime link are where the install script puts
  /// them (as root, or for this user).
  public static let isInstalled: Bool = {
    let home = FileManager.default.homeDirectoryForCurrentUser
    let environment = ProcessInfo.processInfo.environment
    let dataHome =
      environment["XDG_DATA_HOME"].map { URL(fileURLWithPath: $0) }
      ?? home.appendingPathComponent(".local/share")
    let models = [
      dataHome.appendingPathComponent("transcribe/moonshine/base-en"),
      URL(fileURLWithPath: "/usr/local/share/transcribe/moonshine/base-en"),
    ]
    let runtimes = [
      home.appendingPathComponent(".local/lib/transcribe/libonnxruntime.so.1"),
      URL(fileURLWithPath: "/usr/local/lib/transcribe/libonnxruntime.so.1"),
    ]
    let fileManager = FileManager.default
    return models.contains {
      fileManager.fileExists(atPath: $0.appendingPathComponent("tokenizer.bin").path)
    } && runtimes.contains { fileManager.fileExists(atPath: $0.path) }
  }()

  /// Whether the Moonshine tests run: when it is installed, and always on CI
  /// (`CI` set), where a missing install must fail them rather than skip them.
  public static let testsRun = isInstalled || ProcessInfo.processInfo.environment["CI"] != nil

  /// Why the tests are skipped otherwise.
  public static let requirement = "needs Moonshine (./scripts/install-dependencies.sh)"
}
