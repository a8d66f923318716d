import Foundation
import Synchronization
import Testing

@testable import Moonshine

/// The decode log (`TRANSCRIBE_LOG_DECODES=1`): one line per transcription, in the form
/// `Benchmarks/partials/decodes.sh` reads.
struct DecodeLogTests {
  @Test func aLineNamesTheLookTheAudioAndBothTimes() {
    #expect(
      DecodeLog.line(.judgeLate, audioSeconds: 4.82, cpuSeconds: 0.1914, wallSeconds: 0.6426)
        == "transcribe: decode judge-late 4.820 s of audio: 0.191 s CPU, 0.643 s wall\n")
  }

  @Test func theLooksHaveTheNamesTheScriptSums() {
    #expect(
      DecodeLog.Look.allCases.map(\.rawValue)
        == ["partial", "early", "pause", "judge-early", "judge-late", "final", "piece"])
  }

  @Test func aMeasuredTranscriptionIsLoggedWithTheCPUTimeItsThreadSpent() throws {
    let lines = Mutex<[String]>([])
    let result = DecodeLog.measure(
      .partial, samples: 8_000,
      log: { line in
        lines.withLock { $0.append(line) }
      }
    ) {
      // About 20 ms of work on this thread.
      let start = DecodeLog.threadCPUSeconds()
      var sum = 0.0
      while DecodeLog.threadCPUSeconds() - start < 0.02 { sum += 1 }
      return sum > 0 ? "done" : "never"
    }
    #expect(result == "done")
    let line = try #require(lines.withLock { $0 }.first)
    #expect(line.hasPrefix("transcribe: decode partial 0.500 s of audio: "))
    let fields = line.split(separator: " ")
    let cpu = try #require(Double(fields[7]))
    let wall = try #require(Double(fields[10]))
    #expect(cpu >= 0.02)
    #expect(wall >= 0.02)
  }

  @Test func aTranscriptionThatWaitsSpendsWallTimeNotCPUTime() throws {
    let lines = Mutex<[String]>([])
    DecodeLog.measure(.early, samples: 16_000, log: { line in lines.withLock { $0.append(line) } })
    {
      Thread.sleep(forTimeInterval: 0.05)
    }
    let fields = try #require(lines.withLock { $0 }.first).split(separator: " ")
    let cpu = try #require(Double(fields[7]))
    let wall = try #require(Double(fields[10]))
    #expect(cpu < 0.02)
    #expect(wall >= 0.05)
  }

  @Test func withoutALogResultsAndFailuresPassThrough() {
    struct Failure: Error, Equatable {}
    #expect(throws: Failure()) {
      try DecodeLog.measure(.final, samples: 1, log: nil) { () throws(Failure) in
        throw Failure()
      }
    }
    #expect(DecodeLog.measure(.piece, samples: 1, log: nil) { 7 } == 7)
  }
}
