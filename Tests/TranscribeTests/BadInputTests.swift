import Foundation
import LiveTestSupport
import Testing

/// The binary against input a hostile user would try: each case ends with one line on stderr
/// that names the problem and the fix, its own exit status, and nothing on stdout.
extension CommandTests {
  @Suite(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
  struct BadInputTests {
    let goForward = SpeechTestData.goForward.path

    /// Checks the common shape of a failure: status, nothing on stdout, one line on stderr.
    func expectOneLineFailure(
      _ output: TranscribeProcess.Output, status: Int32,
      sourceLocation: SourceLocation = #_sourceLocation
    ) {
      #expect(output.status == status, "stderr: \(output.stderr)", sourceLocation: sourceLocation)
      #expect(output.stdout.isEmpty, "stdout: \(output.stdout)", sourceLocation: sourceLocation)
      #expect(
        output.stderr.split(separator: "\n").count == 1, "stderr: \(output.stderr)",
        sourceLocation: sourceLocation)
      #expect(
        output.stderr.hasPrefix("transcribe: error: "), "stderr: \(output.stderr)",
        sourceLocation: sourceLocation)
    }

    @Test func malformedGrammarPrintsNothingOnStdoutAndTheGrammarsErrorWithItsLine()
      async throws
    {
      let directory = try TemporaryDirectory()
      let grammar = directory.url.appendingPathComponent("broken.gram")
      // Not a grammar at all: sphinxbase's lexer echoes such text to stdout unless stopped.
      try "this is not a grammar at all\n".write(to: grammar, atomically: true, encoding: .utf8)
      let output = try await TranscribeProcess.run([
        "--input", goForward, "--grammar", grammar.path,
      ])
      expectOneLineFailure(output, status: 10)
      #expect(output.stderr.contains("'\(grammar.path)'"))
      #expect(output.stderr.contains("syntax error at line 1"))
      #expect(!output.stderr.contains("Reinstall"))
    }

    @Test(arguments: [
      (
        ["--jobs", "-1"],
        "--jobs must be a whole number of decoders, at least 1 (got -1, a negative"
      ),
      (
        ["--silence", "1e6"], "--silence must be a number of seconds (e.g. 0.8): 1000000 is longer"
      ),
      (
        ["--max-utterance", "-2"],
        "--max-utterance must be a number of seconds (e.g. 20): -2 is negative"
      ),
      (["-i", "-", "-i", "-"], "standard input (-i -) can be read only once"),
      (
        ["serve", "--port", "-1"], "--port must be between 0 and 65535 (got -1, a negative number)"
      ),
      (
        ["serve", "--max-sessions", "-3"],
        "--max-sessions must be a whole number of sessions, at least 1 (got -3)"
      ),
    ])
    func aNumberOrInputThatCannotBeUsedIsAUsageErrorSayingWhy(
      arguments: [String], message: String
    ) async throws {
      let output = try await TranscribeProcess.run(arguments, timeout: 30)
      #expect(output.status == 64, "stderr: \(output.stderr)")
      #expect(output.stderr.contains(message), "stderr: \(output.stderr)")
    }

    @Test(arguments: ["--dict", "--grammar"])
    func aDeviceAsADictionaryOrGrammarIsNotARegularFile(option: String) async throws {
      let output = try await TranscribeProcess.run(
        ["--input", goForward, option, "/dev/zero"], timeout: 30)
      expectOneLineFailure(output, status: 10)
      #expect(output.stderr.contains("'/dev/zero'"))
      #expect(output.stderr.contains("not a regular file"))
    }

    @Test func keyphraseWithAWordNotInTheDictionaryNamesTheWord() async throws {
      let output = try await TranscribeProcess.run([
        "--input", goForward, "--keyphrase", "go flurbix",
      ])
      expectOneLineFailure(output, status: 10)
      #expect(output.stderr.contains("'flurbix'"))
      #expect(output.stderr.contains("--dict"))
    }

    @Test(arguments: [100, 500, 2000])
    func aLongKeyphraseWithAnUnknownWordNamesItAtAnyLength(words: Int) async throws {
      let phrase = Array(repeating: "forward", count: words).joined(separator: " ") + " flurbix"
      let output = try await TranscribeProcess.run([
        "--input", goForward, "--keyphrase", phrase,
      ])
      expectOneLineFailure(output, status: 10)
      #expect(output.stderr.contains("'flurbix'"))
    }

    @Test func junkDictionaryNamesTheFile() async throws {
      let directory = try TemporaryDirectory()
      let dictionary = directory.url.appendingPathComponent("junk.dict")
      try "hello world junk\nfoo bar\n".write(to: dictionary, atomically: true, encoding: .utf8)
      let output = try await TranscribeProcess.run([
        "--input", goForward, "--dict", dictionary.path,
      ])
      expectOneLineFailure(output, status: 10)
      #expect(output.stderr.contains("'\(dictionary.path)'"))
    }

    @Test(arguments: [["--grammar", "cards"], ["--keyphrase", "forward"]])
    func acousticModelIsUsedWithAGrammarOrKeyphrase(search: [String]) async throws {
      var arguments = search
      if arguments[0] == "--grammar" {
        arguments[1] = SpeechTestData.directory.appendingPathComponent("cards/cards.gram").path
      }
      let output = try await TranscribeProcess.run(
        ["--input", goForward, "--hmm", "/nonexistent/hmm"] + arguments)
      expectOneLineFailure(output, status: 5)
      #expect(output.stderr.contains("'/nonexistent/hmm'"))
      #expect(output.stderr.contains("--hmm"))
    }

    @Test(arguments: ["--grammar", "--lm", "--dict", "--hmm"])
    func missingModelFileIsNamedWithoutAnInstallHint(option: String) async throws {
      let missing = "/nonexistent/model-file"
      let output = try await TranscribeProcess.run(["--input", goForward, option, missing])
      expectOneLineFailure(output, status: 5)
      #expect(output.stderr.contains("'\(missing)'"))
      #expect(output.stderr.contains(option))
      #expect(!output.stderr.contains("apt-get"))
    }

    @Test(
      .enabled(if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)")
    ) func unknownDeviceIsNamedWithTheAvailableSources() async throws {
      let server = try VirtualMicrophone.start("bad-device")
      defer { server.stop() }
      let output = try await TranscribeProcess.run(
        ["--device", "nonexistent", "--duration", "2"], environment: server.environment)
      expectOneLineFailure(output, status: 3)
      #expect(output.stderr.contains("'nonexistent'"))
      #expect(output.stderr.contains("virtual_mic"))
      #expect(!output.stderr.contains("does not exist'"))
    }

    @Test func directoryAsInputIsADirectory() async throws {
      let directory = try TemporaryDirectory()
      let output = try await TranscribeProcess.run(["--input", directory.url.path])
      expectOneLineFailure(output, status: 6)
      #expect(output.stderr.contains("'\(directory.url.path)'"))
      #expect(output.stderr.contains("is a directory"))
    }

    @Test(arguments: ["tcp:127.0.0.1:9", "unix:/nonexistent/pulse/native", "not a server::"])
    func badPulseServerAddressIsNamed(address: String) async throws {
      let output = try await TranscribeProcess.run(
        ["--duration", "2"], environment: ["PULSE_SERVER": address], timeout: 10)
      expectOneLineFailure(output, status: 2)
      #expect(output.stderr.contains(address))
      #expect(output.stderr.contains("\(address) (from PULSE_SERVER)"))
      #expect(!output.stderr.contains("default audio server"))
    }

    @Test(arguments: [
      (["--input", "-"], "wav"), (["--input", "-"], "flac"), (["--raw", "-i", "-"], "raw"),
    ])
    func standardInputIsReadFromAPipe(arguments: [String], format: String) async throws {
      let directory = try TemporaryDirectory()
      let file = directory.url.appendingPathComponent("goforward.\(format)")
      try runSox(
        ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", goForward]
          + (format == "raw" ? ["-t", "raw"] : []) + [file.path])
      let input = Pipe()
      let process = TranscribeProcess(arguments)
      process.process.standardInput = input
      try process.start()
      input.fileHandleForWriting.write(try Data(contentsOf: file))
      try input.fileHandleForWriting.close()
      let output = await process.wait(timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
    }

    @Test func stalledInputThenCtrlCExitsAtOnceWithTheWordsHeardSoFar() async throws {
      let directory = try TemporaryDirectory()
      let fifo = directory.url.appendingPathComponent("stalled")
      try #require(mkfifo(fifo.path, 0o600) == 0)
      let wav = directory.url.appendingPathComponent("goforward.wav")
      try runSox(
        ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", goForward, wav.path]
          + ["pad", "0", "1"])
      let process = TranscribeProcess(["--input", fifo.path])
      try process.start()
      // The writer sends the speech and then goes quiet without closing the FIFO. Opening it
      // without blocking fails until transcribe has opened it for reading; give up after 10 s
      // rather than hang if it never does.
      var descriptor: Int32 = -1
      let deadline = ContinuousClock.now + .seconds(10)
      while descriptor < 0, ContinuousClock.now < deadline {
        descriptor = open(fifo.path, O_WRONLY | O_NONBLOCK)
        if descriptor < 0 { try await Task.sleep(for: .milliseconds(20)) }
      }
      try #require(descriptor >= 0, "transcribe never opened the FIFO")
      let writer = FileHandle(fileDescriptor: descriptor, closeOnDealloc: true)
      // Blocking writes from here: the pipe buffer is smaller than the file.
      _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK)
      writer.write(try Data(contentsOf: wav))
      // The utterance ends in the trailing second of silence, and its words are written; then
      // the stream stalls (a busy machine may decode slowly: wait up to 20 s).
      let written = ContinuousClock.now + .seconds(20)
      while process.stdoutSoFar.isEmpty, ContinuousClock.now < written {
        try await Task.sleep(for: .milliseconds(50))
      }
      try await Task.sleep(for: .milliseconds(500))
      #expect(process.process.isRunning)
      let interrupted = ContinuousClock.now
      kill(process.process.processIdentifier, SIGINT)
      let output = await process.wait(timeout: 10)
      let elapsed = ContinuousClock.now - interrupted
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout == "go forward ten meters\n")
      #expect(elapsed < .seconds(1))
    }

    @Test(
      .enabled(if: VirtualMicrophone.canStart, "needs PulseAudio (scripts/install-dependencies.sh)")
    ) func hungServerAtStartIsReportedWithinTwoSeconds() async throws {
      let server = try VirtualMicrophone.start("cli-hung")
      defer { server.stop() }
      let pid = try #require(server.pid)
      kill(pid, SIGSTOP)
      defer { kill(pid, SIGCONT) }
      let start = ContinuousClock.now
      let output = try await TranscribeProcess.run(
        ["--duration", "5"], environment: server.environment, timeout: 15)
      let elapsed = ContinuousClock.now - start
      expectOneLineFailure(output, status: 2)
      #expect(output.stderr.contains(server.server))
      #expect(output.stderr.contains("within 2 s"))
      // The promise is 2 s (the connect timeout); the rest is the process starting up.
      #expect(elapsed < .seconds(2.7))
    }

    @Test(arguments: [false, true])
    func audioBelow16kHzGetsAOneLineWarningAndIsStillTranscribed(
      fromStandardInput: Bool
    )
      async throws
    {
      let directory = try TemporaryDirectory()
      let low = directory.url.appendingPathComponent("goforward-8k.wav")
      try runSox(
        ["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", goForward]
          + ["-r", "8000", low.path])
      let process = TranscribeProcess(["--input", fromStandardInput ? "-" : low.path])
      let input = Pipe()
      if fromStandardInput { process.process.standardInput = input }
      try process.start()
      if fromStandardInput {
        input.fileHandleForWriting.write(try Data(contentsOf: low))
        try input.fileHandleForWriting.close()
      }
      let output = await process.wait(timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stderr.split(separator: "\n")
      #expect(lines.count == 1)
      #expect(lines.first?.hasPrefix("transcribe: warning: ") == true)
      #expect(output.stderr.contains("8000 Hz"))
      #expect(output.stderr.contains("below 16 kHz"))
    }
  }
}
