// swift-tools-version: 6.0
import PackageDescription

// Benchmarks live in their own package so that building or testing the main package never
// compiles them. Run them in release mode:
//
//   swift run -c release --package-path Benchmarks ArchitectureBenchmarks
//   swift run -c release --package-path Benchmarks DependencyBenchmarks
//   swift run -c release --package-path Benchmarks DictationMemoryBenchmarks
let package = Package(
  name: "Benchmarks",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(name: "transcribe", path: "..")
  ],
  targets: [
    .executableTarget(
      name: "ArchitectureBenchmarks",
      dependencies: [
        .product(name: "Architecture", package: "transcribe")
      ],
      // Export symbols so `Thread.callStackSymbols` can name the frames it counts.
      linkerSettings: [.unsafeFlags(["-Xlinker", "--export-dynamic"])]
    ),
    .executableTarget(
      name: "DependencyBenchmarks",
      dependencies: [
        .product(name: "Dependencies", package: "transcribe")
      ]
    ),
    .executableTarget(
      name: "SessionBenchmarks",
      dependencies: [
        .product(name: "Architecture", package: "transcribe"),
        .product(name: "Dependencies", package: "transcribe"),
        .product(name: "SpeechClient", package: "transcribe"),
        .product(name: "SpeechRecognitionFeature", package: "transcribe"),
      ]
    ),
    .executableTarget(
      name: "DictationMemoryBenchmarks",
      dependencies: [
        .product(name: "Architecture", package: "transcribe"),
        .product(name: "Dependencies", package: "transcribe"),
        .product(name: "DictationFeature", package: "transcribe"),
        .product(name: "KeyboardClient", package: "transcribe"),
        .product(name: "SpeechClient", package: "transcribe"),
        .product(name: "SpeechRecognitionFeature", package: "transcribe"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
