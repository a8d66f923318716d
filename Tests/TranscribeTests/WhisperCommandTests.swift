import Foundation
import LiveTestSupport
import Testing

/// Other languages than English through the command-line tool, with the real Whisper model:
/// espeak-ng's German, French and Spanish from a file, standard input and the virtual
/// microphone; `--language auto` choosing the language and the engine; `--translate`; each
/// option error; the engine missing.
extension CommandTests {
  @Suite(
    .enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"))
  struct WhisperCommandTests {
    /// Leaves the engine to the command's own choice, as a user's shell does.
    static let defaultEngine = ["TRANSCRIBE_ENGINE": ""]

    static func expectWords(
      _ output: TranscribeProcess.Output, _ sentence: WhisperTestData.Sentence,
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      #expect(output.status == 0, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
      let words = WhisperTestData.words(output.stdout)
      for word in sentence.words {
        #expect(words.contains(word), "\(word) in \(words)", sourceLocation: sourceLocation)
      }
    }

    @Test(arguments: [WhisperTestData.german, WhisperTestData.french, WhisperTestData.spanish])
    func aFileInItsLanguageIsDecodedByWhisper(_ sentence: WhisperTestData.Sentence) async throws {
      let directory = try TemporaryDirectory()
      let file = try WhisperTestData.spoken(sentence, in: directory.url)
      let output = try await TranscribeProcess.run(
        ["-i", file.path, "--language", sentence.language], environment: Self.defaultEngine)
      Self.expectWords(output, sentence)
    }

    @Test func standardInputInGermanIsDecoded() async throws {
      let directory = try TemporaryDirectory()
      let file = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
      let output = try await TranscribeProcess.run(
        [file.path], environment: Self.defaultEngine,
        shellScript: #"exec "$0" -i - --language de < "$1""#)
      Self.expectWords(output, WhisperTestData.german)
    }

    @Test func autoDetectsTheLanguageAndSendsEnglishToTheDefaultEngine() async throws {
      let directory = try TemporaryDirectory()
      let spanish = try WhisperTestData.spoken(WhisperTestData.spanish, in: directory.url)
      let detected = try await TranscribeProcess.run(
        ["-i", spanish.path, "--language", "auto", "--format", "json"],
        environment: Self.defaultEngine)
      #expect(detected.status == 0, "stderr: \(detected.stderr)")
      // The final line names the language detected, beside the transcript.
      let final = detected.stdout.split(separator: "\n").compactMap { line in
        try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
      }.last { $0["type"] as? String == "final" }
      #expect(final?["language"] as? String == "es", "\(detected.stdout)")
      let words = WhisperTestData.words(final?["transcript"] as? String ?? "")
      for word in WhisperTestData.spanish.words {
        #expect(words.contains(word), "\(word) in \(words)")
      }
      // English is decoded by the English default (Moonshine's words and punctuation).
      if MoonshineTestData.isInstalled, SpeechTestData.isInstalled {
        let english = try await TranscribeProcess.run(
          ["-i", SpeechTestData.goForward.path, "--language", "auto"],
          environment: Self.defaultEngine)
        #expect(english.status == 0, "stderr: \(english.stderr)")
        #expect(english.stdout == "Go forward ten metres.\n")
      }
    }

    @Test func germanIsWrittenInEnglishWithTranslate() async throws {
      let directory = try TemporaryDirectory()
      let sentence = WhisperTestData.Sentence(
        language: "de", text: "Guten Morgen, ich trinke gerne Kaffee.", words: ["good", "morning"])
      let file = try WhisperTestData.spoken(sentence, in: directory.url)
      let output = try await TranscribeProcess.run(
        ["-i", file.path, "--language", "de", "--translate"], environment: Self.defaultEngine)
      Self.expectWords(output, sentence)
      #expect(!WhisperTestData.words(output.stdout).contains("morgen"), "\(output.stdout)")
    }

    @Test func englishStaysOnTheDefaultEngine() async throws {
      guard MoonshineTestData.isInstalled, SpeechTestData.isInstalled else { return }
      let output = try await TranscribeProcess.run(
        ["-i", SpeechTestData.goForward.path], environment: Self.defaultEngine)
      #expect(output.stdout == "Go forward ten metres.\n")
      // Whisper decodes English too when asked.
      let whisper = try await TranscribeProcess.run(
        ["-i", SpeechTestData.goForward.path, "--engine", "whisper"])
      #expect(whisper.status == 0, "stderr: \(whisper.stderr)")
      let words = WhisperTestData.words(whisper.stdout)
      #expect(words.contains("forward") && words.contains("go"), "\(words)")
    }

    @Test func theLanguagesAreListed() async throws {
      let output = try await TranscribeProcess.run(["--list-languages"])
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n")
      #expect(lines.first == "en    english")
      #expect(lines.contains("de    german"))
      #expect(lines.count >= 99)
    }

    @Test(arguments: [
      (["--language", "xx"], "unknown language 'xx'"),
      (["--language", " "], "--language needs a code"),
      (["--engine", "moonshine", "--language", "de"], "Moonshine hears English only"),
      (["--engine", "pocketsphinx", "--translate"], "pocketsphinx hears English only"),
      (["--grammar", "/dev/null", "--language", "fr"], "--grammar is for an English engine"),
    ])
    func eachOptionErrorIsOneLineWithTheUsageStatus(
      _ options: [String], _ message: String
    )
      async throws
    {
      let output = try await TranscribeProcess.run(
        ["-i", "/nonexistent.wav"] + options, environment: Self.defaultEngine)
      #expect(output.status == 64)
      #expect(output.stderr.contains(message), "stderr: \(output.stderr)")
    }

    @Test func theEngineMissingNamesTheInstallStep() async throws {
      let directory = try TemporaryDirectory()
      let file = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
      for environment in [
        ["TRANSCRIBE_WHISPER_LIBRARY": "/nonexistent/libwhisper.so.1"],
        ["TRANSCRIBE_WHISPER_MODEL": "/nonexistent/ggml-base.bin"],
      ] {
        let output = try await TranscribeProcess.run(
          ["-i", file.path, "--language", "de"], environment: environment)
        #expect(output.status == 5)
        #expect(output.stdout.isEmpty)
        #expect(
          output.stderr.contains("Whisper is not installed")
            && output.stderr.contains("install-dependencies.sh --whisper"),
          "stderr: \(output.stderr)")
        #expect(output.stderr.split(separator: "\n").count == 1, "stderr: \(output.stderr)")
      }
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func germanSpokenIntoTheMicrophoneIsTranscribed() async throws {
      let server = try VirtualMicrophone.start("cli-whisper")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url, silence: 1)
      let process = TranscribeProcess(
        ["--language", "de", "--duration", "10"], environment: server.environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe never started recording")
      try server.play(speech)
      let output = await process.wait(timeout: 60)
      Self.expectWords(output, WhisperTestData.german)
    }

    /// `transcribe dictate --language fr`: French said into the microphone is typed, accents
    /// and all (the stdout typer writes the keystrokes).
    @Test(
      .enabled(
        if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)"))
    func frenchIsDictated() async throws {
      let server = try VirtualMicrophone.start("dictate-whisper")
      defer { server.stop() }
      let directory = try TemporaryDirectory()
      let speech = try WhisperTestData.spoken(WhisperTestData.french, in: directory.url, silence: 1)
      var environment = server.environment
      environment["XDG_RUNTIME_DIR"] = directory.url.path
      let process = TranscribeProcess(
        ["dictate", "--language", "fr", "--typer", "stdout", "--duration", "12"],
        environment: environment)
      try process.start()
      #expect(try await server.waitForRecording(), "transcribe dictate never started recording")
      try server.play(speech)
      let output = await process.wait(timeout: 60)
      Self.expectWords(output, WhisperTestData.french)
    }
  }
}
