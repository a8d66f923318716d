import Dependencies
import Testing

struct Request: Sendable, Equatable {
  var path: String
}

/// A client of the same shape as `SpeechClient`: a non-throwing endpoint with a default, an
/// endpoint that returns a stream, and a `Void` one; plus a throwing and an optional endpoint.
@DependencyClient
struct TranscriberClient: Sendable {
  enum Status: Equatable, Sendable { case notDetermined, authorized }

  var requestAuthorization: @Sendable () async -> Status = { .notDetermined }
  var startTask: @Sendable (Request) async throws -> AsyncThrowingStream<String, any Error>
  var finishTask: @Sendable () async -> Void
  var lastTranscript: @Sendable () -> String?
  var load: @Sendable (_ id: Int, _ name: String) throws -> [String]
  var label: String = "transcriber"
}

/// A client with a required non-closure property.
@DependencyClient
struct NamedClient {
  var name: String
  var greet: (String) -> String = { "Hello, \($0)" }
}

private func messages(_ issue: Issue) -> String {
  issue.comments.map(\.rawValue).joined()
}

@Suite struct DependencyClientTests {
  @Test func unimplementedThrowingEndpointReportsItsNameAndThrows() async {
    let client = TranscriberClient()
    await withKnownIssue {
      await #expect(throws: UnimplementedEndpoint("TranscriberClient.startTask")) {
        _ = try await client.startTask(Request(path: "a.wav"))
      }
    } matching: { issue in
      messages(issue).contains("'TranscriberClient.startTask'")
    }
  }

  @Test func unimplementedEndpointWithADefaultReportsAndReturnsTheDefault() async {
    let client = TranscriberClient()
    var status: TranscriberClient.Status?
    await withKnownIssue {
      status = await client.requestAuthorization()
    } matching: { issue in
      messages(issue).contains("'TranscriberClient.requestAuthorization'")
    }
    #expect(status == .notDetermined)
  }

  @Test func unimplementedVoidEndpointReports() async {
    let client = TranscriberClient()
    await withKnownIssue {
      await client.finishTask()
    } matching: { issue in
      messages(issue).contains("'TranscriberClient.finishTask'")
    }
  }

  @Test func unimplementedOptionalEndpointReportsAndReturnsNil() {
    let client = TranscriberClient()
    var transcript: String? = "not called"
    withKnownIssue {
      transcript = client.lastTranscript()
    } matching: { issue in
      messages(issue).contains("'TranscriberClient.lastTranscript'")
    }
    #expect(transcript == nil)
  }

  @Test func unimplementedEndpointWithSeveralArgumentsThrows() {
    let client = TranscriberClient()
    withKnownIssue {
      #expect(throws: UnimplementedEndpoint("TranscriberClient.load")) {
        _ = try client.load(1, "one")
      }
    }
  }

  @Test func overriddenEndpointsWorkAndReportNothing() async throws {
    var client = TranscriberClient(requestAuthorization: { .authorized })
    client.startTask = { request in
      AsyncThrowingStream { continuation in
        continuation.yield("heard \(request.path)")
        continuation.finish()
      }
    }
    #expect(await client.requestAuthorization() == .authorized)
    var heard: [String] = []
    for try await text in try await client.startTask(Request(path: "a.wav")) {
      heard.append(text)
    }
    #expect(heard == ["heard a.wav"])
    #expect(client.label == "transcriber")
  }

  @Test func initializerTakesEveryEndpointInOrder() async throws {
    let client = TranscriberClient(
      requestAuthorization: { .authorized },
      startTask: { _ in AsyncThrowingStream { $0.finish() } },
      finishTask: {},
      lastTranscript: { "last" },
      load: { id, name in ["\(id)", name] },
      label: "custom"
    )
    #expect(await client.requestAuthorization() == .authorized)
    await client.finishTask()
    #expect(client.lastTranscript() == "last")
    #expect(try client.load(2, "two") == ["2", "two"])
    #expect(client.label == "custom")
  }

  @Test func nonClosurePropertiesWithoutADefaultAreRequired() {
    let client = NamedClient(name: "blob")
    #expect(client.name == "blob")
    withKnownIssue {
      #expect(client.greet("you") == "Hello, you")
    } matching: { issue in
      messages(issue).contains("'NamedClient.greet'")
    }
  }

  @Test func overridingOneEndpointInWithDependenciesLeavesTheOthersUnimplemented() async {
    await withDependencies {
      $0.transcriberClient.requestAuthorization = { .authorized }
    } operation: {
      @Dependency(\.transcriberClient) var client
      #expect(await client.requestAuthorization() == .authorized)
      await withKnownIssue {
        await client.finishTask()
      }
    }
  }
}

extension TranscriberClient: TestDependencyKey {
  static let testValue = TranscriberClient()
}

extension DependencyValues {
  var transcriberClient: TranscriberClient {
    get { self[TranscriberClient.self] }
    set { self[TranscriberClient.self] = newValue }
  }
}

@DependencyClient
struct UserClient: Sendable {
  var fetch: @Sendable (_ id: Int, _ verbose: Bool) async throws -> String
}

@Suite struct DependencyClientLabeledEndpointTests {
  @Test func namedClosureParametersBecomeMethodLabels() async throws {
    let client = UserClient(fetch: { id, verbose in verbose ? "user \(id)!" : "user \(id)" })
    #expect(try await client.fetch(id: 1, verbose: true) == "user 1!")
    #expect(try await client.fetch(2, false) == "user 2")
  }
}

/// Exactly `SpeechClient`'s endpoint shapes: nothing throws, so each endpoint with a result
/// carries the default it returns after the failure is reported.
@DependencyClient
struct SpeechShapedClient: Sendable {
  var requestAuthorization: @Sendable () async -> TranscriberClient.Status = { .notDetermined }
  var startTask: @Sendable (Request) async -> AsyncThrowingStream<String, any Error> = { _ in
    AsyncThrowingStream { $0.finish(throwing: UnimplementedEndpoint("startTask")) }
  }
  var finishTask: @Sendable () async -> Void
}

@Suite struct SpeechShapedClientTests {
  @Test func unimplementedStreamEndpointReportsAndEndsItsStreamWithAnError() async {
    let client = SpeechShapedClient()
    await withKnownIssue {
      let stream = await client.startTask(Request(path: "mic"))
      await #expect(throws: UnimplementedEndpoint("startTask")) {
        for try await _ in stream {}
      }
    } matching: { issue in
      messages(issue).contains("'SpeechShapedClient.startTask'")
    }
  }

  @Test func storyOverridesOnlyWhatItUses() async {
    await withDependencies {
      $0.speechShaped.requestAuthorization = { .authorized }
    } operation: {
      @Dependency(\.speechShaped) var client
      #expect(await client.requestAuthorization() == .authorized)
    }
  }
}

extension SpeechShapedClient: TestDependencyKey {
  static let testValue = SpeechShapedClient()
}

extension DependencyValues {
  var speechShaped: SpeechShapedClient {
    get { self[SpeechShapedClient.self] }
    set { self[SpeechShapedClient.self] = newValue }
  }
}
