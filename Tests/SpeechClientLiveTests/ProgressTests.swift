import Foundation
import LiveTestSupport
import SpeechClient
import Testing

@testable import SpeechClientLive

extension LiveTests {
  @Suite(.enabled(if: TestData.isInstalled, "needs pocketsphinx-testdata and pocketsphinx-en-us"))
  struct ProgressTests {
    @Test func aFilesResultsReportAudioTimeGrowingToItsLength() async throws {
      let outcome = await transcribe(.rawFile(TestData.goForward))
      #expect(outcome.error == nil)
      let progress = outcome.results.compactMap(\.progress)
      #expect(progress.count == outcome.results.count)
      // goforward.raw holds 89,160 bytes: 44,580 samples, 2.786 s at 16 kHz.
      #expect(progress.allSatisfy { $0.totalAudioDuration == 2.786_25 })
      let positions = progress.map(\.audioDuration)
      #expect(positions == positions.sorted())
      // Reported at least every quarter second of audio, so a host can follow and cut a file.
      #expect(positions.count >= 10)
      #expect(outcome.last?.progress?.fractionCompleted == 1)
    }
  }
}
