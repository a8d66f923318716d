// `DictationRenderer.swift` is the executable's own file (linked here); its `Output` is
// `TranscriptRenderer.Output`, which in the executable lives beside the file renderer. This is the
// same two-case enum, so the renderer compiles here unchanged.
enum TranscriptRenderer {
  enum Output: Equatable {
    case stdout(String)
    case stderr(String)
  }
}
