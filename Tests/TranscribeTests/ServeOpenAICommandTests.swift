import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve` with the real model, driven by the official `openai` Python package and
/// by curl, as their users would.
extension CommandTests {
  @Suite struct ServeOpenAICommandTests {
    static let clip = SpeechTestData.directory.appendingPathComponent(
      "librivox/sense_and_sensibility_01_austen_64kb-0870.wav")
    static let token = "t0ken-for-tests"

    @Test(
      .enabled(
        if: PythonClient.canImport("openai"),
        "needs python3 with openai (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func theOpenAISDKGetsTheWordsOfTheCommandLineInEveryFormat() async throws {
      let directory = try TemporaryDirectory()
      let reference = try await TranscribeProcess.run(["--input", Self.clip.path], timeout: 120)
      let referenceSRT = try await TranscribeProcess.run(
        ["--input", Self.clip.path, "--format", "srt"], timeout: 120)
      let referenceVTT = try await TranscribeProcess.run(
        ["--input", Self.clip.path, "--format", "vtt"], timeout: 120)
      #expect(reference.status == 0, "\(reference.stderr)")
      let utterances = reference.stdout.split(separator: "\n").map(String.init)
      let words = utterances.joined(separator: " ")
      #expect(words.split(separator: " ").count > 10)

      let server = try await ServeProcess(["--max-upload-mb", "1", "--token", Self.token])
      defer { server.kill() }
      let script = directory.url.appendingPathComponent("openai_client.py")
      try Self.clientScript.write(to: script, atomically: true, encoding: .utf8)
      let output = try runCommand(
        "/usr/bin/env", ["python3", script.path, server.baseURL, Self.token, Self.clip.path])
      let answers = try #require(
        try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])

      #expect(answers["json"] as? String == words)
      #expect(answers["text"] as? String == words + "\n")
      // The server's subtitles are the command line's, byte for byte.
      #expect(answers["srt"] as? String == referenceSRT.stdout)
      #expect(answers["vtt"] as? String == referenceVTT.stdout)

      let verbose = try #require(answers["verbose_json"] as? [String: Any])
      #expect(verbose["text"] as? String == words)
      #expect(verbose["language"] as? String == "english")
      let duration = try #require(verbose["duration"] as? Double)
      #expect(abs(duration - 7.1) < 0.1, "duration \(duration)")
      let segments = try #require(verbose["segments"] as? [[String: Any]])
      #expect(segments.map { $0["text"] as? String } == utterances)
      let spoken = try #require(verbose["words"] as? [[String: Any]])
      #expect(
        spoken.map { $0["word"] as? String }.compactMap { $0 }.joined(separator: " ") == words)
      let times = spoken.compactMap { word in
        (word["start"] as? Double).flatMap { start in (word["end"] as? Double).map { (start, $0) } }
      }
      #expect(times.count == spoken.count)
      #expect(times.allSatisfy { $0.0 <= $0.1 && $0.1 <= duration })
      #expect(zip(times, times.dropFirst()).allSatisfy { $0.0.1 <= $0.1.0 })

      // The other engine's verbose_json parses as well, with its own words and times.
      let other = try #require(answers["verbose_pocketsphinx"] as? [String: Any])
      let otherWords = try #require(other["words"] as? [[String: Any]])
      let otherSegments = try #require(other["segments"] as? [[String: Any]])
      #expect(otherWords.count > 10)
      #expect(
        otherWords.compactMap { $0["word"] as? String }.joined(separator: " ")
          == other["text"] as? String)
      #expect(
        otherSegments.compactMap { $0["text"] as? String }.joined(separator: " ")
          == other["text"] as? String)
      let otherStarts = otherWords.compactMap { $0["start"] as? Double }
      #expect(otherStarts.count == otherWords.count)
      #expect(zip(otherStarts, otherStarts.dropFirst()).allSatisfy { $0 <= $1 })

      // The SDK raises its AuthenticationError for a wrong key.
      #expect(answers["wrong_key"] as? Int == 401)
      let log = await server.stop()
      #expect(!log.contains(Self.token))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func badRequestsGetOpenAIErrorsWithTheirStatus() async throws {
      let directory = try TemporaryDirectory()
      let server = try await ServeProcess(["--max-upload-mb", "1"])
      defer { server.kill() }
      let url = server.baseURL + "/v1/audio/transcriptions"
      let large = directory.url.appendingPathComponent("large.wav")
      try Data(count: 2 << 20).write(to: large)
      let text = directory.url.appendingPathComponent("notes.wav")
      try "These are notes, not audio.".write(to: text, atomically: true, encoding: .utf8)

      let notAudio = try curl(url, ["-F", "file=@\(text.path)"])
      #expect(notAudio.status == 400)
      #expect(notAudio.body.contains(#""param":"file""#))
      #expect(notAudio.body.contains("not audio this server can read"), "\(notAudio.body)")

      let badFormat = try curl(
        url, ["-F", "file=@\(Self.clip.path)", "-F", "response_format=docx"])
      #expect(badFormat.status == 400)
      #expect(badFormat.body.contains(#""param":"response_format""#))

      let noFile = try curl(url, ["-F", "model=whisper-1"])
      #expect(noFile.status == 400)
      #expect(noFile.body.contains("The `file` field is required."))

      let tooLarge = try curl(url, ["-F", "file=@\(large.path)"])
      #expect(tooLarge.status == 413)
      #expect(tooLarge.body.contains("1 MiB"))

      // The server still answers afterwards.
      let good = try curl(url, ["-F", "file=@\(Self.clip.path)", "-F", "response_format=text"])
      #expect(good.status == 200)
      #expect(!good.body.isEmpty)
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func withATokenRequestsWithoutItAreAnswered401() async throws {
      let server = try await ServeProcess(["--token", Self.token])
      defer { server.kill() }
      let url = server.baseURL + "/v1/audio/transcriptions"
      let missing = try curl(url, ["-F", "file=@\(Self.clip.path)"])
      #expect(missing.status == 401)
      #expect(missing.body.contains(#""code":"invalid_api_key""#))
      let wrong = try curl(
        url, ["-H", "Authorization: Bearer nope", "-F", "file=@\(Self.clip.path)"])
      #expect(wrong.status == 401)
      let right = try curl(
        url,
        ["-H", "Authorization: Bearer \(Self.token)", "-F", "file=@\(Self.clip.path)"])
      #expect(right.status == 200)
      #expect(await !server.stop().contains(Self.token))
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func pastMaxSessionsAnUploadIsAnswered503WithRetryAfterAndTheFirstStillFinishes()
      async throws
    {
      let directory = try TemporaryDirectory()
      let long = directory.url.appendingPathComponent("librivox.wav")
      let clips = try FileManager.default.contentsOfDirectory(
        atPath: SpeechTestData.directory.appendingPathComponent("librivox").path
      ).filter { $0.hasSuffix(".wav") }.sorted().map {
        SpeechTestData.directory.appendingPathComponent("librivox/\($0)").path
      }
      try runSox(clips + [long.path])
      // The server writes uploads to TMPDIR (checked empty at the end).
      let uploads = directory.url.appendingPathComponent("uploads")
      try FileManager.default.createDirectory(at: uploads, withIntermediateDirectories: true)
      let server = try await ServeProcess(
        ["--max-sessions", "1"], environment: ["TMPDIR": uploads.path])
      defer { server.kill() }
      let url = server.baseURL + "/v1/audio/transcriptions"

      let first = Process()
      first.executableURL = URL(fileURLWithPath: "/usr/bin/curl")
      first.arguments = [
        "-sS", "-o", "/dev/null", "-w", "%{http_code}", "-F", "file=@\(long.path)", url,
      ]
      let firstOutput = Pipe()
      first.standardOutput = firstOutput
      try first.run()
      // An upload takes the place once its body is in and decoding starts: /readyz says so.
      while first.isRunning,
        (try? curl(server.baseURL + "/readyz", []))?.body.contains(#""active":1"#) != true
      {
        try await Task.sleep(for: .milliseconds(20))
      }
      // While the first upload is recognized, a second one is turned away at once.
      let busy = try runCommand(
        "/usr/bin/curl",
        ["-sS", "-D", "-", "-o", "/dev/null", "-F", "file=@\(Self.clip.path)", url])
      first.waitUntilExit()
      let firstStatus = String(
        decoding: firstOutput.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
      #expect(busy.hasPrefix("HTTP/1.1 503"), "\(busy)")
      #expect(busy.lowercased().contains("retry-after: 1"))
      #expect(firstStatus == "200")
      // The place is free again.
      let again = try curl(url, ["-F", "file=@\(Self.clip.path)"])
      #expect(again.status == 200)
      // And no upload is left on disk.
      #expect(try FileManager.default.contentsOfDirectory(atPath: uploads.path).isEmpty)
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("openai"),
        "needs python3 with openai (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func theOpenAISDKStreamsTheTranscriptUtteranceByUtteranceBeforeItIsDone() async throws {
      let directory = try TemporaryDirectory()
      let long = try Self.pausedLibrivox(in: directory)
      let server = try await ServeProcess(["--token", Self.token])
      defer { server.kill() }
      let output = try await PythonClient.run(
        "openai_stream.py", [server.baseURL, long.path, "--token", Self.token], timeout: 300)
      #expect(output.status == 0, "\(output.stderr)")
      let answer = try #require(
        try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
      let events = try #require(answer["events"] as? [[String: Any]], "\(answer)")
      let deltas = events.filter { $0["type"] as? String == "transcript.text.delta" }
      let done = try #require(events.last)
      #expect(done["type"] as? String == "transcript.text.done")
      #expect(events.count == deltas.count + 1)
      // One delta per utterance, which together are the text of the done event: the words of
      // the same upload answered at once.
      #expect(deltas.count >= 3, "\(deltas.count) deltas")
      let text = try #require(done["text"] as? String)
      #expect(deltas.compactMap { $0["delta"] as? String }.joined() == text)
      let whole = try curl(
        server.baseURL + "/v1/audio/transcriptions",
        [
          "-H", "Authorization: Bearer \(Self.token)", "-F", "file=@\(long.path)", "-F",
          "response_format=text",
        ])
      #expect(whole.body == text + "\n")
      let usage = try #require(done["usage"] as? [String: Any])
      #expect(usage["type"] as? String == "tokens")
      #expect(usage["output_tokens"] as? Int == text.split(separator: " ").count)
      // The first utterance arrives well before the last is decoded.
      let first = try #require(deltas.first?["at"] as? Double)
      let end = try #require(done["at"] as? Double)
      #expect(first < end - 0.5, "first delta at \(first) s, done at \(end) s")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("openai"),
        "needs python3 with openai (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: MoonshineTestData.isInstalled, "needs Moonshine"))
    func theOpenAISDKGetsMoonshinesTokenLogprobsStreamedAndWhole() async throws {
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let streamed = try await PythonClient.run(
        "openai_stream.py", [server.baseURL, Self.clip.path, "--model", "moonshine", "--logprobs"])
      #expect(streamed.status == 0, "\(streamed.stderr)")
      let answer = try #require(
        try JSONSerialization.jsonObject(with: Data(streamed.stdout.utf8)) as? [String: Any])
      let events = try #require(answer["events"] as? [[String: Any]], "\(answer)")
      let done = try #require(events.last)
      #expect(done["type"] as? String == "transcript.text.done")
      let text = try #require(done["text"] as? String)
      let all = try #require(done["logprobs"] as? [[String: Any]])
      let perDelta = events.dropLast().map { ($0["logprobs"] as? [[String: Any]]) ?? [] }
      #expect(perDelta.allSatisfy { !$0.isEmpty })
      #expect(
        perDelta.joined().map { $0["token"] as? String } == all.map { $0["token"] as? String })
      // Every token: its text, its bytes, a log probability; together they spell the text.
      #expect(all.count >= text.split(separator: " ").count)
      #expect(all.allSatisfy { (($0["logprob"] as? Double) ?? 1) <= 0 })
      let bytes = all.flatMap { ($0["bytes"] as? [Int]) ?? [] }.map(UInt8.init)
      #expect(
        String(decoding: bytes, as: UTF8.self).filter { $0 != " " } == text.filter { $0 != " " })

      let whole = try await PythonClient.run(
        "openai_stream.py",
        [server.baseURL, Self.clip.path, "--model", "moonshine", "--logprobs", "--whole"])
      #expect(whole.status == 0, "\(whole.stderr)")
      let wholeAnswer = try #require(
        try JSONSerialization.jsonObject(with: Data(whole.stdout.utf8)) as? [String: Any])
      let json = try #require(wholeAnswer["whole"] as? [String: Any], "\(wholeAnswer)")
      #expect(json["text"] as? String == text)
      let wholeLogprobs = try #require(json["logprobs"] as? [[String: Any]])
      #expect(wholeLogprobs.map { $0["token"] as? String } == all.map { $0["token"] as? String })
    }

    /// Every librivox clip followed by a second of silence: about 30 s, five utterances.
    static func pausedLibrivox(in directory: TemporaryDirectory) throws -> URL {
      let long = directory.url.appendingPathComponent("librivox.wav")
      let clips = try FileManager.default.contentsOfDirectory(
        atPath: SpeechTestData.directory.appendingPathComponent("librivox").path
      ).filter { $0.hasSuffix(".wav") }.sorted()
      var padded: [String] = []
      for clip in clips {
        let path = directory.url.appendingPathComponent("padded-\(clip)").path
        try runSox([
          SpeechTestData.directory.appendingPathComponent("librivox/\(clip)").path, path,
          "pad", "0", "1",
        ])
        padded.append(path)
      }
      try runSox(padded + [long.path])
      return long
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("openai"),
        "needs python3 with openai (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: MoonshineTestData.isInstalled, "needs Moonshine"))
    func aChunkingStrategyFromTheSDKSetsThePauseThatEndsAnUtterance() async throws {
      let directory = try TemporaryDirectory()
      let long = try Self.pausedLibrivox(in: directory)
      // Moonshine decodes each piece the detector cuts as one utterance.
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      func deltas(_ chunking: String) async throws -> Int {
        let output = try await PythonClient.run(
          "openai_stream.py", [server.baseURL, long.path, "--chunking", chunking])
        #expect(output.status == 0, "\(output.stderr)")
        let answer = try #require(
          try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any])
        let events = try #require(answer["events"] as? [[String: Any]], "\(answer)")
        return events.filter { $0["type"] as? String == "transcript.text.delta" }.count
      }
      // The clips are a second apart: pauses of half a second cut them apart, pauses of two
      // seconds cannot.
      let short = try await deltas(#"{"type": "server_vad", "silence_duration_ms": 500}"#)
      let long2 = try await deltas(
        #"{"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300, "silence_duration_ms": 2000}"#
      )
      let auto = try await deltas("auto")
      #expect(short >= 5)
      #expect(long2 < short, "\(long2) utterances with 2 s pauses, \(short) with 0.5 s")
      // The server's own endpointing holds an utterance through a pause inside a sentence: the
      // clips are one passage of the book, with one sentence ending after the first clip and
      // the others ending at a comma, a colon or a semicolon. An upload is a file, and a file
      // ends its utterances where the model, hearing the whole passage, ends its sentences: it
      // writes a full stop for the book's colon before the last clip ("than he was. He might
      // even…"), so 3; the pauses after "young man," and "ill-disposed" are held either way.
      #expect((2...3).contains(auto), "\(auto) utterances")
      let bad = try await PythonClient.run(
        "openai_stream.py", [server.baseURL, long.path, "--chunking", #"{"type": "semantic_vad"}"#])
      #expect(bad.stdout.contains(#""status": 400"#), "\(bad.stdout)")
    }

    @Test(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
    func curlSeesServerSentEventsAndStreamingRefusesSubtitleFormats() async throws {
      let server = try await ServeProcess([])
      defer { server.kill() }
      let url = server.baseURL + "/v1/audio/transcriptions"
      let streamed = try runCommand(
        "/usr/bin/curl",
        ["-sS", "-N", "-D", "-", "-F", "file=@\(Self.clip.path)", "-F", "stream=true", url])
      let (head, body) = try #require(
        streamed.range(of: "\r\n\r\n").map {
          (streamed[..<$0.lowerBound].lowercased(), String(streamed[$0.upperBound...]))
        })
      #expect(head.hasPrefix("http/1.1 200"))
      #expect(head.contains("content-type: text/event-stream"))
      let events = body.components(separatedBy: "\n\n")
      #expect(events.last == "")
      let lines = events.dropLast()
      #expect(lines.count >= 2)
      #expect(lines.allSatisfy { $0.hasPrefix("data: {") && !$0.contains("\n") }, "\(body)")
      #expect(lines.dropLast().allSatisfy { $0.contains(#""type":"transcript.text.delta""#) })
      #expect(lines.last?.contains(#""type":"transcript.text.done""#) == true)

      let subtitles = try curl(
        url, ["-F", "file=@\(Self.clip.path)", "-F", "stream=true", "-F", "response_format=srt"])
      #expect(subtitles.status == 400)
      #expect(subtitles.body.contains(#""param":"stream""#))
    }

    @Test(arguments: ["0", "-1", "65537", "lots"])
    func anUploadLimitOutsideOneMiBTo64GiBIsAUsageError(megabytes: String) async throws {
      let output = try await TranscribeProcess.run(
        ["serve", "--max-upload-mb=\(megabytes)"], timeout: 30)
      #expect(output.status == 64)
      #expect(output.stderr.contains("--max-upload-mb"))
    }

    @Test(arguments: [
      (["--token", ""], [:], "--token is empty"),
      ([], ["TRANSCRIBE_TOKEN": ""], "TRANSCRIBE_TOKEN is empty"),
      (["--token", ""], ["TRANSCRIBE_TOKEN": "s3cret"], "--token is empty"),
      (["--token", " s3cret"], [:], "a space"),
      (["--token", "s3cret\r"], [:], "a control character (U+D)"),
      ([], ["TRANSCRIBE_TOKEN": "caf\u{E9}"], "'\u{E9}'"),
    ])
    func aTokenThatCannotBeUsedIsAUsageError(
      arguments: [String], environment: [String: String], message: String
    ) async throws {
      let output = try await TranscribeProcess.run(
        ["serve", "--port", "0"] + arguments, environment: environment, timeout: 30)
      #expect(output.status == 64)
      #expect(output.stderr.contains(message), "\(output.stderr)")
    }

    @Test(
      arguments: [
        ("missing", nil, "does not exist: write the token into it"),
        ("empty", Data(), "is empty: write a token of at least one character into it"),
        ("spaced", Data("s3 cret\n".utf8), "holds a space"),
      ] as [(String, Data?, String)])
    func aTokenFileThatCannotBeUsedIsAUsageError(
      name: String, contents: Data?, message: String
    ) async throws {
      let directory = try TemporaryDirectory()
      let file = directory.url.appendingPathComponent(name)
      if let contents { try contents.write(to: file) }
      let output = try await TranscribeProcess.run(
        ["serve", "--port", "0", "--token-file", file.path], timeout: 30)
      #expect(output.status == 64)
      // One line that names the file and the fix (ArgumentParser's usage lines follow it).
      let first = output.stderr.split(separator: "\n").first.map(String.init) ?? ""
      #expect(first.hasPrefix("Error: --token-file \(file.path) "), "\(output.stderr)")
      #expect(first.contains(message), "\(output.stderr)")
    }

    @Test(
      .enabled(
        if: getuid() == 0 && FileManager.default.fileExists(atPath: "/usr/bin/setpriv"),
        "needs root, to run the server as nobody"))
    func aTokenFileItsUserCannotReadIsAUsageErrorNamingTheUser() async throws {
      // Root reads any file: the server runs as nobody, the file is root's alone (0600).
      let directory = try TemporaryDirectory()
      try FileManager.default.setAttributes(
        [.posixPermissions: 0o755], ofItemAtPath: directory.url.path)
      let file = directory.url.appendingPathComponent("token")
      try Data("s3cret\n".utf8).write(to: file)
      try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
      let output = try await TranscribeProcess.run(
        ["serve", "--port", "0", "--token-file", file.path], timeout: 30,
        shellScript:
          #"exec /usr/bin/setpriv --reuid=nobody --regid=nogroup --clear-groups "$0" "$@""#
      )
      #expect(output.status == 64, "\(output.stderr)")
      let first = output.stderr.split(separator: "\n").first.map(String.init) ?? ""
      #expect(
        first
          == "Error: --token-file \(file.path) cannot be read by nobody: give that user read "
          + "access (e.g. chgrp its group and chmod 0640), or run as one who has it.",
        "\(output.stderr)")
    }

    @Test func aTokenFileKeepsTheTokenOffTheCommandLineAndWinsOverTheEnvironment()
      async throws
    {
      let directory = try TemporaryDirectory()
      let file = directory.url.appendingPathComponent("token")
      try Data("\(Self.token)\n".utf8).write(to: file)
      let server = try await ServeProcess(
        ["--preview", "--token-file", file.path], environment: ["TRANSCRIBE_TOKEN": "fr0m-env"])
      defer { server.kill() }
      let url = server.baseURL + "/metrics"
      #expect(try curl(url, []).status == 401)
      #expect(try curl(url, ["-H", "Authorization: Bearer fr0m-env"]).status == 401)
      #expect(try curl(url, ["-H", "Authorization: Bearer \(Self.token)"]).status == 200)
      // What `ps` shows: the file's name, not the token.
      let commandLine = try String(
        decoding: Data(
          contentsOf: URL(
            fileURLWithPath: "/proc/\(server.process.process.processIdentifier)/cmdline")),
        as: UTF8.self)
      #expect(commandLine.contains(file.path))
      #expect(!commandLine.contains(Self.token))
      #expect(await !server.stop().contains(Self.token))
    }

    @Test(
      .enabled(
        if: VirtualMicrophone.isRequired
          || FileManager.default.fileExists(atPath: "/usr/bin/systemd-analyze"),
        "needs systemd-analyze (the systemd package)"))
    func theServeUnitVerifiesAndServesWithTheTokenFileSystemdHandsIt() async throws {
      let text = try String(
        contentsOf: PythonClient.scripts.deletingLastPathComponent()
          .appendingPathComponent("packaging/transcribe-serve.service"), encoding: .utf8)
      #expect(text.contains("\nLoadCredential=token:/etc/transcribe/token\n"))
      let directory = try TemporaryDirectory()
      // The unit with the binary this build made. Its Documentation= names the package's man
      // page, which is not installed here (scripts/check-deb.sh verifies the installed unit).
      let unit = directory.url.appendingPathComponent("transcribe-serve.service")
      try text.replacingOccurrences(
        of: "/usr/bin/transcribe", with: TranscribeProcess.executable.path
      )
      .split(separator: "\n", omittingEmptySubsequences: false)
      .filter { !$0.hasPrefix("Documentation=") }.joined(separator: "\n")
      .write(to: unit, atomically: true, encoding: .utf8)
      let (status, complaints) = try systemdAnalyzeVerify(unit)
      #expect(status == 0, "\(complaints)")
      #expect(complaints.isEmpty, "\(complaints)")
      // Its command line, on a free port, with the token where systemd puts the credential (%d).
      let credentials = directory.url.appendingPathComponent("credentials")
      try FileManager.default.createDirectory(at: credentials, withIntermediateDirectories: true)
      try Data("\(Self.token)\n".utf8).write(to: credentials.appendingPathComponent("token"))
      let execStart = try #require(
        text.split(separator: "\n").first { $0.hasPrefix("ExecStart=/usr/bin/transcribe serve ") })
      let arguments = execStart.split(separator: " ").dropFirst(2).map {
        $0 == "2700" ? "0" : $0.replacingOccurrences(of: "%d", with: credentials.path)
      }
      #expect(arguments.contains("--token-file"), "\(execStart)")
      let server = try await ServeProcess(arguments + ["--preview"])
      defer { server.kill() }
      let url = server.baseURL + "/v1/models"
      #expect(try curl(url, []).status == 401)
      #expect(try curl(url, ["-H", "Authorization: Bearer \(Self.token)"]).status == 200)
      #expect(await !server.stop().contains(Self.token))
    }

    @Test func helpDescribesTheUploadLimit() async throws {
      let output = try await TranscribeProcess.run(["serve", "--help"], timeout: 30)
      #expect(output.stdout.contains("--max-upload-mb <mib>"))
    }

    /// Runs curl; returns the status and body.
    func curl(_ url: String, _ arguments: [String]) throws -> (status: Int, body: String) {
      let output = try runCommand(
        "/usr/bin/curl", ["-sS", "-w", "\n%{http_code}"] + arguments + [url])
      let status = Int(output.split(separator: "\n").last ?? "") ?? 0
      return (status, String(output[..<(output.lastIndex(of: "\n") ?? output.endIndex)]))
    }

    /// What the SDK client does: every response format, word timestamps, a wrong key.
    static let clientScript = """
      import json, sys, time, urllib.request
      import openai
      from openai import OpenAI

      base, token, audio = sys.argv[1], sys.argv[2], sys.argv[3]
      deadline = time.time() + 60
      while True:
          try:
              urllib.request.urlopen(base + "/healthz", timeout=2).read()
              break
          except Exception:
              if time.time() > deadline:
                  raise
              time.sleep(0.1)

      client = OpenAI(base_url=base + "/v1", api_key=token, max_retries=0, timeout=300)
      answers = {}
      for format in ["json", "text", "srt", "vtt"]:
          with open(audio, "rb") as file:
              answer = client.audio.transcriptions.create(
                  model="whisper-1", file=file, response_format=format)
          answers[format] = answer.text if format == "json" else answer
      with open(audio, "rb") as file:
          answer = client.audio.transcriptions.create(
              model="whisper-1", file=file, response_format="verbose_json",
              timestamp_granularities=["word", "segment"], language="en")
      answers["verbose_json"] = answer.model_dump()
      with open(audio, "rb") as file:
          answer = client.audio.transcriptions.create(
              model="pocketsphinx", file=file, response_format="verbose_json",
              timestamp_granularities=["word", "segment"])
      answers["verbose_pocketsphinx"] = answer.model_dump()
      try:
          with open(audio, "rb") as file:
              OpenAI(base_url=base + "/v1", api_key="wrong", max_retries=0) \\
                  .audio.transcriptions.create(model="whisper-1", file=file)
          answers["wrong_key"] = "accepted"
      except openai.AuthenticationError as error:
          answers["wrong_key"] = error.status_code
      print(json.dumps(answers))
      """
  }
}
