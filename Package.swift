// swift-tools-version: 6.2
import CompilerPluginSupport
import PackageDescription

/// What each macro target (`ArchitectureMacros`, `DependenciesMacros`) imports from swift-syntax.
let swiftSyntaxForMacros: [Target.Dependency] = [
  .product(name: "SwiftCompilerPlugin", package: "swift-syntax"),
  .product(name: "SwiftDiagnostics", package: "swift-syntax"),
  .product(name: "SwiftSyntax", package: "swift-syntax"),
  .product(name: "SwiftSyntaxBuilder", package: "swift-syntax"),
  .product(name: "SwiftSyntaxMacros", package: "swift-syntax"),
]

/// Where `scripts/install-dependencies.sh --whisper` puts whisper.h: under `~/.local` for a user,
/// `/usr/local` as root. Directories that are not there are ignored.
let whisperHeaderSearchPaths: [String] = {
  var directories = ["/usr/local/include/transcribe/whisper"]
  if let home = Context.environment["HOME"] {
    directories.insert("\(home)/.local/include/transcribe/whisper", at: 0)
  }
  return directories.map { "-I\($0)" }
}()

let package = Package(
  name: "transcribe",
  // Task executors and `SendableMetatype` (Swift 6.2's standard library) need macOS 15.
  platforms: [.macOS(.v15)],
  products: [
    .library(name: "Dependencies", targets: ["Dependencies"]),
    .library(name: "DependenciesTestSupport", targets: ["DependenciesTestSupport"]),
    .library(name: "Architecture", targets: ["Architecture"]),
    .library(name: "SpeechClient", targets: ["SpeechClient"]),
    .library(name: "Recognition", targets: ["Recognition"]),
    .library(name: "AudioInput", targets: ["AudioInput"]),
    .library(name: "PocketSphinx", targets: ["PocketSphinx"]),
    .library(name: "Moonshine", targets: ["Moonshine"]),
    .library(name: "Whisper", targets: ["Whisper"]),
    .library(name: "SpeechClientLive", targets: ["SpeechClientLive"]),
    .library(name: "SpeechRecognitionFeature", targets: ["SpeechRecognitionFeature"]),
    .library(name: "KeyboardClient", targets: ["KeyboardClient"]),
    .library(name: "KeyboardClientLive", targets: ["KeyboardClientLive"]),
    .library(name: "DictationFeature", targets: ["DictationFeature"]),
    .library(name: "TranscribeServer", targets: ["TranscribeServer"]),
    .executable(name: "transcribe", targets: ["transcribe"]),
  ],
  dependencies: [
    .package(url: "https://github.com/apple/swift-argument-parser", from: "1.8.2"),
    .package(url: "https://github.com/pointfreeco/swift-case-paths", from: "1.10.0"),
    .package(url: "https://github.com/pointfreeco/swift-clocks", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/swift-concurrency-extras", from: "1.4.3"),
    .package(url: "https://github.com/pointfreeco/swift-custom-dump", from: "1.7.3"),
    .package(url: "https://github.com/pointfreeco/swift-identified-collections", from: "1.1.1"),
    .package(url: "https://github.com/pointfreeco/xctest-dynamic-overlay", from: "1.13.1"),
    .package(url: "https://github.com/swiftlang/swift-syntax", "600.0.1"..<"604.0.0"),
    // The server (`transcribe serve`).
    .package(url: "https://github.com/apple/swift-log", from: "1.16.2"),
    .package(url: "https://github.com/apple/swift-metrics", from: "2.13.0"),
    .package(url: "https://github.com/hummingbird-project/hummingbird", from: "2.28.1"),
    .package(url: "https://github.com/hummingbird-project/hummingbird-websocket", from: "2.8.1"),
    .package(url: "https://github.com/swift-server/swift-prometheus", from: "2.4.1"),
    .package(url: "https://github.com/swift-server/swift-service-lifecycle", from: "2.13.0"),
    .package(url: "https://github.com/vapor/multipart-kit", from: "4.7.1"),
    .package(url: "https://github.com/apple/swift-nio", from: "2.101.3"),
    .package(url: "https://github.com/apple/swift-nio-extras", from: "1.35.2"),
  ],
  targets: [
    // MARK: Dependencies
    .target(
      name: "Dependencies",
      dependencies: [
        "DependenciesMacros",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .macro(
      name: "DependenciesMacros",
      dependencies: swiftSyntaxForMacros
    ),
    // Swift Testing traits (`.dependencies`, `.dependency(_:_:)`): a separate product so code
    // that is not a test never links Testing.
    .target(
      name: "DependenciesTestSupport",
      dependencies: ["Dependencies"]
    ),
    .testTarget(
      name: "DependenciesTests",
      dependencies: [
        "Dependencies",
        "DependenciesTestSupport",
        "DependenciesTestSupportInterface",
        "DependenciesTestSupportLive",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Two tiny modules that model the interface/live split, so the tests can check that a live
    // value declared in another module is found at run time (and that a missing one is reported).
    .target(
      name: "DependenciesTestSupportInterface",
      dependencies: ["Dependencies"],
      path: "Tests/Support/DependenciesTestSupportInterface"
    ),
    .target(
      name: "DependenciesTestSupportLive",
      dependencies: ["Dependencies", "DependenciesTestSupportInterface"],
      path: "Tests/Support/DependenciesTestSupportLive"
    ),

    // MARK: Architecture
    .target(
      name: "Architecture",
      dependencies: [
        "ArchitectureMacros",
        "Dependencies",
        .product(name: "CasePaths", package: "swift-case-paths"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "CustomDump", package: "swift-custom-dump"),
        .product(name: "IdentifiedCollections", package: "swift-identified-collections"),
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .macro(
      name: "ArchitectureMacros",
      dependencies: swiftSyntaxForMacros
    ),
    .testTarget(
      name: "ArchitectureTests",
      dependencies: [
        "Architecture",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    // MARK: Speech
    .target(
      name: "SpeechClient",
      dependencies: [
        "Dependencies",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    .testTarget(
      name: "SpeechClientTests",
      dependencies: [
        "SpeechClient",
        "Dependencies",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .systemLibrary(
      name: "CPocketSphinx",
      pkgConfig: "pocketsphinx",
      providers: [.apt(["libpocketsphinx-dev", "pocketsphinx-en-us"])]
    ),
    .systemLibrary(
      name: "CPulseAudio",
      pkgConfig: "libpulse-simple",
      providers: [.apt(["libpulse-dev"])]
    ),
    .systemLibrary(
      name: "CSndFile",
      pkgConfig: "sndfile",
      providers: [.apt(["libsndfile1-dev"])]
    ),
    .systemLibrary(
      name: "CSampleRate",
      pkgConfig: "samplerate",
      providers: [.apt(["libsamplerate0-dev"])]
    ),
    // glibc's malloc_trim: the server gives back memory decoding freed, Moonshine what loading
    // its model freed, a file's decoder what each piece freed.
    .systemLibrary(name: "CMalloc"),
    // pidfd_open and pidfd_send_signal, for signalling the typing tools safely.
    .systemLibrary(name: "CProcessControl"),
    // The live pipeline: audio input → an engine's recognizer → the client that wires them.
    // The engine-neutral recognition layer: the recognizer protocol, words and events, the
    // generic pool, the pause segmenter. Pure Swift; the engines conform to it.
    .target(
      name: "Recognition"
    ),
    .testTarget(
      name: "RecognitionTests",
      dependencies: [
        "Recognition",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "AudioInput",
      dependencies: [
        "CPulseAudio",
        "CSndFile",
        "CSampleRate",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]
    ),
    .testTarget(
      name: "AudioInputTests",
      dependencies: [
        "AudioInput",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "PocketSphinx",
      dependencies: [
        "Recognition",
        "CPocketSphinx",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]
    ),
    .testTarget(
      name: "PocketSphinxTests",
      dependencies: [
        "PocketSphinx",
        "Recognition",
        "Moonshine",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Moonshine base-en through ONNX Runtime's C API, which is loaded at run time (dlopen), so
    // building needs neither ONNX Runtime nor its header.
    .target(
      name: "Moonshine",
      dependencies: ["CMalloc", "Recognition"]
    ),
    .testTarget(
      name: "MoonshineTests",
      dependencies: [
        "Moonshine",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    // Whisper base (multilingual) through whisper.cpp's library, opened at run time (dlopen) by a
    // small C shim of our own. The shim is compiled against whisper.h where
    // `scripts/install-dependencies.sh --whisper` installs it; without it the build has no
    // Whisper engine and says so when asked for one.
    .target(
      name: "CWhisper",
      cSettings: [.unsafeFlags(whisperHeaderSearchPaths)]
    ),
    .target(
      name: "Whisper",
      dependencies: ["CWhisper", "Recognition", "Moonshine"]
    ),
    .testTarget(
      name: "WhisperTests",
      dependencies: [
        "Whisper",
        "Moonshine",
        "Recognition",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "SpeechClientLive",
      dependencies: [
        "CMalloc",
        "SpeechClient",
        "Dependencies",
        "AudioInput",
        "Recognition",
        "PocketSphinx",
        "Moonshine",
        "Whisper",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
      ]
    ),
    .testTarget(
      name: "SpeechClientLiveTests",
      dependencies: [
        "SpeechClientLive",
        "AudioInput",
        "PocketSphinx",
        "Recognition",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
    .target(
      name: "SpeechRecognitionFeature",
      dependencies: [
        "Architecture",
        "SpeechClient",
        .product(name: "CasePaths", package: "swift-case-paths"),
      ]
    ),
    .testTarget(
      name: "SpeechRecognitionFeatureTests",
      dependencies: [
        "SpeechRecognitionFeature",
        // Imported directly: declared, so the tests rebuild when their layouts change.
        "Architecture",
        "Dependencies",
        "SpeechClient",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    // MARK: Dictation
    // `transcribe dictate`: the `Dictation` feature types what `SpeechRecognition` hears through
    // the keyboard client's interface; only the executable links the live typers.
    .target(
      name: "KeyboardClient",
      dependencies: [
        "Dependencies",
        .product(name: "IssueReporting", package: "xctest-dynamic-overlay"),
      ]
    ),
    // The typers: wtype, xdotool (with xmodmap), ydotool, run as child processes (no shell, no
    // C libraries), each call bounded by a deadline.
    .target(
      name: "KeyboardClientLive",
      dependencies: ["KeyboardClient", "Dependencies", "CProcessControl"]
    ),
    .testTarget(
      name: "KeyboardClientLiveTests",
      dependencies: [
        "KeyboardClientLive",
        "KeyboardClient",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    .target(
      name: "DictationFeature",
      dependencies: [
        "Architecture",
        "KeyboardClient",
        "SpeechClient",
        "SpeechRecognitionFeature",
        .product(name: "CasePaths", package: "swift-case-paths"),
      ]
    ),
    .testTarget(
      name: "DictationFeatureTests",
      dependencies: [
        "DictationFeature",
        "Architecture",
        "Dependencies",
        "KeyboardClient",
        "SpeechClient",
        "SpeechRecognitionFeature",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    // Transcript file formats shared by the CLI and the server (subtitle cues, SRT, WebVTT).
    .target(
      name: "TranscriptFormats",
      dependencies: ["SpeechClient"]
    ),
    .testTarget(
      name: "TranscriptFormatsTests",
      dependencies: [
        "TranscriptFormats",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    // Runs a private PulseAudio server with a virtual microphone for the live-path tests.
    .target(
      name: "LiveTestSupport",
      dependencies: ["Moonshine", "Whisper"],
      path: "Tests/Support/LiveTestSupport"
    ),

    // MARK: The server
    // `transcribe serve`: every WebSocket connection or upload runs the `SpeechRecognition` store
    // with a client the executable provides, so this module never links the live client.
    .target(
      name: "TranscribeServer",
      dependencies: [
        "Architecture",
        "CMalloc",
        "Dependencies",
        "SpeechClient",
        "SpeechRecognitionFeature",
        .product(name: "ConcurrencyExtras", package: "swift-concurrency-extras"),
        .product(name: "Hummingbird", package: "hummingbird"),
        .product(name: "HummingbirdWebSocket", package: "hummingbird-websocket"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "Metrics", package: "swift-metrics"),
        .product(name: "MultipartKit", package: "multipart-kit"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOHTTP1", package: "swift-nio"),
        .product(name: "NIOHTTPTypes", package: "swift-nio-extras"),
        .product(name: "NIOPosix", package: "swift-nio"),
        .product(name: "NIOWebSocket", package: "swift-nio"),
        .product(name: "Prometheus", package: "swift-prometheus"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        "TranscriptFormats",
      ],
      // The live-captions page, compiled into the binary as byte arrays (`PackageResources`), so
      // the server needs no files beside it. `.eslintrc.json` there is the scripts' lint config.
      resources: [
        .embedInCode("Resources/captions.html"),
        .embedInCode("Resources/captions.js"),
        .embedInCode("Resources/captions-worklet.js"),
      ]
    ),
    .testTarget(
      name: "TranscribeServerTests",
      dependencies: [
        "TranscribeServer",
        // Imported directly: declared, so the tests rebuild when their layouts change.
        "Architecture",
        "Dependencies",
        "SpeechClient",
        "SpeechRecognitionFeature",
        "TranscriptFormats",
        .product(name: "Clocks", package: "swift-clocks"),
        .product(name: "HummingbirdTesting", package: "hummingbird"),
        .product(name: "HummingbirdWSTesting", package: "hummingbird-websocket"),
        .product(name: "HummingbirdWSClient", package: "hummingbird-websocket"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),

    // MARK: The command-line tool
    .executableTarget(
      name: "transcribe",
      dependencies: [
        "SpeechRecognitionFeature",
        "DictationFeature",
        "KeyboardClient",
        "KeyboardClientLive",
        "SpeechClientLive",
        "AudioInput",
        "Recognition",
        "TranscribeServer",
        .product(name: "ArgumentParser", package: "swift-argument-parser"),
        .product(name: "Logging", package: "swift-log"),
        .product(name: "ServiceLifecycle", package: "swift-service-lifecycle"),
        .product(name: "UnixSignals", package: "swift-service-lifecycle"),
        .product(name: "NIOCore", package: "swift-nio"),
        .product(name: "NIOPosix", package: "swift-nio"),
        "TranscriptFormats",
      ]
    ),
    .testTarget(
      name: "TranscribeTests",
      dependencies: [
        "transcribe",
        "DictationFeature",
        // Imported directly: declared, so the tests rebuild when their layouts change.
        "Moonshine",
        "SpeechClient",
        "SpeechClientLive",
        "SpeechRecognitionFeature",
        "TranscribeServer",
        "TranscriptFormats",
        "LiveTestSupport",
        .product(name: "IssueReportingTestSupport", package: "xctest-dynamic-overlay"),
      ]
    ),
  ],
  swiftLanguageModes: [.v6]
)
