import Foundation
import Hummingbird
import SpeechClient

/// `GET /v1/models`: the engines this server runs, in the shape of OpenAI's model list, so an
/// SDK's `models.list()` shows what `model` may name in a transcription request.
///
/// ```json
/// {"object": "list", "data": [{"id": "moonshine", "object": "model", "created": 0,
///  "owned_by": "transcribe"}, …]}
/// ```
struct OpenAIModelList: Sendable {
  let engines: [SpeechRecognitionRequest.EngineName]

  struct Model: Encodable {
    var id: String
    var object = "model"
    var created = 0
    var ownedBy = "transcribe"

    enum CodingKeys: String, CodingKey {
      case id, object, created
      case ownedBy = "owned_by"
    }
  }

  struct List: Encodable {
    var object = "list"
    var data: [Model]
  }

  func response() -> Response {
    let list = List(data: engines.map { Model(id: $0.rawValue) })
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys]
    let body = (try? encoder.encode(list)) ?? Data("{}".utf8)
    return Response(
      status: .ok, headers: [.contentType: "application/json"],
      body: ResponseBody(byteBuffer: ByteBuffer(bytes: body)))
  }
}
