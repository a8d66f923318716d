import Foundation
import Hummingbird
import MultipartKit

private typealias Multipart = ProtocolProblem.Upload.Multipart

/// A `multipart/form-data` upload as the endpoint reads it: the `file` part streamed to a file
/// on disk as it arrives, the other fields kept as text.
struct OpenAIUpload: Equatable, Sendable {
  /// Whether a complete `file` part was written to the reader's file.
  var hasFile = false
  /// The `file` part's size in bytes.
  var fileBytes = 0
  /// Every other field's values, in the order they came, by name.
  var fields: [String: [String]] = [:]
}

/// Reads a multipart upload with MultipartKit's streaming parser, never holding the audio in
/// memory: the `file` part goes straight to disk, chunk by chunk, and the whole body is counted
/// against the size limit as it arrives.
struct OpenAIUploadReader {
  /// The most bytes the body may have.
  var limit: Int
  /// The most bytes all text fields together may have (the audio is not a text field):
  /// ``ServerConfiguration/maxUploadFieldBytes``.
  var fieldLimit = ServerConfiguration().maxUploadFieldBytes
  /// The most bytes of headers a part may have: ``ServerConfiguration/maxUploadPartHeaderBytes``.
  var headerLimit = ServerConfiguration().maxUploadPartHeaderBytes

  /// The boundary of a `multipart/form-data` content type, or `nil` for any other type.
  static func boundary(contentType: String?) -> String? {
    guard let contentType else { return nil }
    let parameters = contentType.split(separator: ";").map {
      $0.trimmingCharacters(in: .whitespaces)
    }
    guard parameters.first?.lowercased() == "multipart/form-data" else { return nil }
    for parameter in parameters.dropFirst() {
      let pair = parameter.split(separator: "=", maxSplits: 1).map(String.init)
      guard pair.count == 2, pair[0].lowercased() == "boundary" else { continue }
      let value = pair[1].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
      return value.isEmpty ? nil : value
    }
    return nil
  }

  /// Reads `body`, writing the `file` part to `file` (created, or truncated); `onReceived` is
  /// told how many bytes have arrived in all after each piece.
  func read(
    _ body: some AsyncSequence<ByteBuffer, any Error>, boundary: String, into file: URL,
    onReceived: (Int) -> Void = { _ in }
  ) async throws(OpenAIError) -> OpenAIUpload {
    // Only the server's user may read an upload.
    guard
      FileManager.default.createFile(
        atPath: file.path, contents: nil, attributes: [.posixPermissions: 0o600]),
      let handle = try? FileHandle(forWritingTo: file)
    else {
      throw .recognitionFailed(ProtocolProblem.Upload.Reason.noTemporaryFile.text)
    }
    defer { try? handle.close() }

    let state = PartState(file: handle, headerLimit: headerLimit)
    let parser = MultipartParser(boundary: boundary)
    parser.onHeader = { name, value in state.header(name, value) }
    parser.onBody = { buffer in state.body(&buffer, limit: fieldLimit) }
    parser.onPartComplete = { state.complete() }

    var received = 0
    // Bytes the parser took without a header, a piece of body or the end of a part: a header
    // line (or junk before the first boundary) that keeps growing.
    var unparsed = 0
    do {
      for try await buffer in body {
        received += buffer.readableBytes
        onReceived(received)
        guard received <= limit else { throw OpenAIError.uploadTooLarge(limit: limit) }
        let progress = state.progress
        do {
          try parser.execute(buffer)
        } catch {
          throw OpenAIError.malformedMultipart(state.syntaxProblem(boundary: boundary).text)
        }
        if let problem = state.problem { throw problem }
        unparsed = state.progress == progress ? unparsed + buffer.readableBytes : 0
        guard unparsed <= headerLimit else {
          throw OpenAIError.malformedMultipart(
            Multipart.unparsedTooLong(kibibytes: headerLimit >> 10).text)
        }
      }
    } catch let error as OpenAIError {
      throw error
    } catch is CancellationError {
      throw .recognitionFailed(ProtocolProblem.Upload.Reason.cancelled.text)
    } catch {
      throw .malformedMultipart("\(error)")
    }
    if state.inFile {
      throw .malformedMultipart(Multipart.endsInFile.text)
    }
    return state.upload
  }
}

/// What the parser has read so far; its callbacks run one at a time, on the reading task.
private final class PartState {
  var headers = HTTPHeaders()
  var upload = OpenAIUpload()
  var problem: OpenAIError?
  /// Whether the current part is the audio being written to disk.
  var inFile = false
  private var isFirstBodyChunk = true
  private var text: [UInt8] = []
  private var fieldBytes = 0

  /// Counts the parser's callbacks, so the reader sees whether a buffer moved it on.
  private(set) var progress = 0
  private var headerBytes = 0
  /// Where the `file` part goes.
  private let file: FileHandle
  /// The `file` part's bytes not written yet: the parser hands in a body that holds pieces of
  /// the boundary (`\r\n-`) a few bytes at a time, and a write for each cost a system call.
  private var unwritten: [UInt8] = []
  /// How many bytes are collected before they are written.
  private static let writeSize = 256 << 10

  /// The most bytes of headers a part may have.
  private let headerLimit: Int
  /// Whether the parser's last step ended the `file` part: a boundary line it found there.
  private var endedFilePart = false

  init(file: FileHandle, headerLimit: Int) {
    self.file = file
    self.headerLimit = headerLimit
    unwritten.reserveCapacity(Self.writeSize)
  }

  /// What is wrong with a body MultipartKit's parser stopped at: a boundary inside the audio
  /// (the line it starts is neither a new part nor the end), or a malformed boundary line or
  /// part header.
  func syntaxProblem(boundary: String) -> Multipart {
    let delimiter = "--" + boundary.prefix(ServerConfiguration.multipartBoundaryLength)
    return endedFilePart ? .boundaryInFile(delimiter: delimiter) : .syntax(delimiter: delimiter)
  }

  private var name: String? {
    MultipartPart(headers: headers, body: ByteBuffer()).name
  }

  func header(_ name: String, _ value: String) {
    progress += 1
    endedFilePart = false
    // MultipartKit hands over a header value that is not UTF-8 as an empty string: the part's
    // name is lost with it, and the audio would be taken for a text field.
    if value.isEmpty, name.lowercased() == "content-disposition" {
      problem = .malformedMultipart(Multipart.unreadableDisposition.text)
      return
    }
    headerBytes += name.utf8.count + value.utf8.count
    guard headerBytes <= headerLimit else {
      problem = .malformedMultipart(Multipart.headersTooLong(kibibytes: headerLimit >> 10).text)
      return
    }
    headers.add(name: name, value: value)
  }

  func body(_ buffer: inout ByteBuffer, limit: Int) {
    progress += 1
    endedFilePart = false
    guard problem == nil else { return }
    if isFirstBodyChunk {
      isFirstBodyChunk = false
      if name == "file" {
        guard !upload.hasFile else {
          problem = .malformedMultipart(Multipart.twoFileParts.text)
          return
        }
        inFile = true
      }
    }
    if inFile {
      unwritten += buffer.readableBytesView
      upload.fileBytes += buffer.readableBytes
      if unwritten.count >= Self.writeSize { write() }
    } else {
      fieldBytes += buffer.readableBytes
      guard fieldBytes <= limit else {
        problem = .malformedMultipart(Multipart.fieldsTooLong(limit: limit).text)
        return
      }
      text += buffer.readableBytesView
    }
  }

  /// Writes the `file` part's bytes collected so far.
  private func write() {
    guard !unwritten.isEmpty, problem == nil else { return }
    do {
      try file.write(contentsOf: unwritten)
    } catch {
      problem = .recognitionFailed(
        ProtocolProblem.Upload.Reason.unwritableTemporaryFile("\(error)").text)
    }
    unwritten.removeAll(keepingCapacity: true)
  }

  func complete() {
    progress += 1
    headerBytes = 0
    if inFile { write() }
    endedFilePart = false
    if inFile || (isFirstBodyChunk && name == "file" && !upload.hasFile) {
      // A file part that ended (possibly empty).
      upload.hasFile = true
      endedFilePart = true
    } else if let name {
      upload.fields[name, default: []].append(String(decoding: text, as: UTF8.self))
    }
    headers = HTTPHeaders()
    inFile = false
    isFirstBodyChunk = true
    text = []
  }
}
