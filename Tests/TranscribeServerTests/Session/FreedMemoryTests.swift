import Testing

@testable import TranscribeServer

/// The trim after a session runs at most once per ``FreedMemory/interval``.
@Suite struct FreedMemoryTests {
  @Test func aTrimWithinTheIntervalOfTheLastIsSkipped() {
    // Far after any trim another test's session may have made.
    let start = ContinuousClock.now + .seconds(3600)
    #expect(FreedMemory.release(now: start))
    #expect(!FreedMemory.release(now: start + .milliseconds(500)))
    #expect(FreedMemory.release(now: start + FreedMemory.interval))
  }
}
