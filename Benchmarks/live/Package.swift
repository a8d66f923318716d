// swift-tools-version: 6.0
// A separate package, so benchmark code never slows the main package's `swift test`.
import PackageDescription

let package = Package(
  name: "live-benchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "transcribe", path: "../..")
  ],
  targets: [
    .executableTarget(
      name: "live-bench",
      dependencies: [
        .product(name: "SpeechClient", package: "transcribe"),
        .product(name: "SpeechClientLive", package: "transcribe"),
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
