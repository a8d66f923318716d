import Logging
import Testing

@testable import TranscribeServer

@Suite struct PreparationServiceTests {
  @Test func successfulPrepareMarksTheServerPrepared() async {
    let readiness = ServerReadiness()
    let service = PreparationService(
      prepare: {}, readiness: readiness, logger: Logger(label: "test"))
    #expect(readiness.state == .preparing)
    await service.prepareOnce()
    #expect(readiness.state == .prepared)
    #expect(readiness.isPrepared)
  }

  @Test func failingPrepareIsRecordedWithItsError() async {
    enum LoadError: Error, CustomStringConvertible {
      case missingModel(String)
      var description: String {
        switch self {
        case .missingModel(let path): "no model at \(path)"
        }
      }
    }
    let readiness = ServerReadiness()
    let service = PreparationService(
      prepare: { throw LoadError.missingModel("/nonexistent") }, readiness: readiness,
      logger: Logger(label: "test"))
    await service.prepareOnce()
    #expect(readiness.state == .failed("no model at /nonexistent"))
    #expect(!readiness.isPrepared)
  }

  @Test func cancelledPrepareLeavesTheServerPreparing() async {
    let readiness = ServerReadiness()
    let service = PreparationService(
      prepare: { throw CancellationError() }, readiness: readiness, logger: Logger(label: "test"))
    await service.prepareOnce()
    #expect(readiness.state == .preparing)
  }
}

extension PreparationServiceTests {
  @Test func serverPreparedBeforeItStartedIsNotPreparedAgain() async {
    let readiness = ServerReadiness()
    readiness.finishPreparing(with: .success(()))
    let service = PreparationService(
      prepare: { Issue.record("prepare ran a second time") }, readiness: readiness,
      logger: Logger(label: "test"))
    await service.prepareOnce()
    #expect(readiness.state == .prepared)
  }
}
