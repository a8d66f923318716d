import CPocketSphinx
import Foundation
import Recognition

extension Decoder {
  /// The name of the phrase search among the decoder's searches.
  static let phraseSearch = "phrases"

  /// Restricts what the decoder recognizes to `phrases`, in any sequence: a JSGF grammar made of
  /// them becomes the active search, the loaded language model stays for ``removeRestriction()``.
  ///
  /// Phrases are lower-cased and stripped of punctuation; a phrase with a word the dictionary
  /// lacks is left out (as vosk leaves out unknown words), and repeats are used once. The
  /// utterance in progress is dropped.
  ///
  /// Checking the phrases takes time in proportion to their total length; compiling the grammar
  /// is one pocketsphinx call that grows with it too and cannot be interrupted, so a host that
  /// takes lists from others caps their size (the server does: `phrase_list`'s limits).
  ///
  /// - Parameter isCancelled: asked between phrases; once it returns `true` the decoder is left
  ///   as it was and `[]` is returned (nobody wants the restriction any more).
  /// - Returns: the phrases used.
  /// - Throws: `RecognitionFailure.wordNotInDictionary` when no phrase is left,
  ///   `RecognitionFailure.decoderFailure` when pocketsphinx refuses the grammar.
  @discardableResult
  public func restrict(
    toPhrases phrases: [String], isCancelled: () -> Bool = { false }
  ) throws(RecognitionFailure) -> [String] {
    guard
      let (usable, unknown) = Self.usablePhrases(
        phrases, knows: { knows($0) }, isCancelled: isCancelled),
      !isCancelled()
    else { return [] }
    guard !usable.isEmpty else {
      throw .wordNotInDictionary(
        word: unknown ?? "", dictionary: DecoderConfiguration.defaultDictionary.path)
    }
    let grammar = """
      #JSGF V1.0;
      grammar phrases;
      public <utterance> = <phrase>+;
      <phrase> = \(usable.joined(separator: " | "));
      """
    ps_end_utt(decoder)
    if originalSearch == nil, let current = ps_get_search(decoder) {
      originalSearch = String(cString: current)
    }
    let (status, _) = PocketSphinxLog.capturingErrors(
      isVerbose: false, silencingStandardOutput: true
    ) {
      ps_set_jsgf_string(decoder, Self.phraseSearch, grammar)
    }
    guard status >= 0, ps_set_search(decoder, Self.phraseSearch) >= 0,
      ps_start_utt(decoder) >= 0
    else {
      throw .decoderFailure("pocketsphinx refused the phrase list")
    }
    return usable
  }

  /// Goes back to the search the decoder was loaded with, after ``restrict(toPhrases:)``.
  public func removeRestriction() throws(RecognitionFailure) {
    guard let originalSearch else { return }
    ps_end_utt(decoder)
    guard ps_set_search(decoder, originalSearch) >= 0, ps_start_utt(decoder) >= 0 else {
      throw .decoderFailure("pocketsphinx could not return to its language model")
    }
    ps_unset_search(decoder, Self.phraseSearch)
    self.originalSearch = nil
  }

  /// The phrases of `phrases` whose words `knows` has, as the dictionary spells them, each once
  /// and in their first order, with the first unknown word met; `nil` once `isCancelled` says
  /// so. Time grows with the phrases' total length (each word is looked up once).
  static func usablePhrases(
    _ phrases: [String], knows: (String) -> Bool, isCancelled: () -> Bool = { false }
  ) -> (usable: [String], unknown: String?)? {
    var usable: [String] = []
    var seen: Set<String> = []
    var known: [String: Bool] = [:]
    var unknown: String?
    for (index, phrase) in phrases.enumerated() {
      if index % 256 == 0, isCancelled() { return nil }
      let words = Self.words(of: phrase)
      guard !words.isEmpty else { continue }
      let missing = words.first { word in
        if let isKnown = known[word] { return !isKnown }
        let isKnown = knows(word)
        known[word] = isKnown
        return !isKnown
      }
      if let missing {
        unknown = unknown ?? missing
        continue
      }
      let text = words.joined(separator: " ")
      if seen.insert(text).inserted { usable.append(text) }
    }
    return (usable, unknown)
  }

  /// Whether the dictionary has `word`.
  func knows(_ word: String) -> Bool {
    guard let pronunciation = ps_lookup_word(decoder, word) else { return false }
    free(pronunciation)
    return true
  }

  /// A phrase's words as the dictionary spells them: lower case, letters, digits, apostrophes.
  static func words(of phrase: String) -> [String] {
    phrase.lowercased()
      .split(whereSeparator: \.isWhitespace)
      .map { word in
        String(word.filter { $0.isLetter || $0.isNumber || $0 == "'" })
      }
      .filter { !$0.isEmpty }
  }
}
