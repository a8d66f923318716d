import ArgumentParser

/// `--preview`: the lorem client instead of the microphone and model, for `transcribe` and
/// `transcribe serve` alike.
///
/// Both commands include this group: ArgumentParser gives a flag that a parent command and its
/// subcommand declare separately to the parent only, so `transcribe serve --preview` would
/// otherwise never reach `serve`.
struct PreviewOption: ParsableArguments {
  @Flag(
    help: """
      Speak lorem ipsum instead of listening (serve: one word per 0.3 s of audio): no audio \
      server or model is needed.
      """)
  var preview = false
}
