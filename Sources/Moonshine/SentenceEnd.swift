import Foundation

/// Whether an utterance's words make a finished sentence at a pause: the rule of
/// ``Recognition/Endpointing/sentence``, read from two transcriptions of the utterance, one with
/// a little of the pause (the early look: about 0.1–0.15 s after the last word ends) and one
/// with the pause that its final words hear (0.2 s by default: about 0.2–0.25 s after the word).
/// With Silero VAD the pause counts from where the sound of speech ends (``SoundEnd``) and the
/// early look hears 0.13 s of it; before 30 Nov 2026 both counted from the detector's end of
/// speech, which lags the sound (0.08 s for the early look, and the final words 0.25–0.35 s
/// after the word).
///
/// Measured in `Benchmarks/endpointing/README.md` on 75 pauses cut inside sentences and 13 ends:
/// the final period alone means little (the model writes one at most cuts), but what the model
/// expects after the last word does. The rule says **finished** only when every one of these
/// holds:
///
/// 1. the transcript ends in `. ? !` or `…` (maybe then a closing quote);
/// 2. its last word is not one that cannot end a sentence (an article, a conjunction, a
///    preposition that is not also a particle, a modal, "be", "very": ``holdWords``);
/// 3. after the last word, P(sentence-ending punctuation) ≥ 0.8;
/// 4. after the last word, P(another word) ≤ 0.002 in both looks;
/// 5. P(a comma or the like) after the last word rises by at most 0.05 from the early look to
///    the later one (at a true end the model's comma fades as the silence grows; inside a
///    sentence it grows).
///
/// It says **unfinished** when a clear sign says so: no sentence-ending punctuation, a hold
/// word, P(another word) above 0.015 in either look, or the comma's probability rising by more
/// than 0.05. Otherwise it cannot judge (**undecided**), and the recognizer holds the utterance
/// open as for an unfinished one: a sentence cut in two loses words, a finished one held costs
/// a second.
///
/// On the study's set (`Benchmarks/endpointing/README.md`, "The rule in Swift"): none of the 75
/// inside pauses judged finished, with digital silence or room noise in the pause; 7 and 6 of
/// the 13 ends judged finished; the clause ends (a comma or a colon in the book) held. The
/// study's first choice, P(another word) ≤ 0.01, took 3 more ends and let 3 inside pauses end
/// ("He might even have been made." among the near misses).
public enum SentenceEnd: Equatable, Sendable {
  /// The sentence is finished: the utterance ends after the shortest pause.
  case finished
  /// The sentence goes on: the utterance is held open, up to the longest pause.
  case unfinished
  /// No clear sign either way: held open like an unfinished one (on the pauses measured, the
  /// mid-sentence pauses the rule does not call unfinished are mostly here).
  case undecided

  /// Judges an utterance from the transcription that its final words would be (`late`) and the
  /// early look (`early`, `nil` when there was none).
  public init(early: MoonshineTranscript?, late: MoonshineTranscript) {
    let text = late.text
    guard Self.endsSentence(text), let word = Self.lastWord(of: text),
      !Self.holdWords.contains(word), let after = late.afterLastWord
    else {
      self = .unfinished
      return
    }
    let earlyAfter = early?.afterLastWord
    let moreWords = max(after.word, earlyAfter?.word ?? 0)
    let commaRise = earlyAfter.map { after.continuing - $0.continuing } ?? 0
    if moreWords > 0.015 || commaRise > 0.05 {
      self = .unfinished
    } else if after.terminal >= 0.8, moreWords <= 0.002, earlyAfter != nil {
      self = .finished
    } else {
      self = .undecided
    }
  }

  /// Whether a transcription of speech up to a pause, with some of the pause after it, ends
  /// its sentence beyond doubt, judged from that one look alone (no early look to compare): the
  /// text ends in `. ? !` or `…`, its last word is no ``holdWords`` word, and after it the model
  /// expects sentence-ending punctuation more than anything else (≥ 0.5) and hardly another word
  /// (≤ 0.002, the bound that kept "He might even have been made." open in the study). A file
  /// uses it where it was cut for length, to skip decoding across a cut that a sentence plainly
  /// ends at (a piece cut there often ends soon after the last word, which leaves the model
  /// less sure of the full stop than a live pause would: 0.71 after "than he was." at such a
  /// cut, where the live rule's look 0.2 s into the pause reads above 0.8).
  public static func isCertain(_ transcript: MoonshineTranscript) -> Bool {
    guard endsSentence(transcript.text), let word = lastWord(of: transcript.text),
      !holdWords.contains(word), let after = transcript.afterLastWord
    else { return false }
    return after.terminal >= 0.5 && after.word <= 0.002
  }

  /// Words that do not end a sentence: articles, possessives, conjunctions, prepositions that
  /// are not also particles ("turn the lights on" ends in one), modals, "be", "very".
  public static let holdWords: Set<String> = Set(
    """
    a an the my your our their
    and or but nor because although though unless whether if while whereas than
    of to for with from into onto at as upon toward towards between among without within via
    might must could would should shall
    be been being very
    """.split(whereSeparator: \.isWhitespace).map(String.init))

  /// Whether the text ends in `. ? !` or `…`, maybe followed by closing quotes or brackets.
  static func endsSentence(_ text: String) -> Bool {
    var text = Substring(text.trimmingCharacters(in: .whitespaces))
    while let last = text.last, TokenClass.closingCharacters.contains(last) {
      text = text.dropLast()
    }
    return text.last.map(TokenClass.terminalCharacters.contains) ?? false
  }

  /// The text's last word, lowercased, without punctuation (hyphens split words).
  static func lastWord(of text: String) -> String? {
    text.lowercased().split { !($0.isLetter || $0.isNumber || $0 == "'") }.last.map(String.init)
  }
}
