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

  /// The languages it speaks, as Wyoming names them.
  static let languages = ["en"]

  /// The model `name` picks among `models`: its model name or its engine's name
  /// (`moonshine`, `pocketsphinx`), ignoring case.
  static func named(_ name: String, among models: [WyomingModel]) -> WyomingModel? {
    let wanted = name.lowercased()
    return models.first { $0.name == wanted || $0.engine.rawValue == wanted }
  }

  /// Whether `language` (`en`, `en-US`, `en_GB`, …) is one the models speak.
  static func speaks(_ language: String) -> Bool {
    let primary = language.lowercased().split(whereSeparator: { $0 == "-" || $0 == "_" }).first
    return primary.map { languages.contains(String($0)) } ?? false
  }

  /// The `info` event answering `describe`: one `asr` program with a model per installed
  /// engine, the default first.
  static func info(
    models: [WyomingModel], endpointing: Bool, version: String
  ) -> WyomingEvent {
    func attribution(_ name: String, _ url: String) -> JSONValue {
      .object(["name": .string(name), "url": .string(url)])
    }
    let languages = JSONValue.array(Self.languages.map(JSONValue.string))
    let modelList = models.map { model -> JSONValue in
      .object([
        "name": .string(model.name),
        "description": .string(model.description),
        "attribution": attribution(model.attribution.name, model.attribution.url),
        "installed": .bool(true),
        "languages": languages,
        "version": .string(version),
      ])
    }
    let program = JSONValue.object([
      "name": .string("transcribe"),
      "description": .string("transcribe: offline speech to text (Moonshine, pocketsphinx)"),
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
