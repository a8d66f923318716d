import SpeechClient

/// An installed engine as Wyoming's `describe` lists it, and as `transcribe`'s `name` picks it.
struct WyomingModel: Equatable, Sendable {
  /// The engine that decodes with it.
  var engine: SpeechRecognitionRequest.EngineName

  /// The model's name in `info`: `moonshine-base-en`, `pocketsphinx-en-us`.
  var name: String {
    switch engine {
    case .moonshine: "moonshine-base-en"
    case .pocketsphinx: "pocketsphinx-en-us"
    case .whisper: "whisper-base"
    }
  }

  /// What the model is, for people choosing one.
  var description: String {
    switch engine {
    case .moonshine: "Moonshine base, English: accurate, punctuated, offline"
    case .pocketsphinx: "pocketsphinx with CMU's US English model: light, offline"
    case .whisper: "Whisper base, multilingual: about ninety-nine languages, offline"
    }
  }

  /// Who made the model.
  var attribution: (name: String, url: String) {
    switch engine {
    case .moonshine: ("Useful Sensors", "https://github.com/usefulsensors/moonshine")
    case .pocketsphinx: ("CMU Sphinx", "https://cmusphinx.github.io")
    case .whisper: ("OpenAI", "https://github.com/openai/whisper")
    }
  }

  /// The languages the English engines speak, as Wyoming names them.
  static let languages = ["en"]

  /// The languages this model speaks on a server that serves `languages` (Whisper's, when it
  /// runs Whisper): English for Moonshine and pocketsphinx, every one of them for Whisper.
  func languages(served languages: [ServedLanguage]) -> [String] {
    engine == .whisper && !languages.isEmpty ? languages.map(\.code) : Self.languages
  }

  /// The model `name` picks among `models`: its model name or its engine's name
  /// (`moonshine`, `pocketsphinx`), ignoring case.
  static func named(_ name: String, among models: [WyomingModel]) -> WyomingModel? {
    let wanted = name.lowercased()
    return models.first { $0.name == wanted || $0.engine.rawValue == wanted }
  }

  /// The `info` event answering `describe`: one `asr` program with a model per installed
  /// engine, the default first.
  static func info(
    models: [WyomingModel], endpointing: Bool, version: String, languages: [ServedLanguage] = []
  ) -> WyomingEvent {
    func attribution(_ name: String, _ url: String) -> JSONValue {
      .object(["name": .string(name), "url": .string(url)])
    }
    let modelList = models.map { model -> JSONValue in
      .object([
        "name": .string(model.name),
        "description": .string(model.description),
        "attribution": attribution(model.attribution.name, model.attribution.url),
        "installed": .bool(true),
        "languages": .array(model.languages(served: languages).map(JSONValue.string)),
        "version": .string(version),
      ])
    }
    let program = JSONValue.object([
      "name": .string("transcribe"),
      "description": .string(
        "transcribe: offline speech to text (\(models.map(\.engine.displayName).joined(separator: ", ")))"
      ),
      "attribution": attribution("transcribe", ""),
      "installed": .bool(true),
      "version": .string(version),
      "models": .array(modelList),
      "supports_transcript_streaming": .bool(true),
      "requires_external_vad": .bool(!endpointing),
    ])
    return WyomingEvent("info", data: ["asr": .array([program])])
  }
}
