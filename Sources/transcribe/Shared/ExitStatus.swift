import ArgumentParser
import Foundation
import Recognition
import SpeechClient
import SpeechRecognitionFeature

/// The exit statuses of `transcribe`, one per kind of failure, so scripts can tell them apart.
enum ExitStatus: Int32, CaseIterable {
  case success = 0
  /// An unexpected error.
  case failure = 1
  /// No PulseAudio server answered.
  case audioServerUnreachable = 2
  /// The capture source (`--device`) does not exist.
  case captureSourceMissing = 3
  /// The audio device stopped delivering audio while recording.
  case audioDeviceFailed = 4
  /// The speech model is missing or could not be loaded.
  case modelUnavailable = 5
  /// An input file could not be read.
  case fileUnreadable = 6
  /// Recognition is not authorized here (access denied, or no capture source or model).
  case notAuthorized = 7
  /// The decoder failed.
  case decoderFailure = 8
  /// Stopping took too long; the process gave up waiting for the last words.
  case stopTimedOut = 9
  /// A grammar, key phrase or dictionary given on the command line cannot be used.
  case modelInvalid = 10
  /// The transcript could not be written (standard output closed or full).
  case outputFailed = 11
  /// `transcribe serve` could not listen (the port is in use, the host unknown).
  case cannotListen = 12
  /// `transcribe dictate` cannot type here (no display server, the typer missing or refused).
  case typingUnavailable = 13
  /// `transcribe dictate`: another dictation is already running in this user session.
  case dictationRunning = 14
  /// `transcribe dictate --toggle` (or --pause, --resume, --stop): no dictation is running.
  case noDictationRunning = 15
  /// The language cannot be decoded as asked: unknown, or not by the engine asked for.
  case languageUnsupported = 16
  /// `transcribe dictate --toggle` (or --pause, --resume, --stop): the running dictation did not
  /// answer in time (stuck, or stopped).
  case dictationNotAnswering = 17
  /// A second Ctrl-C ended the process at once.
  case interrupted = 130

  var exitCode: ExitCode { ExitCode(rawValue) }

  /// The help text's table of statuses.
  static let documentation = """
    EXIT STATUS:
      0    success (also after Ctrl-C or SIGTERM once: the last words are flushed)
      1    unexpected error
      2    no PulseAudio server answered
      3    the capture source does not exist
      4    the audio device stopped delivering audio
      5    the speech model is missing or could not be loaded
      6    an input file could not be read
      7    speech recognition is not authorized (access refused, no source or model)
      8    the decoder failed
      9    stopping timed out
      10   a grammar, key phrase or dictionary given on the command line cannot be used
      11   the transcript could not be written (standard output closed or full)
      12   transcribe serve could not listen (port in use, no permission, unknown host)
      13   transcribe dictate cannot type here (no display server; typer missing or refused)
      14   transcribe dictate: a dictation is already running
      15   transcribe dictate --toggle/--pause/--resume/--stop: no dictation is running
      16   the language cannot be decoded as asked (unknown, or not by that engine)
      17   transcribe dictate --toggle (or --pause...): no answer within 3 s
      64   invalid command-line usage
      130  interrupted by a second Ctrl-C
    """
}

extension SpeechClient.Failure {
  /// The exit status for this failure.
  var exitStatus: ExitStatus {
    switch self {
    case .audioServerUnreachable: .audioServerUnreachable
    case .captureSourceMissing, .captureSourceNotFound: .captureSourceMissing
    case .audioDeviceFailed: .audioDeviceFailed
    case .modelMissing, .modelCorrupt, .modelFileNotFound, .engineUnavailable: .modelUnavailable
    case .grammarInvalid, .wordNotInDictionary, .dictionaryInvalid: .modelInvalid
    case .fileUnreadable: .fileUnreadable
    case .decoderFailure: .decoderFailure
    case .languageUnsupported: .languageUnsupported
    }
  }

  /// One line that says what went wrong and how to fix it.
  var message: String {
    Self.oneLine(rawMessage)
  }

  /// Joins lines into one.
  static func oneLine(_ text: String) -> String {
    text.split(whereSeparator: \.isNewline).joined(separator: " ")
  }

  private var rawMessage: String {
    "\(problem)\(fix)"
  }

  /// How to fix the failure with the CLI's options, after ``SpeechClient/Failure/problem``.
  private var fix: String {
    switch self {
    case .audioServerUnreachable:
      ". Start one (e.g. `pulseaudio --start`, or set PULSE_SERVER), or transcribe a file with "
        + "--input FILE, or try --preview."
    case .captureSourceMissing:
      ". Connect a microphone, or pass a source with --device NAME (see `transcribe "
        + "--list-devices`)."
    case .captureSourceNotFound(_, let available):
      available.isEmpty
        ? ". Connect a microphone, or transcribe a file with --input FILE."
        : ". Pass one of them with --device NAME (`transcribe --list-devices` describes them), "
          + "or omit --device."
    case .audioDeviceFailed:
      ". Check that the PulseAudio server is running and responsive, then try again."
    case .modelMissing:
      ". Install it with `apt-get install pocketsphinx-en-us`, or point --hmm/--lm/--dict at "
        + "your model files."
    case .modelCorrupt:
      (Installation.current == .debianPackage
        ? ". Reinstall it (`sudo apt install --reinstall transcribe pocketsphinx-en-us`), "
        : ". Reinstall it (pocketsphinx-en-us, or ./scripts/install-dependencies.sh for Moonshine), ")
        + "or check the files given with --model/--hmm/--lm/--dict/--grammar."
    case .engineUnavailable(let engine, _) where engine == "Whisper":
      // Only Whisper hears other languages than English.
      "; \(Installation.current.installWhisper), or transcribe English (--language en)."
    case .engineUnavailable:
      // The engine's reason names what was looked for and how to install it.
      "; or use --engine pocketsphinx."
    case .languageUnsupported:
      ". See `transcribe --list-languages`; other languages than English need Whisper (leave "
        + "out --engine, or pass --engine whisper)."
    case .fileUnreadable:
      ". Pass an audio file libsndfile reads (WAV, FLAC, OGG, ...), or headerless 16 kHz mono "
        + "16-bit audio with --raw."
    case .modelFileNotFound(let kind, _):
      ". Check the path given with \(kind.option)."
    case .grammarInvalid:
      ". Fix it (JSGF V1.0), or leave out --grammar."
    case .wordNotInDictionary:
      ". Use words from the dictionary, or add the word to a dictionary of your own and pass it "
        + "with --dict."
    case .dictionaryInvalid:
      ". Pass a pronunciation dictionary (a word and its phones on each line) with --dict, or "
        + "leave out --dict."
    case .decoderFailure:
      ". Run again with --verbose to see pocketsphinx's log."
    }
  }
}

extension SpeechClient.Failure.ModelFile {
  /// The option that names this file.
  var option: String {
    switch self {
    case .acousticModel: "--hmm"
    case .languageModel: "--lm"
    case .dictionary: "--dict"
    case .grammar: "--grammar"
    case .modelDirectory: "--model"
    case .voiceActivityModel: "--vad-model"
    }
  }
}

extension SpeechRecognition.State {
  /// How a finished session ends the process, and the line to print for it, if any.
  var exit: (status: ExitStatus, message: String?) {
    switch outcome {
    case nil, .finished, .cancelled:
      return (.success, nil)
    case .failed(let failure):
      return (failure.exitStatus, failure.message)
    case .notAuthorized(let authorization):
      // The client says what exactly is missing when it knows.
      if let reason = authorization.reason {
        return (reason.exitStatus, reason.message)
      }
      let alert = alert ?? .notDetermined
      return (.notAuthorized, "\(alert.title): \(alert.message)")
    case .stopTimedOut:
      return (
        .stopTimedOut,
        "the recognizer did not deliver its last words within 10 seconds of the stop; what was "
          + "heard so far is above. Check that the audio server is responsive, then try again."
      )
    }
  }
}
