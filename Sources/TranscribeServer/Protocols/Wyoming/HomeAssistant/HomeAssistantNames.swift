import Foundation
import Logging
import SpeechClient

#if canImport(FoundationNetworking)
  import FoundationNetworking
#endif

/// The names people say to Home Assistant, read from its REST API: the friendly names of the
/// entities they command (lights, switches, covers, media players, …), and the names of its
/// areas and floors. `transcribe serve --hass-url URL --hass-token-file FILE` makes them
/// hotwords every Moonshine stream and upload favours.
///
/// - `GET /api/states` lists every entity; those of ``spokenDomains`` give their
///   `attributes.friendly_name`.
/// - `POST /api/template` renders ``namesTemplate``: a JSON object with the areas' and floors'
///   names (`areas()`, `floors()`, Home Assistant 2024.4 and later). A Home Assistant that cannot
///   render it (older, or a template error) still gives its entities' names.
///
/// Both requests carry `Authorization: Bearer TOKEN` (a long-lived access token from the
/// user's profile page).
public struct HomeAssistantNames: Sendable {
  /// Home Assistant's base URL, e.g. `http://homeassistant.local:8123`.
  public var url: URL
  /// A long-lived access token.
  public var token: String
  /// How long a request may take.
  public var timeout = ServerConfiguration.homeAssistantRequestTimeout

  /// How often the names are read again.
  public static let refreshInterval = ServerConfiguration.homeAssistantRefreshInterval
  /// The entity domains whose names people say in commands.
  public static let spokenDomains: Set<String> = [
    "alarm_control_panel", "button", "camera", "climate", "cover", "fan", "humidifier",
    "input_boolean", "input_button", "lawn_mower", "light", "lock", "media_player", "person",
    "scene", "script", "siren", "switch", "todo", "vacuum", "valve", "water_heater", "zone",
  ]
  /// The template that gives the areas' and floors' names.
  public static let namesTemplate =
    #"{{ {"areas": areas() | map("area_name") | list, "#
    + #""floors": floors() | map("floor_name") | list} | tojson }}"#

  public init(url: URL, token: String) {
    self.url = url
    self.token = token
  }

  /// Why the names could not be read.
  public struct Failure: Error, Equatable, Sendable, CustomStringConvertible {
    public var description: String
  }

  /// Reads the names: areas, then floors, then entities, without repeats, within the limits of
  /// hotwords (the first ``Hotwords/maximumCount``, each at most ``Hotwords/maximumLength``
  /// characters).
  ///
  /// - Throws: ``Failure`` saying what went wrong (unreachable, refused token, not Home
  ///   Assistant's answer) when the entities cannot be read.
  public func fetch(session: URLSession = .shared) async throws(Failure) -> [String] {
    let states = try await request("api/states", session: session)
    guard let entities = try? JSONSerialization.jsonObject(with: states) as? [[String: Any]]
    else {
      throw Failure(description: "\(endpoint("api/states")) did not answer with a list of states")
    }
    var names: [String] = []
    if let rendered = try? await request(
      "api/template", body: ["template": Self.namesTemplate], session: session),
      let object = try? JSONSerialization.jsonObject(with: rendered) as? [String: Any]
    {
      for key in ["areas", "floors"] {
        names += (object[key] as? [Any] ?? []).compactMap { $0 as? String }
      }
    }
    for entity in entities {
      guard let id = entity["entity_id"] as? String,
        let domain = id.split(separator: ".").first, Self.spokenDomains.contains(String(domain)),
        let attributes = entity["attributes"] as? [String: Any],
        let name = attributes["friendly_name"] as? String
      else { continue }
      names.append(name)
    }
    let usable = Hotwords.cleaned(names).filter { $0.count <= Hotwords.maximumLength }
    return Array(usable.prefix(Hotwords.maximumCount))
  }

  private func endpoint(_ path: String) -> URL {
    url.appendingPathComponent(path)
  }

  private func request(
    _ path: String, body: [String: String]? = nil, session: URLSession
  ) async throws(Failure) -> Data {
    var request = URLRequest(url: endpoint(path), timeoutInterval: timeout)
    request.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
    if let body {
      request.httpMethod = "POST"
      request.setValue("application/json", forHTTPHeaderField: "Content-Type")
      request.httpBody = try? JSONSerialization.data(withJSONObject: body)
    }
    let data: Data
    let response: URLResponse
    do {
      (data, response) = try await session.data(for: request)
    } catch {
      throw Failure(
        description: "\(endpoint(path)) cannot be reached: \(error.localizedDescription)")
    }
    let status = (response as? HTTPURLResponse)?.statusCode ?? 0
    switch status {
    case 200..<300: return data
    case 401, 403:
      throw Failure(
        description: "\(endpoint(path)) refused the token (HTTP \(status)): put a long-lived "
          + "access token from Home Assistant's profile page into --hass-token-file")
    default:
      throw Failure(description: "\(endpoint(path)) answered HTTP \(status)")
    }
  }

  /// Reads the names now and every ``refreshInterval`` on `clock` until cancelled (see
  /// ``refreshOnce(into:logger:lastCount:session:)``).
  public func refresh(
    into source: HotwordSource, logger: Logger, clock: any Clock<Duration> = ContinuousClock(),
    session: URLSession = .shared
  ) async {
    var lastCount: Int?
    while !Task.isCancelled {
      await refreshOnce(into: source, logger: logger, lastCount: &lastCount, session: session)
      do {
        try await clock.sleep(for: Self.refreshInterval)
      } catch {
        return
      }
    }
  }

  /// Reads the names once into `source`, logging how many there are when that changed from
  /// `lastCount`. A failure is logged as a warning and changes nothing: streams keep the names
  /// read last (none, before the first success), and the next round tries again.
  public func refreshOnce(
    into source: HotwordSource, logger: Logger, lastCount: inout Int?,
    session: URLSession = .shared
  ) async {
    do {
      let names = try await fetch(session: session)
      source.current = Hotwords(names)
      if names.count != lastCount {
        logger.info(
          "home assistant: \(names.count) names of entities, areas and floors are hotwords",
          metadata: ["url": "\(url)"])
      }
      lastCount = names.count
    } catch {
      let kept = source.current.phrases.count
      let wait = Self.refreshInterval.components.seconds
      logger.warning(
        "home assistant: could not read names; keeping \(kept), trying again in \(wait) s: \(error)"
      )
    }
  }
}
