import Foundation
import Recognition
import Testing

@testable import Moonshine

@Suite struct ModelFilesTests {
  @Test func aMissingDirectoryTheCallerNamedIsNotFound() {
    let path = "/nonexistent/moonshine/base-en"
    let configuration = MoonshineConfiguration(modelDirectory: URL(fileURLWithPath: path))
    #expect(throws: RecognitionFailure.modelFileNotFound(.modelDirectory, path: path)) {
      try configuration.validate()
    }
    #expect(throws: RecognitionFailure.modelFileNotFound(.modelDirectory, path: path)) {
      try MoonshineRecognizer(configuration: configuration)
    }
  }

  @Test func theDefaultDirectoryIsTheFirstThatExists() throws {
    let home = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: home) }
    let user = home.appendingPathComponent(".local/share/transcribe/moonshine/base-en")
    let named = home.appendingPathComponent("named")
    var environment = ["HOME": home.path]
    // Nothing installed here: the system-wide directory, as the place to install to.
    if !FileManager.default.fileExists(atPath: "/usr/local/share/transcribe/moonshine/base-en"),
      !FileManager.default.fileExists(atPath: "/usr/share/transcribe/moonshine/base-en")
    {
      #expect(
        MoonshineConfiguration.defaultModelDirectory(environment: environment).path
          == "/usr/local/share/transcribe/moonshine/base-en")
    }
    try FileManager.default.createDirectory(at: user, withIntermediateDirectories: true)
    #expect(
      MoonshineConfiguration.defaultModelDirectory(environment: environment).path == user.path)
    // $TRANSCRIBE_MOONSHINE_MODEL when it is set, even when it is not there (which is then
    // reported, rather than another model used).
    environment["TRANSCRIBE_MOONSHINE_MODEL"] = named.path
    #expect(
      MoonshineConfiguration.defaultModelDirectory(environment: environment).path == named.path)
    // $XDG_DATA_HOME replaces ~/.local/share.
    let data = home.appendingPathComponent("data")
    let xdg = data.appendingPathComponent("transcribe/moonshine/base-en")
    try FileManager.default.createDirectory(at: xdg, withIntermediateDirectories: true)
    #expect(
      MoonshineConfiguration.defaultModelDirectory(environment: [
        "HOME": home.path, "XDG_DATA_HOME": data.path,
      ]).path == xdg.path)
  }

  @Test func aMissingModelIsNamedWhereThisInstallationPutsIt() {
    #expect(
      InstalledData.ownPlace("moonshine/base-en", installation: .debianPackage).path
        == "/usr/share/transcribe/moonshine/base-en")
    #expect(
      InstalledData.ownPlace("silero-vad/silero_vad.onnx", installation: .checkout).path
        == "/usr/local/share/transcribe/silero-vad/silero_vad.onnx")
  }

  @Test func installedModelsAreLookedForUnderTheUserLocalAndPackageDirectories() {
    // The user's own first, then install-dependencies.sh's (as root), then the Debian
    // package's (debian/), for Moonshine's model and Silero VAD's alike.
    let environment = ["HOME": "/home/someone"]
    #expect(
      InstalledData.candidates("moonshine/base-en", environment: environment).map(\.path) == [
        "/home/someone/.local/share/transcribe/moonshine/base-en",
        "/usr/local/share/transcribe/moonshine/base-en",
        "/usr/share/transcribe/moonshine/base-en",
      ])
    #expect(
      InstalledData.candidates(
        "silero-vad/silero_vad.onnx", environment: ["HOME": "/h", "XDG_DATA_HOME": "/data"]
      ).map(\.path) == [
        "/data/transcribe/silero-vad/silero_vad.onnx",
        "/usr/local/share/transcribe/silero-vad/silero_vad.onnx",
        "/usr/share/transcribe/silero-vad/silero_vad.onnx",
      ])
  }

  @Test func onnxFilesArePreferredToOrtFiles() throws {
    let directory = try temporaryDirectory()
    defer { try? FileManager.default.removeItem(at: directory) }
    func create(_ name: String) {
      _ = FileManager.default.createFile(
        atPath: directory.appendingPathComponent(name).path, contents: Data([1]))
    }
    for name in ["encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin"] { create(name) }
    var files = try MoonshineModelFiles(directory: directory)
    #expect(files.encoder.lastPathComponent == "encoder_model.ort")
    #expect(files.decoder.lastPathComponent == "decoder_model_merged.ort")
    create("encoder_model.onnx")
    files = try MoonshineModelFiles(directory: directory)
    #expect(files.encoder.lastPathComponent == "encoder_model.onnx")
    #expect(files.decoder.lastPathComponent == "decoder_model_merged.ort")
    // An .ort file must carry ONNX Runtime's identifier.
    #expect(ModelFileCheck.problem(with: files.decoder) != nil)
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aMissingFileIsReported() throws {
    let directory = try modelCopy()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try MoonshineModelFiles(directory: directory)
    try FileManager.default.removeItem(at: files.decoder)
    let configuration = MoonshineConfiguration(modelDirectory: directory)
    #expect {
      try configuration.validate()
    } throws: { error in
      guard case let .modelCorrupt(message) = error as? RecognitionFailure else { return false }
      return message.contains("decoder_model_merged.onnx (or decoder_model_merged.ort) is missing")
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aTruncatedModelFileIsCorrupt() throws {
    let directory = try modelCopy()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try MoonshineModelFiles(directory: directory)
    let whole = try Data(contentsOf: files.encoder)
    try FileManager.default.removeItem(at: files.encoder)
    try whole.prefix(whole.count / 2).write(to: files.encoder)
    let configuration = MoonshineConfiguration(modelDirectory: directory)
    let isCorrupt: (any Error) -> Bool = { error in
      guard case let .modelCorrupt(message) = error as? RecognitionFailure else { return false }
      return message.contains(files.encoder.path)
    }
    // An .onnx file's truncation shows without loading it; an .ort file's only when loading.
    if files.encoder.pathExtension == "onnx" {
      #expect(performing: { try configuration.validate() }, throws: isCorrupt)
    }
    #expect(
      performing: { try MoonshineRecognizer(configuration: configuration) }, throws: isCorrupt)
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aFileThatIsNotAModelIsCorrupt() throws {
    let directory = try modelCopy()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try MoonshineModelFiles(directory: directory)
    try FileManager.default.removeItem(at: files.decoder)
    try Data("not a model at all\n".utf8).write(to: files.decoder)
    let configuration = MoonshineConfiguration(modelDirectory: directory)
    #expect {
      try configuration.validate()
    } throws: { error in
      guard case let .modelCorrupt(message) = error as? RecognitionFailure else { return false }
      return message.contains(files.decoder.path)
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aModelONNXRuntimeCannotLoadIsCorruptWithItsMessage() throws {
    let directory = try modelCopy()
    defer { try? FileManager.default.removeItem(at: directory) }
    var files = try MoonshineModelFiles(directory: directory)
    try FileManager.default.removeItem(at: files.encoder)
    files.encoder = directory.appendingPathComponent("encoder_model.onnx")
    // A well-formed ModelProto frame (ir_version 10, a graph field) around a broken graph.
    try Data([0x08, 0x0A, 0x3A, 0x03, 0xFF, 0xFF, 0xFF]).write(to: files.encoder)
    let configuration = MoonshineConfiguration(modelDirectory: directory)
    try configuration.validate()
    #expect {
      try MoonshineRecognizer(configuration: configuration)
    } throws: { error in
      guard case let .modelCorrupt(message) = error as? RecognitionFailure else { return false }
      return message.contains("ONNX Runtime could not load \(files.encoder.path): ")
        && message.count > "ONNX Runtime could not load \(files.encoder.path): ".count + 10
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func aCorruptTokenizerIsReported() throws {
    let directory = try modelCopy()
    defer { try? FileManager.default.removeItem(at: directory) }
    let files = try MoonshineModelFiles(directory: directory)
    let whole = try Data(contentsOf: files.tokenizer)
    try FileManager.default.removeItem(at: files.tokenizer)
    // Cut in the middle of a token.
    try whole.prefix(1001).write(to: files.tokenizer)
    let configuration = MoonshineConfiguration(modelDirectory: directory)
    #expect {
      try configuration.validate()
    } throws: { error in
      guard case let .modelCorrupt(message) = error as? RecognitionFailure else { return false }
      return message.contains(files.tokenizer.path) && message.contains("not a Moonshine tokenizer")
    }
  }

  @Test func theTokenizerReadsTwoByteLengths() throws {
    var bytes: [UInt8] = []
    for piece in ["<unk>", "<s>", "</s>"] {
      bytes += [UInt8(piece.utf8.count)] + Array(piece.utf8)
    }
    for byte in 0...255 { bytes += [1, UInt8(byte)] }
    let go = Array("\u{2581}go".utf8)
    bytes += [UInt8(go.count)] + go
    let long = [UInt8](repeating: UInt8(ascii: "a"), count: 300)
    bytes += [0x80 | UInt8(300 & 0x7F), UInt8(300 >> 7)] + long
    let pieces = try MoonshineTokenizer.parse(bytes)
    #expect(pieces.count == 261)
    #expect(pieces[259] == Array(" go".utf8))
    #expect(pieces[260] == long)
    #expect(throws: ProblemDescription.self) {
      try MoonshineTokenizer.parse(Array(bytes.dropLast()))
    }
  }

  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func theTokenizerSplitsWordsAtSpaces() throws {
    let files = try MoonshineModelFiles(directory: installedConfiguration.modelDirectory)
    let tokenizer = try MoonshineTokenizer(contentsOf: files.tokenizer)
    #expect(tokenizer.pieces.count == 32_000)
    func id(_ text: String) throws -> Int32 {
      Int32(try #require(tokenizer.pieces.firstIndex(of: Array(text.utf8))))
    }
    let tokens = [try id(" Go"), try id(" for"), try id("ward"), 2, 40_000, try id(".")]
    let words = tokenizer.words(of: tokens)
    #expect(words.map(\.text) == ["Go", "forward."])
    #expect(words.map(\.tokens) == [[0], [1, 2, 5]])
  }

  @Test func theTokenizerSortsTokensByWhatTheyWrite() {
    let texts = [
      " go", ".", ",", " \"", "?\"", "5", "\u{E9}", "\u{2014}", "\u{BF}", " ", ".)", ";\u{201D}",
      "\u{2026}", "a.", ":", "@", "[", "`", "{", "/", "Z9",
    ]
    let pieces = ["<unk>", "<s>", "</s>"].map { Array($0.utf8) } + texts.map { Array($0.utf8) }
    let classes = MoonshineTokenizer.classes(of: pieces)
    #expect(classes.count == 32_768)
    #expect(classes[2] == .endOfText)
    #expect(
      Array(classes[3..<pieces.count]) == [
        .word, .terminal, .continuing, .punctuation, .terminal, .word, .word, .continuing,
        .punctuation, .word, .terminal, .continuing, .terminal, .word, .continuing, .punctuation,
        .punctuation, .punctuation, .punctuation, .punctuation, .word,
      ])
  }

  /// The tokens' classes, read character by character as the rule says: the fast reading of
  /// ASCII letters must sort every token of the real vocabulary the same way.
  @Test(.enabled(if: isModelInstalled, modelRequirement))
  func theTokenizerSortsTheVocabularyAsItsRuleSays() throws {
    let files = try MoonshineModelFiles(directory: installedConfiguration.modelDirectory)
    let tokenizer = try MoonshineTokenizer(contentsOf: files.tokenizer)
    var mismatches: [Int] = []
    for (id, piece) in tokenizer.pieces.enumerated() where id >= 3 {
      let text = String(decoding: piece, as: UTF8.self).filter { !$0.isWhitespace }
      let isPunctuation = !text.isEmpty && !text.contains { $0.isLetter || $0.isNumber }
      if isPunctuation != (tokenizer.classes[id] != .word) { mismatches.append(id) }
    }
    #expect(mismatches.isEmpty)
    #expect(tokenizer.classes.filter { $0 == .terminal }.count > 10)
  }
}
