/// How ``Microphone`` and ``AudioDevice`` reach a PulseAudio server and how long they wait.
public struct PulseAudioSettings: Equatable, Sendable {
  /// The server, as libpulse spells it (`unix:/run/user/1000/pulse/native`, `tcp:host:4713`);
  /// `nil` for the default (`PULSE_SERVER`, then the user's session server).
  public var server: String?
  /// How long connecting to the server and starting to record may take.
  public var connectTimeout: Duration
  /// How long a capture source may deliver no audio at all before reading fails (a stopped or
  /// hung server sends nothing and reports nothing).
  public var audioTimeout: Duration
  /// How much audio the server sends at a time while recording; smaller is lower latency (the
  /// server's own default is about 2 s).
  public var fragmentDuration: Duration

  /// Creates settings; by default the default server, a 2 s connect timeout, a 3 s no-audio
  /// watchdog and 50 ms fragments.
  public init(
    server: String? = nil,
    connectTimeout: Duration = .seconds(2),
    audioTimeout: Duration = .seconds(3),
    fragmentDuration: Duration = .milliseconds(50)
  ) {
    self.server = server
    self.connectTimeout = connectTimeout
    self.audioTimeout = audioTimeout
    self.fragmentDuration = fragmentDuration
  }
}
