/// What feeding audio to a ``Decoder`` produced.
public enum DecoderEvent: Equatable, Sendable {
  /// The current utterance's hypothesis changed.
  case partial([RecognizedWord])
  /// An utterance ended; these are its final words.
  case utterance([RecognizedWord])
}
