// swift-tools-version: 6.0
import PackageDescription

// The `@Dependency` benchmark built against swift-dependencies instead of this repository's
// `Dependencies`. A package of its own because both modules are named `Dependencies`. Its only
// source is a symbolic link to `../Sources/DependencyBenchmarks/main.swift`, so both sides run
// the same cases. Run both with `Benchmarks/dependencies/run.sh`.
let package = Package(
  name: "UpstreamDependencies",
  platforms: [.macOS(.v13)],
  dependencies: [
    .package(url: "https://github.com/pointfreeco/swift-dependencies", from: "1.17.1")
  ],
  targets: [
    .executableTarget(
      name: "UpstreamDependencyBenchmarks",
      dependencies: [
        .product(name: "Dependencies", package: "swift-dependencies")
      ]
    )
  ],
  swiftLanguageModes: [.v6]
)
