import SpeechClientLive
import Testing

@Suite struct FileBatchProgressTests {
  @Test func fractionIsTheDecodedPartOfAllTheAudio() {
    let progress = FileBatchProgress(
      finishedFiles: 1, fileCount: 3, decodedAudio: 30, totalAudio: 120)
    #expect(progress.fractionCompleted == 0.25)
  }

  @Test func fractionIsUnknownUntilTheTotalIsKnown() {
    let progress = FileBatchProgress(
      finishedFiles: 1, fileCount: 3, decodedAudio: 30, totalAudio: nil)
    #expect(progress.fractionCompleted == nil)
  }

  @Test func everyFileFinishedIsAllDoneWhateverTheLengthsSaid() {
    let progress = FileBatchProgress(
      finishedFiles: 2, fileCount: 2, decodedAudio: 3, totalAudio: 0)
    #expect(progress.fractionCompleted == 1)
  }

  @Test func fractionStaysWithinZeroAndOne() {
    let over = FileBatchProgress(finishedFiles: 0, fileCount: 2, decodedAudio: 50, totalAudio: 40)
    #expect(over.fractionCompleted == 1)
    let empty = FileBatchProgress(finishedFiles: 0, fileCount: 2, decodedAudio: 0, totalAudio: 0)
    #expect(empty.fractionCompleted == 0)
  }
}
