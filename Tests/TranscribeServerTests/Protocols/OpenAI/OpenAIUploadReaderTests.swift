import Foundation
import Hummingbird
import Synchronization
import Testing

@testable import TranscribeServer

@Suite struct OpenAIUploadReaderTests {
  /// An endless body that counts the chunks it handed out.
  struct EndlessBody: AsyncSequence, Sendable {
    let served: Counter
    let chunk: ByteBuffer

    struct AsyncIterator: AsyncIteratorProtocol {
      let served: Counter
      let chunk: ByteBuffer
      func next() async throws -> ByteBuffer? {
        served.increment()
        return chunk
      }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(served: served, chunk: chunk)
    }
  }

  final class Counter: Sendable {
    private let value = Mutex(0)
    func increment() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
  }

  struct Chunks: AsyncSequence, Sendable {
    var buffers: [ByteBuffer]

    struct AsyncIterator: AsyncIteratorProtocol {
      var remaining: ArraySlice<ByteBuffer>
      mutating func next() async throws -> ByteBuffer? { remaining.popFirst() }
    }

    func makeAsyncIterator() -> AsyncIterator {
      AsyncIterator(remaining: buffers[...])
    }
  }

  func temporaryFile() -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("reader-test-\(UUID())")
  }

  /// Reads `bytes` as one upload body and returns the problem it was refused for.
  func refusal(_ bytes: [UInt8]) async -> OpenAIError? {
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    do {
      _ = try await OpenAIUploadReader(limit: 100 << 20).read(
        Chunks(buffers: [ByteBuffer(bytes: bytes)]), boundary: MultipartBody.boundary,
        into: file)
      return nil
    } catch {
      return error
    }
  }

  @Test(arguments: [[0x63, 0x61, 0x66, 0xE9] as [UInt8], [0xFF]])
  func aFileNameThatIsNotUTF8SaysThePartsHeaderCannotBeRead(name: [UInt8]) async {
    // A Latin-1 `café.wav`, or a byte that is never UTF-8, in the file part's header.
    var bytes = Array(
      "--\(MultipartBody.boundary)\r\nContent-Disposition: form-data; name=\"file\"; filename=\""
        .utf8)
    bytes += name + Array(".wav\"\r\nContent-Type: audio/wav\r\n\r\n".utf8)
    bytes += Array(repeating: 0x41, count: 100_000)
    bytes += Array("\r\n--\(MultipartBody.boundary)--\r\n".utf8)
    guard case .malformedMultipart(let problem) = await refusal(bytes) else {
      Issue.record("not refused as malformed")
      return
    }
    #expect(problem.contains("Content-Disposition header cannot be read"), "\(problem)")
    #expect(problem.contains("UTF-8"))
  }

  @Test func theBoundaryInsideTheFileIsNamed() async {
    var body = MultipartBody()
    body.file(Array("RIFF....\r\n--\(MultipartBody.boundary)junk and more audio".utf8))
    guard
      case .malformedMultipart(let problem) = await refusal(Array(body.buffer.readableBytesView))
    else {
      Issue.record("not refused as malformed")
      return
    }
    #expect(
      problem.contains("the `file` part contains the boundary `--\(MultipartBody.boundary)`"),
      "\(problem)")
  }

  @Test func aMalformedBoundaryLineOutsideTheFileSaysSo() async {
    var body = MultipartBody()
    body.field("model", "whisper-1")
    // After the text field, a boundary followed by junk instead of a line end or `--`.
    let bytes = body.bytes + Array("--\(MultipartBody.boundary)junk\r\n".utf8)
    guard case .malformedMultipart(let problem) = await refusal(bytes) else {
      Issue.record("not refused as malformed")
      return
    }
    #expect(problem.contains("not valid multipart/form-data"), "\(problem)")
  }

  @Test func anEndlessBodyIsCutOffOnceItPassesTheLimit() async throws {
    var body = MultipartBody()
    body.file(Array(repeating: 65, count: 10))
    let head = body.bytes
    let served = Counter()
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    // 1 KiB chunks of file data that never end.
    let endless = EndlessBody(
      served: served, chunk: ByteBuffer(bytes: Array(repeating: 66, count: 1024)))
    let prefixed = Prefixed(head: ByteBuffer(bytes: head), rest: endless)
    await #expect(throws: OpenAIError.uploadTooLarge(limit: 64 << 10)) {
      try await OpenAIUploadReader(limit: 64 << 10).read(
        prefixed, boundary: MultipartBody.boundary, into: file)
    }
    #expect(served.count <= 65)
  }

  @Test func aHeaderLineThatNeverEndsIsMalformedAfter16KiB() async throws {
    let head = Array(
      "--\(MultipartBody.boundary)\r\nContent-Disposition: form-data; name=\"file\"; x=\"".utf8)
    let served = Counter()
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    // 1 KiB chunks of one header value that never ends, under a 100 MiB upload limit.
    let endless = EndlessBody(
      served: served, chunk: ByteBuffer(bytes: Array(repeating: 97, count: 1024)))
    let prefixed = Prefixed(head: ByteBuffer(bytes: head), rest: endless)
    await #expect(throws: OpenAIError.self) {
      try await OpenAIUploadReader(limit: 100 << 20).read(
        prefixed, boundary: MultipartBody.boundary, into: file)
    }
    #expect(served.count <= 18)
    do {
      _ = try await OpenAIUploadReader(limit: 100 << 20).read(
        Prefixed(head: ByteBuffer(bytes: head), rest: endless), boundary: MultipartBody.boundary,
        into: file)
    } catch {
      #expect(error.status == .badRequest)
      #expect(error.message.contains("16 KiB"))
    }
  }

  @Test func manyHeadersOverOnePartAreMalformed() async throws {
    var text = "--\(MultipartBody.boundary)\r\n"
    for index in 0..<2_000 { text += "X-Padding-\(index): some value\r\n" }
    text += "Content-Disposition: form-data; name=\"file\"\r\n\r\nAUDIO go\r\n"
    text += "--\(MultipartBody.boundary)--\r\n"
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    await #expect(throws: OpenAIError.malformedMultipart("a part's headers are longer than 16 KiB"))
    {
      try await OpenAIUploadReader(limit: 100 << 20).read(
        Chunks(buffers: [ByteBuffer(string: text)]), boundary: MultipartBody.boundary, into: file)
    }
  }

  @Test func partsSplitAcrossChunksAreReassembled() async throws {
    var body = MultipartBody()
    body.field("response_format", "srt")
    body.file(Array("AUDIO hello".utf8))
    body.field("model", "whisper-1")
    let bytes = Array(body.buffer.readableBytesView)
    // Three-byte chunks cut through every boundary and header.
    let chunks = stride(from: 0, to: bytes.count, by: 3).map {
      ByteBuffer(bytes: bytes[$0..<min($0 + 3, bytes.count)])
    }
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let upload = try await OpenAIUploadReader(limit: 1 << 20).read(
      Chunks(buffers: chunks), boundary: MultipartBody.boundary, into: file)
    #expect(upload.hasFile)
    #expect(upload.fileBytes == 11)
    #expect(upload.fields == ["response_format": ["srt"], "model": ["whisper-1"]])
    #expect(FileManager.default.contents(atPath: file.path) == Data("AUDIO hello".utf8))
  }

  @Test func aFileFullOfBoundaryLookalikesIsWrittenByteForByte() async throws {
    // Pieces of the boundary ("\r\n--" and its first letters) reach the reader a few bytes at
    // a time; collected before they are written, they must come out whole and in order.
    let prefix = Array("\r\n--\(MultipartBody.boundary)".utf8)
    var audio: [UInt8] = []
    for index in 0..<50_000 {
      audio += Array("\r\n-".utf8) + Array(prefix.prefix(2 + index % (prefix.count - 2)))
      // Never a letter of the boundary, so no lookalike completes it.
      audio.append(UInt8(128 + index % 100))
    }
    var body = MultipartBody()
    body.file(audio)
    body.field("model", "whisper-1")
    let bytes = Array(body.buffer.readableBytesView)
    let chunks = stride(from: 0, to: bytes.count, by: 65_536).map {
      ByteBuffer(bytes: bytes[$0..<min($0 + 65_536, bytes.count)])
    }
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    let upload = try await OpenAIUploadReader(limit: 100 << 20).read(
      Chunks(buffers: chunks), boundary: MultipartBody.boundary, into: file)
    #expect(upload.fileBytes == audio.count)
    #expect(upload.fields == ["model": ["whisper-1"]])
    #expect(FileManager.default.contents(atPath: file.path) == Data(audio))
  }

  @Test func aBodyThatEndsInsideTheFileIsMalformed() async throws {
    var body = MultipartBody()
    body.file(Array("AUDIO hello".utf8))
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    await #expect(throws: OpenAIError.malformedMultipart("the body ends inside the `file` part")) {
      try await OpenAIUploadReader(limit: 1 << 20).read(
        Chunks(buffers: [ByteBuffer(bytes: body.bytes)]), boundary: MultipartBody.boundary,
        into: file)
    }
  }

  @Test func twoFilesAreMalformed() async throws {
    var body = MultipartBody()
    body.file(Array("AUDIO a".utf8))
    body.file(Array("AUDIO b".utf8))
    let file = temporaryFile()
    defer { try? FileManager.default.removeItem(at: file) }
    await #expect(throws: OpenAIError.malformedMultipart("it has more than one `file` part")) {
      try await OpenAIUploadReader(limit: 1 << 20).read(
        Chunks(buffers: [body.buffer]), boundary: MultipartBody.boundary, into: file)
    }
  }

  @Test(arguments: [
    ("multipart/form-data; boundary=abc", "abc"),
    ("Multipart/Form-Data; charset=utf-8; boundary=\"a b\"", "a b"),
    ("multipart/form-data", nil),
    ("application/octet-stream; boundary=abc", nil),
  ])
  func theBoundaryComesFromAMultipartFormDataContentType(contentType: String, boundary: String?) {
    #expect(OpenAIUploadReader.boundary(contentType: contentType) == boundary)
  }
}

/// `head`, then everything `rest` yields.
struct Prefixed<Rest: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Rest.Element == ByteBuffer {
  let head: ByteBuffer
  let rest: Rest

  struct AsyncIterator: AsyncIteratorProtocol {
    var head: ByteBuffer?
    var rest: Rest.AsyncIterator
    mutating func next() async throws -> ByteBuffer? {
      if let head {
        self.head = nil
        return head
      }
      return try await rest.next()
    }
  }

  func makeAsyncIterator() -> AsyncIterator {
    AsyncIterator(head: head, rest: rest.makeAsyncIterator())
  }
}
