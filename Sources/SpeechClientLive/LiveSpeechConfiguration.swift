import AudioInput
import Foundation
import PocketSphinx
import Recognition
import SpeechClient

/// Settings of the live speech client that the `SpeechClient` interface leaves out.
///
/// ```swift
/// var configuration = LiveSpeechConfiguration()
/// configuration.isVerbose = true
/// let client = SpeechClient.live(configuration)
/// ```
public struct LiveSpeechConfiguration: Sendable {
  /// The PulseAudio server, as libpulse spells it (`unix:/run/user/1000/pulse/native`,
  /// `tcp:host:4713`); `nil` for the default (`PULSE_SERVER`, then the user's session server).
  public var server: String?
  /// Whether the engines write their logs (pocketsphinx: about 200 lines per model load) to
  /// stderr.
  ///
  /// pocketsphinx has one log per process, so this applies to every decoder running at the time.
  public var isVerbose: Bool
  /// How long connecting to the audio server and starting to record may take before the task
  /// fails with `SpeechClient.Failure.audioServerUnreachable`.
  public var connectTimeout: Duration
  /// How long the capture source may deliver no audio at all before the task fails with
  /// `SpeechClient.Failure.audioDeviceFailed` (a stopped or hung server sends nothing).
  public var audioTimeout: Duration
  /// How much audio the server sends at a time while recording; smaller is lower latency.
  public var fragmentDuration: Duration
  /// The request `requestAuthorization` checks: its source (is the server reachable, does the
  /// capture source exist) and its model (are the files there). Set it to what the host will
  /// start, e.g. a file source, so a missing audio server does not restrict file transcription.
  public var authorizationRequest: SpeechRecognitionRequest
  /// How many decoders work on files at the same time: the size of the shared decoder pool.
  /// By default the number of cores. The microphone always has one decoder of its own.
  public var jobs: Int = DecoderPool.defaultSize
  /// How long a silence ends an utterance, in seconds; with sentence endpointing, the shortest
  /// pause, which ends a finished sentence. `nil`: the endpointing's default (0.5 s fixed,
  /// 0.2 s sentence; see ``Recognition/Endpointing/defaultSilence``).
  public var endOfUtteranceSilence: TimeInterval?
  /// How Moonshine decides that an utterance is over: by judging whether the sentence is
  /// finished (the default), or after a fixed pause. pocketsphinx always uses the fixed pause.
  public var endpointing: Endpointing = .sentence
  /// With sentence endpointing, the longest pause an unfinished sentence is held open through,
  /// in seconds.
  public var maximumEndOfUtteranceSilence: TimeInterval = Endpointing.defaultMaximumSilence
  /// Utterances longer than this, in seconds of audio, are ended there.
  public var maximumUtteranceDuration: TimeInterval = 30
  /// How many n-best hypotheses are searched for each word's alternatives at the end of an
  /// utterance (0 turns them off, and saves that search when nobody reads them).
  public var alternativeCount = 5
  /// Whether a file task that asks for partial results gets the words of the utterance being
  /// decoded too, or only its progress (a result every quarter second of audio, holding the
  /// finished utterances). Those words cost a hypothesis search every tenth of a second of
  /// speech; a host that shows only finished utterances (output into a pipe) turns them off.
  /// Capture sources are not affected.
  public var reportsPartialWordsOfFiles = true
  /// How much the engines spend on partial results (the words of an utterance while it goes
  /// on): `balanced` by default; `off` leaves only each utterance's final words, whatever the
  /// request asks.
  public var partialResults: PartialResults = .balanced
  /// The ONNX Runtime library Moonshine loads; `nil` searches for it (`$TRANSCRIBE_ONNXRUNTIME`,
  /// then where `scripts/install-dependencies.sh` links it, then the system's and pip's).
  public var onnxRuntimeLibrary: URL?
  /// The voice-activity detector that cuts speech for every engine and source: by default Silero
  /// VAD when it is installed, else the energy detector.
  public var voiceActivity = VoiceActivityOptions()
  /// The engine for requests that leave the choice to the client
  /// (`SpeechRecognitionRequest.Engine.automatic`).
  public var defaultEngine: SpeechRecognitionRequest.EngineName = .pocketsphinx
  /// Phrases every Moonshine request favours, before the request's own (`transcribe serve
  /// --hotwords`: a server-wide list); a request's boost wins over this one's.
  public var hotwords = Hotwords()
  /// Phrases that change while the client runs (`serve --hass-url`: Home Assistant's names),
  /// favoured after ``hotwords`` and before a request's own.
  public var hotwordSource: HotwordSource?

  /// Creates a configuration; by default the default server, quiet, a 2 s connect timeout, a 3 s
  /// no-audio watchdog, 50 ms fragments, and authorization checked for the default microphone.
  public init(
    server: String? = nil,
    isVerbose: Bool = false,
    connectTimeout: Duration = .seconds(2),
    audioTimeout: Duration = .seconds(3),
    fragmentDuration: Duration = .milliseconds(50),
    authorizationRequest: SpeechRecognitionRequest = SpeechRecognitionRequest()
  ) {
    self.server = server
    self.isVerbose = isVerbose
    self.connectTimeout = connectTimeout
    self.audioTimeout = audioTimeout
    self.fragmentDuration = fragmentDuration
    self.authorizationRequest = authorizationRequest
  }

  /// The audio server settings for ``AudioInput``.
  var pulseAudio: PulseAudioSettings {
    PulseAudioSettings(
      server: server, connectTimeout: connectTimeout, audioTimeout: audioTimeout,
      fragmentDuration: fragmentDuration)
  }
}

extension LiveSpeechConfiguration {
  /// The pause that ends an utterance (the shortest, with sentence endpointing) for `endpointing`.
  func endOfUtteranceSilence(for endpointing: Endpointing) -> TimeInterval {
    endOfUtteranceSilence ?? endpointing.defaultSilence
  }
}
