import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve`'s Realtime transcription WebSocket with the real model, driven by the
/// official `openai` SDK's realtime client and by a raw `websockets` client
/// (`scripts/openai_realtime.py`), speech streamed at real-time pace.
extension CommandTests {
  @Suite struct ServeRealtimeCommandTests {
    static let token = "t0ken-for-tests"
    static let clip = SpeechTestData.directory.appendingPathComponent(
      "librivox/sense_and_sensibility_01_austen_64kb-0870.wav")
    static let hasSox = FileManager.default.isExecutableFile(atPath: "/usr/bin/sox")

    /// Runs the client script and returns its JSON answer.
    static func client(_ arguments: [String]) async throws -> [String: Any] {
      let output = try await PythonClient.run("openai_realtime.py", arguments, timeout: 120)
      #expect(output.status == 0, "\(output.stderr)")
      return try #require(
        try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
        "\(output.stdout) \(output.stderr)")
    }

    /// The words of a transcript, lowercased, without punctuation; numbers as pocketsphinx
    /// spells them.
    static func words(_ text: String) -> [String] {
      text.lowercased().split(separator: " ").map {
        let word = $0.filter { $0.isLetter || $0.isNumber || $0 == "'" }
        return word == "10" ? "ten" : word == "metres" ? "meters" : word
      }
    }

    static func events(
      _ answer: [String: Any], _ type: String
    ) -> [[String: Any]] {
      ((answer["events"] as? [[String: Any]]) ?? []).filter { $0["type"] as? String == type }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("openai") && PythonClient.canImport("websockets"),
        "needs python3 with openai and websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: hasSox, "needs sox"))
    func theOpenAISDKsRealtimeClientGetsDeltasThenTheCompletedWords() async throws {
      let server = try await ServeProcess(["--token", Self.token])
      defer { server.kill() }
      let answer = try await Self.client([
        server.baseURL, SpeechTestData.goForward.path, "--client", "sdk", "--token", Self.token,
      ])
      #expect(answer["exception"] == nil, "\(answer)")
      let events = try #require(answer["events"] as? [[String: Any]])
      let types = events.compactMap { $0["type"] as? String }
      #expect(types.first == "session.created")
      #expect(types.dropFirst().first == "session.updated")
      let updated = try #require(events.dropFirst().first?["session"] as? [String: Any])
      #expect(updated["type"] as? String == "transcription")
      // One item, in server VAD's order: started, deltas while spoken, stopped, committed,
      // completed.
      let item = types.filter { $0.hasPrefix("input_audio_buffer.") }
      #expect(
        item == [
          "input_audio_buffer.speech_started", "input_audio_buffer.speech_stopped",
          "input_audio_buffer.committed",
        ])
      #expect(types.last == "conversation.item.input_audio_transcription.completed")
      let itemIDs = Set(events.dropFirst(2).compactMap { $0["item_id"] as? String })
      #expect(itemIDs.count == 1)
      let completed = try #require(events.last)
      let transcript = try #require(completed["transcript"] as? String)
      #expect(Self.words(transcript) == ["go", "forward", "ten", "meters"], "\(transcript)")
      // Deltas came while the words were spoken, before the speech stopped.
      let deltas = Self.events(answer, "conversation.item.input_audio_transcription.delta")
      #expect(!deltas.isEmpty)
      let stopped = try #require(
        Self.events(answer, "input_audio_buffer.speech_stopped").first?["at"] as? Double)
      let firstDelta = try #require(deltas.first?["at"] as? Double)
      #expect(firstDelta <= stopped)
      let started = try #require(
        Self.events(answer, "input_audio_buffer.speech_started").first)
      let stoppedEvent = try #require(
        Self.events(answer, "input_audio_buffer.speech_stopped").first)
      let start = try #require(started["audio_start_ms"] as? Int)
      let end = try #require(stoppedEvent["audio_end_ms"] as? Int)
      #expect(0 <= start && start < end && end <= 4_000, "\(start)…\(end) ms")
      let log = await server.stop()
      #expect(!log.contains(Self.token))
      #expect(log.contains("endpoint=/v1/realtime"))
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: hasSox, "needs sox"))
    func aRawWebSocketClientCommitsAndGetsEventsShapedAsOpenAISends() async throws {
      let server = try await ServeProcess(["--engine", "pocketsphinx"])
      defer { server.kill() }
      let answer = try await Self.client([
        server.baseURL, Self.clip.path, "--client", "raw", "--turn-detection", "none",
        "--commit", "--logprobs", "--silence", "0", "--model", "pocketsphinx",
      ])
      #expect(answer["exception"] == nil, "\(answer)")
      #expect(answer["close_code"] as? Int == 1000)
      let events = try #require(answer["events"] as? [[String: Any]])
      let types = events.compactMap { $0["type"] as? String }
      // With turn detection off: no speech events; the commit, then its item's deltas and
      // completion.
      #expect(
        types.prefix(3) == ["session.created", "session.updated", "input_audio_buffer.committed"])
      #expect(types.last == "conversation.item.input_audio_transcription.completed")
      #expect(
        types.dropFirst(3).dropLast().allSatisfy {
          $0 == "conversation.item.input_audio_transcription.delta"
        })
      // The wire format, field by field.
      for event in events {
        #expect((event["event_id"] as? String)?.hasPrefix("event_") == true, "\(event)")
      }
      let updated = try #require(events[1]["session"] as? [String: Any])
      let input = try #require((updated["audio"] as? [String: Any])?["input"] as? [String: Any])
      #expect((input["format"] as? [String: Any])?["type"] as? String == "audio/pcm")
      #expect((input["format"] as? [String: Any])?["rate"] as? Int == 24_000)
      #expect(input["turn_detection"] is NSNull)
      #expect(
        (input["transcription"] as? [String: Any])?["model"] as? String == "pocketsphinx")
      #expect(updated["include"] as? [String] == ["item.input_audio_transcription.logprobs"])
      let committed = events[2]
      let itemID = try #require(committed["item_id"] as? String)
      #expect(committed["previous_item_id"] is NSNull)
      let completed = try #require(events.last)
      #expect(completed["item_id"] as? String == itemID)
      #expect(completed["content_index"] as? Int == 0)
      let transcript = try #require(completed["transcript"] as? String)
      #expect(Self.words(transcript).count > 10, "\(transcript)")
      #expect(Self.words(transcript).contains("leisure"), "\(transcript)")
      let usage = try #require(completed["usage"] as? [String: Any])
      #expect(usage["type"] as? String == "tokens")
      #expect(usage["output_tokens"] as? Int == Self.words(transcript).count)
      let logprobs = try #require(completed["logprobs"] as? [[String: Any]])
      #expect(logprobs.count == Self.words(transcript).count)
      #expect(logprobs.allSatisfy { ($0["logprob"] as? Double ?? 1) <= 0 && $0["bytes"] is [Int] })
      for delta in events.dropFirst(3).dropLast() {
        #expect(delta["item_id"] as? String == itemID)
        #expect(delta["content_index"] as? Int == 0)
        #expect(delta["delta"] is String)
      }
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: hasSox, "needs sox"),
      // pocketsphinx's model hears little in telephone audio; Moonshine's does.
      .enabled(if: MoonshineTestData.isInstalled, "needs Moonshine"),
      arguments: ["pcmu", "pcma"])
    func telephoneAudioInG711IsDecodedAndTranscribed(format: String) async throws {
      let server = try await ServeProcess(["--engine", "moonshine"])
      defer { server.kill() }
      let answer = try await Self.client([
        server.baseURL, SpeechTestData.goForward.path, "--client", "raw", "--format", format,
        "--turn-detection", "none", "--commit", "--silence", "0", "--pace", "4",
      ])
      #expect(answer["exception"] == nil, "\(answer)")
      let events = try #require(answer["events"] as? [[String: Any]])
      let input = (events.dropFirst().first?["session"] as? [String: Any])
        .flatMap { ($0["audio"] as? [String: Any])?["input"] as? [String: Any] }
      #expect((input?["format"] as? [String: Any])?["type"] as? String == "audio/" + format)
      let transcript = try #require(events.last?["transcript"] as? String, "\(events)")
      #expect(Self.words(transcript) == ["go", "forward", "ten", "meters"], "\(transcript)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: hasSox, "needs sox"))
    func serverVADsSilenceDurationDecidesWhereItemsEnd() async throws {
      let directory = try TemporaryDirectory()
      // goforward twice: about a second of quiet between the two commands.
      let twice = try SpeechTestData.goForwardWAV(in: directory.url, effects: ["repeat", "1"])
      let server = try await ServeProcess([])
      defer { server.kill() }
      func items(silenceMilliseconds: Int) async throws -> [String] {
        let answer = try await Self.client([
          server.baseURL, twice.path, "--client", "raw", "--pace", "2", "--silence", "3.5",
          "--silence-duration-ms", String(silenceMilliseconds), "--wait-completed", "2",
          "--timeout", "8",
        ])
        return Self.events(answer, "conversation.item.input_audio_transcription.completed")
          .compactMap { $0["transcript"] as? String }
      }
      let short = try await items(silenceMilliseconds: 500)
      #expect(
        short.map(Self.words) == Array(repeating: ["go", "forward", "ten", "meters"], count: 2))
      let long = try await items(silenceMilliseconds: 3_000)
      #expect(long.count == 1, "\(long)")
      #expect(long.first.map(Self.words)?.count == 8, "\(long)")
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"),
      .enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"),
      .enabled(if: hasSox, "needs sox"))
    func aShutdownDeliversTheWordsSoFarThenAnErrorAnd1001() async throws {
      let server = try await ServeProcess([])
      defer { server.kill() }
      // The clip at real-time pace (7 s); the server is stopped 4 s in, mid-sentence.
      let client = try PythonProcess(
        "openai_realtime.py",
        [server.baseURL, Self.clip.path, "--client", "raw", "--timeout", "20"])
      try await Task.sleep(for: .seconds(4))
      let log = await server.stop()
      let output = await client.wait(timeout: 60)
      let answer = try #require(
        try JSONSerialization.jsonObject(with: Data(output.stdout.utf8)) as? [String: Any],
        "\(output.stdout) \(output.stderr)")
      #expect(answer["close_code"] as? Int == 1001, "\(answer)")
      let events = try #require(answer["events"] as? [[String: Any]])
      let types = events.compactMap { $0["type"] as? String }
      // The words heard so far are an item, completed, before the error and the close.
      #expect(
        types.suffix(2) == ["conversation.item.input_audio_transcription.completed", "error"],
        "\(types)")
      #expect(
        types.last { $0.hasPrefix("input_audio_buffer.") } == "input_audio_buffer.committed",
        "\(types)")
      let completed = events.dropLast().last
      let transcript = (completed?["transcript"] as? String) ?? ""
      #expect(Self.words(transcript).count >= 3, "\(transcript)")
      let error = events.last?["error"] as? [String: Any]
      #expect(error?["code"] as? String == "server_shutting_down")
      #expect(log.contains("outcome=shutdown"))
    }

    @Test(
      .enabled(
        if: PythonClient.canImport("websockets"),
        "needs python3 with websockets (scripts/install-dependencies.sh)"))
    func eachBadEventIsAnErrorEventAndTheSessionGoesOn() async throws {
      let server = try await ServeProcess(["--token", Self.token])
      defer { server.kill() }
      let answer = try await Self.client([
        server.baseURL, "--errors", "--token", Self.token,
      ])
      let errors = try #require(answer["errors"] as? [String: [String: Any]], "\(answer)")
      let expected: [String: String] = [
        "invalid_json": "invalid_json", "unknown_type": "invalid_value",
        "bad_base64": "invalid_value", "odd_length": "invalid_value",
        "empty_commit": "input_audio_buffer_commit_empty", "wrong_format": "invalid_value",
        "not_transcription": "invalid_value", "unknown_parameter": "unknown_parameter",
        "oversized": "message_too_large", "binary": "invalid_value",
      ]
      for (name, code) in expected {
        let event = try #require(errors[name], "\(name)")
        #expect(event["type"] as? String == "error", "\(name): \(event)")
        let error = try #require(event["error"] as? [String: Any], "\(name)")
        #expect(error["type"] as? String == "invalid_request_error", "\(name)")
        #expect(error["code"] as? String == code, "\(name): \(error)")
        #expect((error["message"] as? String)?.isEmpty == false, "\(name)")
      }
      // The client's event_id comes back in the error.
      #expect((errors["unknown_type"]?["error"] as? [String: Any])?["event_id"] as? String == "e1")
      #expect(errors["clear"]?["type"] as? String == "input_audio_buffer.cleared")
      // After all that, the session still transcribes.
      let after = try #require(answer["after"] as? [[String: Any]])
      #expect(
        after.compactMap { $0["type"] as? String } == [
          "input_audio_buffer.committed", "conversation.item.input_audio_transcription.completed",
        ])
      // Without intent=transcription: an error event that names the fix, and the close 1008.
      let refused = try #require(answer["no_intent"] as? [String: Any])
      let refusal = try #require(
        (refused["event"] as? [String: Any])?["error"] as? [String: Any])
      #expect(refusal["code"] as? String == "invalid_intent")
      #expect((refusal["message"] as? String)?.contains("?intent=transcription") == true)
      #expect(refused["close_code"] as? Int == 1008)
      let log = await server.stop()
      #expect(!log.contains("Fatal error"))
    }

    @Test func theTokenAndOriginPoliciesApplyAndAPlainGETIsToldToOpenAWebSocket() async throws {
      let server = try await ServeProcess(["--token", Self.token])
      defer { server.kill() }
      let upgrade = [
        "-H", "Connection: Upgrade", "-H", "Upgrade: websocket", "-H",
        "Sec-WebSocket-Version: 13", "-H", "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==",
      ]
      func status(_ path: String, _ arguments: [String]) throws -> (Int, String) {
        let output = try runCommand(
          "/usr/bin/curl",
          ["-sS", "-o", "-", "-w", "\n%{http_code}"] + arguments + [server.baseURL + path])
        let status = Int(output.split(separator: "\n").last ?? "") ?? 0
        return (status, output)
      }
      let bearer = ["-H", "Authorization: Bearer \(Self.token)"]
      // Without the token: 401, as every endpoint.
      #expect(try status("/v1/realtime?intent=transcription", upgrade).0 == 401)
      // A plain GET: 400, it is a WebSocket endpoint, in OpenAI's error shape.
      let (plain, body) = try status("/v1/realtime?intent=transcription", bearer)
      #expect(plain == 400)
      #expect(body.contains("open a WebSocket to /v1/realtime?intent=transcription"))
      #expect(body.contains(#""type":"invalid_request_error""#))
      // A page the server does not allow: 403 before the upgrade, as on every endpoint.
      let evil = ["-H", "Origin: http://evil.example"]
      #expect(try status("/v1/realtime?intent=transcription", upgrade + bearer + evil).0 == 403)
      // Without the token, a plain GET is refused first.
      #expect(try status("/v1/realtime", []).0 == 401)
    }
  }
}
