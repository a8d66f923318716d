extension ProtocolProblem {
  /// An upload's reasons (`POST /v1/audio/transcriptions`) that the server words itself; the
  /// sentences of ``OpenAIError`` are written in `OpenAIError+Message.swift`.
  enum Upload {
    /// What is wrong with a multipart body (``OpenAIError/malformedMultipart(_:)``'s reason).
    enum Multipart: Equatable, Sendable {
      /// A boundary line inside the `file` part, followed by other bytes.
      case boundaryInFile(delimiter: String)
      /// A boundary line or part header the parser cannot read.
      case syntax(delimiter: String)
      /// A `Content-Disposition` that is empty or not UTF-8.
      case unreadableDisposition
      /// A part's headers over the limit (in KiB).
      case headersTooLong(kibibytes: Int)
      /// Headers, or bytes before the first boundary, that keep growing past the limit.
      case unparsedTooLong(kibibytes: Int)
      /// More than one `file` part.
      case twoFileParts
      /// Text fields over the limit.
      case fieldsTooLong(limit: Int)
      /// The body ends inside the `file` part.
      case endsInFile

      var text: String {
        switch self {
        case .boundaryInFile(let delimiter):
          "the `file` part contains the boundary `\(delimiter)` followed by other bytes, so the "
            + "file ends there; send it with a boundary that does not occur in the file "
            + "(clients choose a long random one)"
        case .syntax(let delimiter):
          "it is not valid multipart/form-data: a boundary line (`\(delimiter)`) or a part's "
            + "header is malformed"
        case .unreadableDisposition:
          "a part's Content-Disposition header cannot be read: it is empty or not UTF-8 (a "
            + "file name in Latin-1?); send the file name in UTF-8, or leave it out"
        case .headersTooLong(let kibibytes):
          "a part's headers are longer than \(kibibytes) KiB"
        case .unparsedTooLong(let kibibytes):
          "a part's headers (or what comes before the first boundary) are longer than "
            + "\(kibibytes) KiB"
        case .twoFileParts:
          "it has more than one `file` part"
        case .fieldsTooLong(let limit):
          "its text fields are longer than \(limit) bytes"
        case .endsInFile:
          "the body ends inside the `file` part"
        }
      }
    }

    /// Why an upload could not be transcribed, for the reasons of ``OpenAIError/unreadableAudio(reason:)``
    /// and ``OpenAIError/recognitionFailed(_:)`` that the server finds itself (not a decoder's).
    enum Reason: Equatable, Sendable {
      case emptyFile
      case noTemporaryDirectory
      case noTemporaryFile
      case unwritableTemporaryFile(String)
      case cancelled

      var text: String {
        switch self {
        case .emptyFile: "the file is empty"
        case .noTemporaryDirectory: "cannot create a temporary directory for the upload"
        case .noTemporaryFile: "cannot create a temporary file for the upload"
        case .unwritableTemporaryFile(let error):
          "cannot write the upload to a temporary file: \(error)"
        case .cancelled: "the upload was cancelled"
        }
      }
    }
  }
}
