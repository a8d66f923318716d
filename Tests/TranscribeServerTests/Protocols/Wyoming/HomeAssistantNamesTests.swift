import Foundation
import Hummingbird
import HummingbirdTesting
import Logging
import NIOCore
import SpeechClient
import Synchronization
import Testing

@testable import TranscribeServer

/// Home Assistant's names over its REST API, from a local stand-in that answers as Home
/// Assistant does: `GET /api/states` and `POST /api/template`, with a bearer token.
struct HomeAssistantNamesTests {
  static let token = "long-lived-token"

  /// What the stand-in answers; tests change it between requests.
  final class StandIn: Sendable {
    let states = Mutex(
      #"""
      [{"entity_id": "light.kallax", "state": "on",
        "attributes": {"friendly_name": "Kallax lamp", "brightness": 120}},
       {"entity_id": "cover.velux", "state": "open",
        "attributes": {"friendly_name": "Velux skylight"}},
       {"entity_id": "sensor.kallax_power", "state": "4.2",
        "attributes": {"friendly_name": "Kallax lamp power"}},
       {"entity_id": "media_player.sonos", "state": "idle", "attributes": {}},
       {"entity_id": "switch.nanoleaf", "state": "off",
        "attributes": {"friendly_name": "Nanoleaf"}}]
      """#)
    /// The template's answer, or `nil` for Home Assistant's 400 (an older one without floors).
    let template = Mutex<String?>(
      #"{"areas": ["Siobhan's room", "Kitchen"], "floors": ["Upstairs"]}"#)
    let templates = Mutex<[String]>([])

    func router() -> Router<BasicRequestContext> {
      let router = Router()
      router.get("api/states") { request, _ -> Response in
        guard request.headers[.authorization] == "Bearer \(HomeAssistantNamesTests.token)" else {
          return Self.answer(.unauthorized, "401: Unauthorized")
        }
        return Self.answer(.ok, self.states.withLock { $0 })
      }
      router.post("api/template") { request, context -> Response in
        guard request.headers[.authorization] == "Bearer \(HomeAssistantNamesTests.token)" else {
          return Self.answer(.unauthorized, "401: Unauthorized")
        }
        let body = try await request.body.collect(upTo: 65_536)
        let object = try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: Any]
        self.templates.withLock { $0.append(object?["template"] as? String ?? "") }
        guard let answer = self.template.withLock({ $0 }) else {
          return Self.answer(.badRequest, #"{"message": "Error rendering template"}"#)
        }
        return Self.answer(.ok, answer)
      }
      return router
    }

    static func answer(_ status: HTTPResponse.Status, _ text: String) -> Response {
      Response(
        status: status, headers: [.contentType: "application/json"],
        body: .init(byteBuffer: ByteBuffer(string: text)))
    }
  }

  /// Runs the stand-in on a free port of 127.0.0.1 while `body` runs with its URL.
  static func withStandIn(
    _ standIn: StandIn, _ body: @escaping @Sendable (URL) async throws -> Void
  ) async throws {
    let app = Application(
      router: standIn.router(), configuration: .init(address: .hostname("127.0.0.1", port: 0)))
    try await app.test(.live) { client in
      let port = try #require(client.port)
      try await body(URL(string: "http://127.0.0.1:\(port)")!)
    }
  }

  @Test func theNamesAreAreasFloorsAndTheEntitiesPeopleCommand() async throws {
    let standIn = StandIn()
    try await Self.withStandIn(standIn) { url in
      let names = try await HomeAssistantNames(url: url, token: Self.token).fetch()
      // Sensors are not commanded; an entity without a friendly name gives none.
      #expect(
        names == [
          "Siobhan's room", "Kitchen", "Upstairs", "Kallax lamp", "Velux skylight", "Nanoleaf",
        ])
    }
    #expect(standIn.templates.withLock { $0 } == [HomeAssistantNames.namesTemplate])
  }

  @Test func withoutTemplatesTheEntitiesStillGiveTheirNames() async throws {
    let standIn = StandIn()
    standIn.template.withLock { $0 = nil }
    try await Self.withStandIn(standIn) { url in
      let names = try await HomeAssistantNames(url: url, token: Self.token).fetch()
      #expect(names == ["Kallax lamp", "Velux skylight", "Nanoleaf"])
    }
  }

  @Test func aRefusedTokenSaysWhereTheTokenGoes() async throws {
    try await Self.withStandIn(StandIn()) { url in
      await #expect {
        try await HomeAssistantNames(url: url, token: "wrong").fetch()
      } throws: { error in
        "\(error)".contains("refused the token (HTTP 401)")
          && "\(error)".contains("--hass-token-file")
      }
    }
  }

  @Test func aRefreshKeepsTheLastNamesAndWarnsWhenHomeAssistantIsGone() async throws {
    let standIn = StandIn()
    let source = HotwordSource()
    let recorder = LogRecorder()
    let logger = recorder.logger()
    var lastCount: Int?
    let gone = Mutex<URL?>(nil)
    try await Self.withStandIn(standIn) { url in
      var count: Int?
      await HomeAssistantNames(url: url, token: Self.token).refreshOnce(
        into: source, logger: logger, lastCount: &count)
      #expect(count == 6)
    }
    #expect(source.current.phrases.count == 6)
    // The stand-in has stopped: its port answers no more.
    try await Self.withStandIn(standIn) { url in
      gone.withLock { $0 = url }
    }
    let names = HomeAssistantNames(url: try #require(gone.withLock { $0 }), token: Self.token)
    await names.refreshOnce(into: source, logger: logger, lastCount: &lastCount)
    #expect(source.current.phrases.count == 6)
    let lines = recorder.lines
    #expect(lines.first?.level == .info)
    #expect(lines.first?.message.contains("6 names") == true)
    #expect(lines.last?.level == .warning)
    #expect(lines.last?.message.contains("could not read names; keeping 6") == true)
    #expect(lines.last?.message.contains("cannot be reached") == true)
  }

  @Test func aListPastTheLimitsIsCut() async throws {
    let standIn = StandIn()
    let many = (0...Hotwords.maximumCount).map {
      #"{"entity_id": "light.l\#($0)", "attributes": {"friendly_name": "Lamp \#($0)"}}"#
    }
    let long = String(repeating: "x", count: Hotwords.maximumLength + 1)
    standIn.states.withLock {
      $0 =
        "[" + many.joined(separator: ",")
        + #", {"entity_id": "light.long", "attributes": {"friendly_name": "\#(long)"}}]"#
    }
    try await Self.withStandIn(standIn) { url in
      let names = try await HomeAssistantNames(url: url, token: Self.token).fetch()
      #expect(names.count == Hotwords.maximumCount)
      #expect(Hotwords(names).problem == nil)
      #expect(names.first == "Siobhan's room")
    }
  }
}
