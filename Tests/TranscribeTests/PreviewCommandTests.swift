import Foundation
import SpeechClient
import Testing

extension CommandTests {
  @Suite struct PreviewCommandTests {
    @Test func previewWithDurationPrintsLoremWordsAndExitsZero() async throws {
      let output = try await TranscribeProcess.run(["--preview", "--duration", "2"], timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let words = output.stdout.split(whereSeparator: \.isWhitespace).map(String.init)
      #expect(words.count >= 2)
      #expect(Array(words.prefix(2)) == ["lorem", "ipsum"])
      #expect(words.allSatisfy { SpeechClient.loremWords.contains($0) })
      // Into a pipe only transcript lines go to standard output: no status, no escape codes.
      #expect(!output.stdout.contains("\u{1B}"))
      #expect(!output.stdout.contains("Listening"))
    }

    @Test func jsonLinesParseAndEndWithTheFinalTranscript() async throws {
      let output = try await TranscribeProcess.run(
        ["--preview", "--duration", "4", "--format", "json"], timeout: 30)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      let lines = output.stdout.split(separator: "\n").map(String.init)
      #expect(lines.count >= 2)
      var objects: [[String: Any]] = []
      for line in lines {
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        objects.append(try #require(object))
      }
      let first = objects[0]
      #expect(first["type"] as? String == "utterance")
      #expect((first["text"] as? String)?.hasPrefix("lorem ipsum") == true)
      let segments = try #require(first["segments"] as? [[String: Any]])
      #expect(segments.count == SpeechClient.loremUtteranceLength)
      #expect(segments.first?["word"] as? String == "lorem")
      #expect(segments.first?["start"] as? Double == 0)
      let last = try #require(objects.last)
      #expect(last["type"] as? String == "final")
      #expect(last["isFinal"] as? Bool == true)
      #expect((last["transcript"] as? String)?.hasPrefix("lorem ipsum dolor") == true)
    }

    @Test func sigintDuringPreviewExitsZeroWithTheWordsSoFar() async throws {
      let process = TranscribeProcess(["--preview"])
      try process.start()
      #expect(await process.waitForOutput(timeout: 30) { $0.contains("lorem") })
      #expect(process.process.isRunning)
      kill(process.process.processIdentifier, SIGINT)
      let output = await process.wait(timeout: 15)
      #expect(output.reason == .exit)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.hasPrefix("lorem ipsum"))
    }

    @Test func sigtermStopsGracefullyToo() async throws {
      let process = TranscribeProcess(["--preview", "--format", "json"])
      try process.start()
      #expect(await process.waitForOutput(timeout: 30) { $0.contains("lorem") })
      process.process.terminate()
      let output = await process.wait(timeout: 15)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.contains(#""type":"final""#))
    }

    @Test func helpExplainsOptionsWithExamples() async throws {
      let output = try await TranscribeProcess.run(["--help"], timeout: 30)
      #expect(output.status == 0)
      for option in [
        "--preview", "--input", "--format", "--duration", "--device", "--list-devices",
        "--grammar", "--keyphrase", "--hmm", "--lm", "--dict", "--version", "EXAMPLES",
        "EXIT STATUS",
      ] {
        #expect(output.stdout.contains(option), "help lacks \(option)")
      }
    }

    @Test func versionPrintsTheVersion() async throws {
      let output = try await TranscribeProcess.run(["--version"], timeout: 30)
      #expect(output.status == 0)
      #expect(output.stdout.contains("transcribe"))
    }

    @Test func badUsageIsOneClearErrorWithTheUsageStatus() async throws {
      let output = try await TranscribeProcess.run(["--duration=-3", "--preview"], timeout: 30)
      #expect(output.status == 64)
      #expect(output.stderr.contains("--duration must be a positive number"))
    }
  }
}
