import Foundation

/// What to recognize and how: the audio source, and the engine that decodes it with its model.
///
/// ```swift
/// var request = SpeechRecognitionRequest()                    // default microphone and engine
/// request.source = .file(URL(fileURLWithPath: "talk.wav"))
/// request.engine = .moonshine()                               // Moonshine's installed model
/// request.model = .grammar(URL(fileURLWithPath: "cards.gram")) // pocketsphinx with a grammar
/// ```
public struct SpeechRecognitionRequest: Equatable, Sendable {
  /// Where the audio comes from.
  public var source: AudioSource
  /// Which engine decodes it, and with which model.
  public var engine: Engine
  /// Whether to deliver partial results while an utterance is still being spoken.
  public var shouldReportPartialResults: Bool
  /// How much audio to recognize from the start of a source that is read (a file, standard
  /// input, pushed audio), or `nil` for all of it: the client reads no further and ends the task
  /// with the words of that audio, as at the end of the input. Capture sources ignore it: what
  /// limits a recording is clock time, which its host keeps.
  public var maximumAudioDuration: Duration?
  /// How the voice-activity detector cuts this request's file into utterances, where it should
  /// differ from the client's settings; `nil` for the client's.
  public var voiceActivity: VoiceActivityTuning?
  /// Phrases to favour, such as names of lamps, rooms and people: Moonshine biases its decoder
  /// towards them, Whisper reads them as its prompt (pocketsphinx does not use them). Empty by
  /// default.
  public var hotwords = Hotwords()
  /// The language spoken: English by default. With the ``Engine/automatic`` engine, English
  /// goes to the client's default engine and any other language (or ``Language/automatic``) to
  /// Whisper.
  public var language: Language = .english
  /// Whether to write the speech as English whatever language is spoken (Whisper's translate
  /// task; other engines refuse it).
  public var translates = false
  /// How long after an utterance that ended a sentence speech may resume and still be heard
  /// together with it, in seconds from the end of its speech; `nil` (the default): never.
  ///
  /// With a window, a sentence that goes on after a thinking pause the recognizer took for its
  /// end ("He might even have been made. | amiable himself.") is transcribed again with what came
  /// before it; when the two read as one sentence, the last finished utterance is replaced by
  /// the whole of it (its words and the new ones), so a result's last finished utterance may
  /// change. Dictation asks for it (it erases and retypes the difference); hosts that print
  /// finished utterances as they come do not. Moonshine (and engines it cuts utterances for)
  /// only; pocketsphinx ignores it.
  public var resumptionWindow: TimeInterval?
  /// How many of the latest finished utterances each result holds at least, or `nil` (the
  /// default) for all of them.
  ///
  /// A host that takes each utterance as it finishes and needs only the last ones again (the
  /// last, for a revision: dictation) sets it, so a session that runs for hours keeps minutes of
  /// transcript, not hours. Older utterances then leave the results:
  /// `bestTranscription.finishedUtterances` starts at the first one held (utterance numbers
  /// still count from the start of the session), and `segments` and `formattedString` hold the
  /// words of those held.
  public var keptUtterances: Int?
  /// Text the decoder continues from (Whisper's initial prompt: names, spelling, style), or
  /// `nil`; other engines do not use it.
  public var prompt: String?

  /// Creates a request; by default the default microphone, the client's default engine, partial
  /// results.
  public init(
    source: AudioSource = .microphone,
    engine: Engine = .automatic,
    shouldReportPartialResults: Bool = true,
    maximumAudioDuration: Duration? = nil
  ) {
    self.source = source
    self.engine = engine
    self.shouldReportPartialResults = shouldReportPartialResults
    self.maximumAudioDuration = maximumAudioDuration
  }

  /// Creates a request decoded by pocketsphinx with `model`.
  public init(
    source: AudioSource = .microphone,
    model: Model,
    shouldReportPartialResults: Bool = true
  ) {
    self.init(
      source: source, engine: .pocketsphinx(model),
      shouldReportPartialResults: shouldReportPartialResults)
  }

  /// The pocketsphinx model the request names (`.default` for other engines); setting it picks
  /// pocketsphinx with that model.
  public var model: Model {
    get {
      if case let .pocketsphinx(model) = engine { return model }
      return .default
    }
    set { engine = .pocketsphinx(newValue) }
  }

  /// A recognition engine and its model.
  public enum Engine: Equatable, Sendable {
    /// The client's default engine with its default model (a live client's configuration says
    /// which; `transcribe` picks Moonshine when it is installed).
    case automatic
    /// pocketsphinx with a model choice: its statistical language model, a grammar, a key
    /// phrase, a phrase list, or model files of your own.
    case pocketsphinx(Model = .default)
    /// Moonshine (a neural model run by ONNX Runtime); `nil` for the installed model, or a
    /// directory holding the converted model's files.
    case moonshine(modelDirectory: URL? = nil)
    /// Whisper base, multilingual (run by whisper.cpp); `nil` for the installed model, or a
    /// whisper.cpp model file.
    case whisper(modelFile: URL? = nil)

    /// The engine's name, `nil` for ``automatic``.
    public var name: EngineName? {
      switch self {
      case .automatic: nil
      case .pocketsphinx: .pocketsphinx
      case .moonshine: .moonshine
      case .whisper: .whisper
      }
    }
  }

  /// The language spoken.
  public enum Language: Equatable, Hashable, Sendable {
    /// A language by its code (`en`, `de`), as Whisper names them.
    case code(String)
    /// Detected from the audio (by Whisper).
    case automatic

    /// English.
    public static let english = Language.code("en")

    /// Whether the language is English (which every engine hears).
    public var isEnglish: Bool { self == .english }

    /// The code, or `auto`.
    public var code: String {
      switch self {
      case let .code(code): code
      case .automatic: "auto"
      }
    }
  }

  /// The engines, by the names the command line and the server use.
  public enum EngineName: String, CaseIterable, Equatable, Sendable {
    /// CMU pocketsphinx: light, grammars and key phrases, word alternatives.
    case pocketsphinx
    /// Moonshine base: far more accurate on open speech, punctuated text.
    case moonshine
    /// Whisper base: about ninety-nine languages, and translation into English.
    case whisper

    /// The name as people write it: `Moonshine`, `pocketsphinx`.
    public var displayName: String {
      switch self {
      case .pocketsphinx: "pocketsphinx"
      case .moonshine: "Moonshine"
      case .whisper: "Whisper"
      }
    }
  }

  /// An audio source.
  public enum AudioSource: Equatable, Sendable {
    /// The default capture source of the audio server.
    case microphone
    /// A capture source by its server name (see `transcribe --list-devices`).
    case device(String)
    /// An audio file in any format and rate the live client can read (WAV, FLAC, OGG, ...).
    case file(URL)
    /// Headerless 16 kHz mono signed 16-bit little-endian samples.
    case rawFile(URL)
    /// Standard input, e.g. a pipe: an audio file's bytes, or with `raw` headerless 16 kHz mono
    /// signed 16-bit little-endian samples.
    case standardInput(raw: Bool)
    /// Audio a host pushes in as it arrives (a server's connection): signed 16-bit mono samples
    /// at the ``PushedAudio/sampleRate`` it declares, which the client converts as needed.
    case pushed(PushedAudio)
  }

  /// pocketsphinx's model choice.
  public enum Model: Equatable, Sendable {
    /// The installed default English model.
    case `default`
    /// Explicit model files; `nil` parts use the default.
    case custom(acousticModel: URL?, languageModel: URL?, dictionary: URL?)
    /// A JSGF grammar that constrains what can be recognized; `nil` parts use the default.
    case grammar(URL, dictionary: URL? = nil, acousticModel: URL? = nil)
    /// Spot a single key phrase; `nil` parts use the default.
    case keyphrase(String, dictionary: URL? = nil, acousticModel: URL? = nil)
    /// Recognize only these phrases (any sequence of them), with the default model: what
    /// vosk's `phrase_list` asks for. Phrases with words the dictionary lacks are left out.
    case phrases([String])
  }
}

extension SpeechRecognitionRequest.AudioSource {
  /// Whether the audio is captured as it happens (a microphone), so a recording limit counts
  /// clock time, rather than read from an input (a file, standard input or pushed audio), where
  /// it counts audio time.
  public var isLive: Bool {
    switch self {
    case .microphone, .device: true
    case .file, .rawFile, .standardInput, .pushed: false
    }
  }
}

extension SpeechRecognitionRequest.EngineName {
  /// The engine with its installed default model.
  public var defaultEngine: SpeechRecognitionRequest.Engine {
    switch self {
    case .pocketsphinx: .pocketsphinx()
    case .moonshine: .moonshine()
    case .whisper: .whisper()
    }
  }
}

/// Settings of the voice-activity detector for one request, each `nil` to keep the client's.
public struct VoiceActivityTuning: Equatable, Sendable {
  /// The speech probability from which audio is speech, between 0 and 1 (exclusive).
  public var threshold: Double?
  /// How long a pause ends an utterance, in seconds (with sentence endpointing, the shortest).
  public var minimumSilence: TimeInterval?
  /// Whether utterances end when the sentence does (`true`: sentence endpointing, a Realtime
  /// session's `semantic_vad`) or after ``minimumSilence`` (`false`: `server_vad`).
  public var judgesSentences: Bool?
  /// With sentence endpointing, the longest pause an unfinished sentence is held open through.
  public var maximumSilence: TimeInterval?

  /// Creates settings; by default the client's.
  public init(
    threshold: Double? = nil, minimumSilence: TimeInterval? = nil, judgesSentences: Bool? = nil,
    maximumSilence: TimeInterval? = nil
  ) {
    self.threshold = threshold
    self.minimumSilence = minimumSilence
    self.judgesSentences = judgesSentences
    self.maximumSilence = maximumSilence
  }
}
