import Foundation
import Hummingbird
import Testing

@testable import TranscribeServer

@Suite struct OpenAIErrorTests {
  @Test func errorsHaveOpenAIsShapeWithNullsForMissingParamAndCode() throws {
    let response = OpenAIError.recognitionFailed("the decoder failed").response()
    #expect(response.status == .internalServerError)
    #expect(response.headers[.contentType] == "application/json")
    let body = OpenAIErrorBody(
      error: .init(
        message: "Recognition failed on the server: the decoder failed.", type: "server_error",
        param: nil, code: nil))
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let json = String(decoding: try encoder.encode(body), as: UTF8.self)
    #expect(json.contains(#""code":null"#))
    #expect(json.contains(#""param":null"#))
  }

  @Test(arguments: [
    (OpenAIError.unauthorized, 401),
    (.notMultipart(contentType: nil), 400),
    (.missingField("file"), 400),
    (.unreadableAudio(reason: "x"), 400),
    (.uploadTooLarge(limit: 1 << 20), 413),
    (.noCapacity(retryAfter: 1), 503),
    (.recognitionFailed("x"), 500),
  ])
  func eachErrorHasItsStatus(error: OpenAIError, status: Int) {
    #expect(error.response().status.code == status)
  }

  @Test func theSizeLimitIsNamedInMiBAndTheOptionThatSetsIt() {
    #expect(
      OpenAIError.uploadTooLarge(limit: 100 << 20).message
        == "The upload is larger than this server's limit of 100 MiB (serve --max-upload-mb).")
  }
}

extension OpenAIErrorTests {
  @Test func aReasonEndingInAPeriodGetsOnlyOne() {
    #expect(
      OpenAIError.unreadableAudio(reason: "Format not recognised.").message.hasSuffix(
        ": Format not recognised."))
    #expect(
      OpenAIError.recognitionFailed("the decoder failed").message
        == "Recognition failed on the server: the decoder failed.")
  }
}
