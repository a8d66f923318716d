import SpeechClient

/// The phrases a Wyoming `transcribe` event asks to favour, as hotwords.
///
/// - `transcript_names` (wyoming 1.8+: "unique names that should bias the transcription") and
///   `transcript_terms` ("domain-specific terms"): lists of strings, each a phrase, names first.
/// - `context` (an object, "context from previous interactions"): each list of strings in it,
///   at its top level or one object down, is taken as phrases (e.g. `{"names": ["Kallax"]}` or
///   `{"entities": {"names": […]}}`), and each string in it gives its names as an OpenAI
///   prompt does (`Hotwords.phrases(inPrompt:)`).
///
/// Anything else is left alone. The phrases hold for the utterances after the event, until the
/// next `transcribe`.
enum WyomingHotwords {
  static func hotwords(in data: [String: JSONValue]) -> Hotwords {
    var phrases: [String] = []
    for key in ["transcript_names", "transcript_terms"] {
      if case .array(let items)? = data[key] { phrases += items.compactMap(\.stringValue) }
    }
    if case .object(let context)? = data["context"] {
      phrases += self.phrases(in: context, depth: 0)
    }
    return Hotwords(Hotwords.cleaned(phrases))
  }

  private static func phrases(in object: [String: JSONValue], depth: Int) -> [String] {
    var phrases: [String] = []
    for key in object.keys.sorted() {
      switch object[key] {
      case .array(let items)?: phrases += items.compactMap(\.stringValue)
      case .string(let text)?: phrases += Hotwords.phrases(inPrompt: text)
      case .object(let inner)? where depth == 0: phrases += self.phrases(in: inner, depth: 1)
      default: break
      }
    }
    return phrases
  }
}
