import Foundation
import LiveTestSupport
import Testing

/// `--duration` on audio that is read rather than captured: the first N seconds of audio, the
/// same words as a copy of the input cut to N seconds gives, on every path (a file decoded in
/// parallel pieces, several files, standard input), and endless inputs stop too.
extension CommandTests {
  @Suite(.enabled(if: SpeechTestData.isInstalled, "needs pocketsphinx-testdata"))
  struct DurationCommandTests {
    /// Five LibriVox clips one after another (24.7 s), and the directory holding it.
    struct Speech {
      let directory: TemporaryDirectory
      let all: URL

      init() throws {
        directory = try TemporaryDirectory()
        all = directory.url.appendingPathComponent("all5.wav")
        let librivox = SpeechTestData.directory.appendingPathComponent("librivox")
        let clips = ["0870", "0880", "0890", "0920", "0930"].map {
          librivox.appendingPathComponent("sense_and_sensibility_01_austen_64kb-\($0).wav").path
        }
        try runSox(clips + [all.path])
      }

      /// The first `seconds` of the clips, as a file of its own.
      func cut(to seconds: Double) throws -> URL {
        let url = directory.url.appendingPathComponent("cut-\(seconds).wav")
        try runSox([all.path, url.path, "trim", "0", String(seconds)])
        return url
      }
    }

    /// The final JSON line of each file in `output`, in order.
    func finals(_ output: TranscribeProcess.Output) throws -> [[String: Any]] {
      try output.stdout.split(separator: "\n").compactMap { line in
        let object = try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any]
        return object?["type"] as? String == "final" ? object : nil
      }
    }

    /// The transcript of a file's final line, and where its last word ends.
    func transcript(_ final: [String: Any]) throws -> (text: String, end: Double) {
      (try #require(final["transcript"] as? String), try #require(final["end"] as? Double))
    }

    @Test(arguments: [2.0, 5, 20])
    func aFileGivesTheWordsOfItsFirstSeconds(seconds: Double) async throws {
      let speech = try Speech()
      let reference = try await TranscribeProcess.run([
        "-i", try speech.cut(to: seconds).path, "--format", "json",
      ])
      let limited = try await TranscribeProcess.run([
        "-i", speech.all.path, "--duration", String(seconds), "--format", "json",
      ])
      #expect(reference.status == 0, "stderr: \(reference.stderr)")
      #expect(limited.status == 0, "stderr: \(limited.stderr)")
      let expected = try transcript(try #require(try finals(reference).first))
      let got = try transcript(try #require(try finals(limited).first))
      #expect(!expected.text.isEmpty)
      #expect(got.text == expected.text)
      #expect(got.end <= seconds + 0.25)
    }

    @Test func everyFileOfSeveralIsCutAndStandardInputToo() async throws {
      let speech = try Speech()
      let reference = try await TranscribeProcess.run([
        "-i", try speech.cut(to: 5).path, "--format", "json",
      ])
      let expected = try transcript(try #require(try finals(reference).first)).text
      // Two files decoded at once by two decoders, then the same audio through a pipe.
      let files = try await TranscribeProcess.run([
        "-i", speech.all.path, "-i", speech.all.path, "--jobs", "2", "--duration", "5",
        "--format", "json",
      ])
      #expect(files.status == 0, "stderr: \(files.stderr)")
      #expect(try finals(files).map { try transcript($0).text } == [expected, expected])
      let piped = try await TranscribeProcess.run(
        [speech.all.path], shellScript: #"exec "$0" -i - --duration 5 --format json < "$1""#)
      #expect(piped.status == 0, "stderr: \(piped.stderr)")
      #expect(try finals(piped).map { try transcript($0).text } == [expected])
    }

    @Test(arguments: [
      #"exec "$0" -i - --raw --duration 2 < /dev/zero"#,
      #"exec "$0" -i /dev/zero --raw --duration 2"#,
    ])
    func anEndlessInputStopsAfterItsSeconds(command: String) async throws {
      let output = try await TranscribeProcess.run([], timeout: 30, shellScript: command)
      #expect(output.reason == .exit)
      #expect(output.status == 0, "stderr: \(output.stderr)")
      #expect(output.stdout.isEmpty)
    }
  }
}
