import Testing

@testable import AudioInput

struct ResamplerTests {
  @Test func resamplerKeepsTheDurationOfTheAudio() throws {
    let resampler = try Resampler(ratio: 16_000 / 44_100)
    var produced = 0
    for index in 0..<10 {
      produced += try resampler.process(
        [Float](repeating: 0.1, count: 4410), isLast: index == 9
      ).count
    }
    #expect(abs(produced - 16_000) <= 2)
  }
}
