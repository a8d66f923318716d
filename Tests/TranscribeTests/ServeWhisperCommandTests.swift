import Foundation
import LiveTestSupport
import Testing

/// `transcribe serve` with Whisper installed, driven by the official `openai` Python package:
/// a German upload in German, its translation into English, and `/v1/models` listing Whisper.
extension CommandTests {
  @Suite(
    .enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"),
    .enabled(
      if: PythonClient.canImport("openai"),
      "needs python3 with openai (scripts/install-dependencies.sh)"))
  struct ServeWhisperCommandTests {
    static let clientScript = """
      import json, sys, time, urllib.request
      from openai import OpenAI, BadRequestError

      base, german, good_morning = sys.argv[1], sys.argv[2], sys.argv[3]
      deadline = time.time() + 60
      while True:
          try:
              urllib.request.urlopen(base + "/healthz", timeout=2).read()
              break
          except Exception:
              if time.time() > deadline:
                  raise
              time.sleep(0.2)
      client = OpenAI(base_url=base + "/v1", api_key="unused", timeout=300)
      answers = {"models": [model.id for model in client.models.list()]}
      with open(german, "rb") as audio:
          verbose = client.audio.transcriptions.create(
              model="whisper-1", file=audio, language="de", response_format="verbose_json")
      answers["german"] = {"text": verbose.text, "language": verbose.language}
      with open(german, "rb") as audio:
          detected = client.audio.transcriptions.create(
              model="whisper-1", file=audio, language="auto", response_format="verbose_json")
      answers["auto"] = {"text": detected.text, "language": detected.language}
      with open(good_morning, "rb") as audio:
          translation = client.audio.translations.create(
              model="whisper-1", file=audio, response_format="verbose_json")
      answers["translation"] = {"text": translation.text, "task": translation.task}
      try:
          with open(german, "rb") as audio:
              client.audio.transcriptions.create(model="whisper-1", file=audio, language="xx")
          answers["unknown"] = None
      except BadRequestError as error:
          answers["unknown"] = error.status_code
      print(json.dumps(answers))
      """

    @Test func serveLanguageIsTheLanguageOfUploadsThatNameNone() async throws {
      let directory = try TemporaryDirectory()
      let german = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
      let server = try await ServeProcess(
        ["--language", "de"], environment: ["TRANSCRIBE_ENGINE": ""])
      defer { server.kill() }
      let output = try runCommand(
        "/usr/bin/curl",
        [
          "-sS", "-F", "file=@\(german.path)", "-F", "response_format=verbose_json",
          server.baseURL + "/v1/audio/transcriptions",
        ])
      let verbose = try #require(
        try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any], "\(output)")
      #expect(verbose["language"] as? String == "german")
      let words = WhisperTestData.words(verbose["text"] as? String ?? "")
      for word in WhisperTestData.german.words {
        #expect(words.contains(word), "\(word) in \(words)")
      }
      _ = await server.stop()
    }

    @Test func theOpenAISDKTranscribesGermanAndTranslatesIt() async throws {
      let directory = try TemporaryDirectory()
      let german = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
      let goodMorning = try WhisperTestData.spoken(
        WhisperTestData.Sentence(
          language: "de", text: "Guten Morgen, ich trinke gerne Kaffee.", words: []),
        in: directory.url, name: "good-morning")
      let server = try await ServeProcess([], environment: ["TRANSCRIBE_ENGINE": ""])
      defer { server.kill() }
      let script = directory.url.appendingPathComponent("openai_whisper.py")
      try Self.clientScript.write(to: script, atomically: true, encoding: .utf8)
      let output = try runCommand(
        "/usr/bin/env", ["python3", script.path, server.baseURL, german.path, goodMorning.path])
      let answers = try #require(
        try JSONSerialization.jsonObject(with: Data(output.utf8)) as? [String: Any])
      let models = try #require(answers["models"] as? [String])
      #expect(models.contains("whisper"), "\(models)")
      let transcript = try #require(answers["german"] as? [String: Any])
      #expect(transcript["language"] as? String == "german")
      let words = WhisperTestData.words(transcript["text"] as? String ?? "")
      for word in WhisperTestData.german.words {
        #expect(words.contains(word), "\(word) in \(words)")
      }
      // With `auto`, verbose_json names the language detected.
      let detected = try #require(answers["auto"] as? [String: Any])
      #expect(detected["language"] as? String == "german")
      #expect(WhisperTestData.words(detected["text"] as? String ?? "").contains("tisch"))
      let translation = try #require(answers["translation"] as? [String: Any])
      #expect(translation["task"] as? String == "translate")
      let english = WhisperTestData.words(translation["text"] as? String ?? "")
      #expect(english.contains("good") && english.contains("morning"), "\(english)")
      #expect(answers["unknown"] as? Int == 400)
      _ = await server.stop()
    }
  }
}

extension CommandTests.ServeWyomingCommandTests {
  /// Home Assistant's sequence with a German pipeline (`transcribe` with `language: de`), by
  /// the `wyoming` package: Whisper hears it, and `describe` lists Whisper with its languages.
  @Test(.enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"))
  func aGermanPipelineIsHeardByWhisper() async throws {
    let directory = try TemporaryDirectory()
    let german = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url, silence: 1)
    let server = try await WyomingServer(environment: ["TRANSCRIBE_ENGINE": ""])
    let describe = try await PythonClient.run("wyoming_client.py", [server.uri, "describe"])
    let client = try await PythonClient.run(
      "wyoming_client.py", [server.uri, "transcribe", german.path, "--language", "de"])
    let klingon = try await PythonClient.run(
      "wyoming_client.py", [server.uri, "transcribe", german.path, "--language", "tlh"])
    let output = await server.terminate()
    #expect(client.status == 0, "\(client.stderr)")
    let words = WhisperTestData.words(Self.transcript(Self.events(client.stdout)) ?? "")
    for word in WhisperTestData.german.words {
      #expect(words.contains(word), "\(word) in \(client.stdout)")
    }
    // The transcript says the language it was asked for.
    let transcript = Self.events(client.stdout).last { $0["type"] as? String == "transcript" }
    #expect((transcript?["data"] as? [String: Any])?["language"] as? String == "de")
    // A language no model speaks is refused with Wyoming's error.
    #expect(klingon.stdout.contains("unsupported-language"), "\(klingon.stdout)")

    let info = try #require(Self.events(describe.stdout).first)
    let programs = (info["data"] as? [String: Any])?["asr"] as? [[String: Any]]
    let models = try #require(programs?.first?["models"] as? [[String: Any]])
    let whisper = try #require(models.first { $0["name"] as? String == "whisper-base" })
    let languages = whisper["languages"] as? [String] ?? []
    #expect(languages.contains("de") && languages.contains("fr") && languages.count >= 99)
    let moonshine = models.first { $0["name"] as? String == "moonshine-base-en" }
    #expect(moonshine == nil || moonshine?["languages"] as? [String] == ["en"])
    #expect(output.status == 0, "\(output.stderr)")
  }
}

extension CommandTests.ServeRealtimeCommandTests {
  /// A Realtime transcription session whose `input_audio_transcription.language` is German,
  /// by the `openai` SDK's realtime client: Whisper hears it.
  @Test(
    .enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"),
    .enabled(
      if: PythonClient.canImport("openai") && PythonClient.canImport("websockets"),
      "needs python3 with openai and websockets (scripts/install-dependencies.sh)"))
  func aGermanSessionIsHeardByWhisper() async throws {
    let directory = try TemporaryDirectory()
    let german = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
    let server = try await ServeProcess([], environment: ["TRANSCRIBE_ENGINE": ""])
    defer { server.kill() }
    let answer = try await Self.client([
      server.baseURL, german.path, "--client", "sdk", "--language", "de",
    ])
    #expect(answer["exception"] == nil, "\(answer)")
    let completed = Self.events(
      answer, "conversation.item.input_audio_transcription.completed")
    let text = completed.compactMap { $0["transcript"] as? String }.joined(separator: " ")
    let words = WhisperTestData.words(text)
    for word in WhisperTestData.german.words {
      #expect(words.contains(word), "\(word) in \(answer)")
    }
    // A language Whisper does not know is refused in session.update.
    let refused = try await Self.client([
      server.baseURL, german.path, "--client", "raw", "--language", "tlh",
    ])
    let errors = Self.events(refused, "error")
    #expect(
      errors.contains {
        ($0["error"] as? [String: Any])?["param"] as? String
          == "session.audio.input.transcription.language"
      }, "\(refused)")
  }

  /// A vosk stream whose `config` names German (ours, not vosk-server's) is heard by Whisper;
  /// a language Whisper does not know ends the stream with an error that names the field.
  @Test(
    .enabled(if: WhisperTestData.testsRun, "needs Whisper (install-dependencies.sh --whisper)"),
    .enabled(
      if: PythonClient.hasModule("websockets"), "needs python3's websockets (for the vosk client)"))
  func aGermanVoskStreamIsHeardByWhisper() async throws {
    let directory = try TemporaryDirectory()
    let german = try WhisperTestData.spoken(WhisperTestData.german, in: directory.url)
    let server = try await ServeProcess([], environment: ["TRANSCRIBE_ENGINE": ""])
    defer { server.kill() }
    let client = try await PythonClient.run(
      "vosk_client.py", [server.webSocketURL, german.path, "--language", "de"])
    #expect(client.status == 0, "client stderr: \(client.stderr)")
    let replies = CommandTests.ServeWebSocketCommandTests.replies(client.stdout)
    let text = replies.compactMap { $0["text"] as? String }.joined(separator: " ")
    let words = WhisperTestData.words(text)
    for word in WhisperTestData.german.words {
      #expect(words.contains(word), "\(word) in \(client.stdout)")
    }
    let refused = try await PythonClient.run(
      "vosk_client.py", [server.webSocketURL, german.path, "--language", "tlh"])
    let close = CommandTests.ServeWebSocketCommandTests.replies(refused.stdout).last
    #expect(close?["close"] as? Int == 1007, "\(refused.stdout)")
    let reason = close?["reason"] as? String
    #expect(reason?.contains("language") == true, "\(refused.stdout)")
  }
}
