import Foundation
import SpeechClient
import SpeechRecognitionFeature

extension WyomingSession.Request {
  /// What a `transcribe` event asks of the next utterance: `name` picks one of `models`, and
  /// `language` must be one the server decodes (English is the default engine's, any other
  /// Whisper's, unless `name` picked a model that is not Whisper).
  init(
    _ event: WyomingEvent, models: [WyomingModel], limits: ServerConfiguration
  ) throws(WyomingProblem) {
    if let name = event.data["name"]?.stringValue, !name.isEmpty {
      guard let model = WyomingModel.named(name, among: models) else {
        throw .unknownModel(name: name, available: models.map(\.name))
      }
      self.model = model
    }
    // Home Assistant sends the pipeline's language: it picks the engine (English the server's
    // default, any other Whisper) unless `name` picked a model.
    let language = event.data["language"]?.stringValue
    if let language, !language.isEmpty {
      guard let served = limits.servedLanguage(language),
        served.isEnglish || model == nil || model?.engine == .whisper
      else {
        throw .unsupportedLanguage(language)
      }
      servedLanguage = served
    }
    self.language = language
  }
}

/// The words of the utterance a Wyoming session hears, as changes to its state: the chunks that
/// stream them out as they settle, and the language its events name. The session's reducer
/// (``WyomingSession``) decides when.
extension WyomingSession.State {
  /// The words of the utterance so far: finished, then partial.
  var words: [String] {
    guard let transcription = recognition?.result?.bestTranscription else { return [] }
    return transcription.segments.map(\.substring)
  }

  /// The words of the utterance that have settled (``SettledWords``): a chunk cannot be taken
  /// back.
  mutating func settledWords() -> [String] {
    guard let transcription = recognition?.result?.bestTranscription else { return [] }
    let words = transcription.segments.map(SettledWords.Word.init)
    let finished = words.count - transcription.partialSegments.count
    let settled = utterance?.heardWords.settle(words, finished: finished) ?? 0
    return words.prefix(settled).map(\.text)
  }

  /// Streams the words heard since the last chunk, when they extend what went out.
  mutating func streamNewWords(_ words: [String]) {
    let streamed = utterance?.streamedWords ?? []
    guard words.count > streamed.count, words.starts(with: streamed, by: SettledWords.sameWord)
    else { return }
    let new = words[streamed.count...].joined(separator: " ")
    let text = streamed.isEmpty ? new : " " + new
    utterance?.streamedWords = words
    stream.outbox.append(
      .event(WyomingEvent("transcript-chunk", data: ["text": .string(text)])))
  }

  /// The language the client asked for, as the events that answer it name it.
  var languageData: [String: JSONValue] {
    ["language": .string(request.language ?? "en")]
  }
}
