import Foundation
import Hummingbird

/// OpenAI's REST API: `POST /v1/audio/transcriptions` and (with Whisper) `POST
/// /v1/audio/translations`, so OpenAI's SDKs work with `base_url` pointed at this server, and
/// `GET /v1/models`.
///
/// Each upload is streamed to a temporary file (mode 0600, in a directory of its own with mode
/// 0700 under ``temporaryDirectory``, both removed afterwards whatever happens) and recognized
/// by its own ``UploadSession`` store, as a `.file` source. The session core admits it: it
/// holds a place among the bodies being read, then a session place from the end of its body
/// to the answer; without one it is answered 503 with `Retry-After`. A client that closes the
/// connection cancels it at once, and it runs at most
/// ``ServerConfiguration/maxSessionDuration`` (then 503).
///
/// ```sh
/// curl -F file=@talk.wav -F response_format=srt http://127.0.0.1:2700/v1/audio/transcriptions
/// ```
struct OpenAIController: Sendable {
  let core: SessionCore
  /// Where uploads are written while they are decoded.
  var temporaryDirectory = FileManager.default.temporaryDirectory

  func addRoutes<Context: RequestContext>(to router: some RouterMethods<Context>) {
    let endpoint = OpenAITranscriptionEndpoint(core: core, temporaryDirectory: temporaryDirectory)
    router.post("v1/audio/transcriptions") { request, context in
      await endpoint.respond(to: request, from: RequestClient(context))
    }
    var translation = endpoint
    translation.task = .translate
    router.post("v1/audio/translations") { [translation] request, context in
      await translation.respond(to: request, from: RequestClient(context))
    }
    let models = OpenAIModelList(engines: core.configuration.engines)
    router.get("v1/models") { _, _ in
      models.response()
    }
  }
}
