/// How `transcribe serve` speaks Home Assistant's Wyoming protocol: where it listens, whether
/// it ends utterances itself, and the limits on what a client may send.
///
/// The session limits (`maxSessions`, idle, maximum length, shutdown grace) are the server's
/// own, in ``ServerConfiguration``: a Wyoming session is a session like any other.
public struct WyomingSettings: Sendable, Equatable {
  /// The listeners (`--wyoming`); none: no Wyoming service.
  public var listeners: [WyomingAddress] = []
  /// Whether the server ends an utterance itself when the speaker pauses (the voice-activity
  /// detector's end of utterance), sending the final `transcript` without waiting for
  /// `audio-stop`; `describe` then says `requires_external_vad: false`.
  public var endpointing = true
  /// The longest header line read, in bytes (default 64 KiB).
  public var maxHeaderBytes = 64 << 10
  /// The longest `data` block (`data_length`) read, in bytes (default 64 KiB).
  public var maxDataBytes = 64 << 10
  /// The longest payload (`payload_length`) read, in bytes (default 1 MiB: 30 s of 16 kHz
  /// mono audio in one chunk).
  public var maxPayloadBytes = 1 << 20
  /// The sample widths an `audio-start` or `audio-chunk` may have, in bytes (8- to 32-bit PCM).
  public static let sampleWidths = 1...4
  /// The channel counts an `audio-start` or `audio-chunk` may have.
  public static let channelCounts = 1...32
  /// The name to announce over zeroconf (`--zeroconf [NAME]`), or `nil` to announce nothing.
  public var zeroconfName: String?

  /// No listeners, endpointing on, the default limits.
  public init() {}
}
