import Foundation

/// Real speech in a noisy room, made with sox from pocketsphinx-testdata's LibriVox clips: what
/// the voice-activity tests decode.
public enum NoisySpeech {
  /// A recording and what is said in it.
  public struct Recording: Sendable {
    /// The 16 kHz mono 16-bit WAV file.
    public var url: URL
    /// Each sentence's reference words, in order.
    public var references: [String]
    /// Where each sentence's clip starts and ends in the recording, in seconds.
    public var spans: [ClosedRange<Double>]
    /// The recording's length, in seconds.
    public var duration: Double
  }

  /// The LibriVox clips (16 kHz mono WAV) and their reference transcripts, in order.
  public static func libriVoxClips() throws -> [(url: URL, reference: String)] {
    let directory = SpeechTestData.directory.appendingPathComponent("librivox")
    let lines = try String(
      contentsOf: directory.appendingPathComponent("transcription"), encoding: .utf8
    ).split(separator: "\n")
    return lines.map { line in
      // "<s> words </s> (file-id)"
      let id = line.split(separator: "(").last!.dropLast()
      let words = line.split(separator: " ").filter { !$0.hasPrefix("<") && !$0.hasPrefix("(") }
      return (directory.appendingPathComponent("\(id).wav"), words.joined(separator: " "))
    }
  }

  /// The five clips one after another with `pause` seconds of quiet before, between and after
  /// them, under steady `noise` (sox's `pinknoise`, `brownnoise`, `whitenoise`) `snr` dB below
  /// the speech (`nil`: no noise).
  public static func room(
    in directory: URL, snr: Double?, noise: String = "pinknoise", pause: Double = 1.5
  ) throws -> Recording {
    let clips = try libriVoxClips()
    let silence = directory.appendingPathComponent("silence-\(pause).wav")
    try sox(["-n", "-r", "16000", "-c", "1", "-b", "16", silence.path, "trim", "0", "\(pause)"])
    var parts = [silence.path]
    var spans: [ClosedRange<Double>] = []
    var position = pause
    for clip in clips {
      let length = Double(try samples(of: clip.url).count) / 16_000
      spans.append(position...position + length)
      position += length + pause
      parts += [clip.url.path, silence.path]
    }
    let speech = directory.appendingPathComponent("room-clean.wav")
    try sox(parts + [speech.path])
    let url = try mix(speech, snr: snr, noise: noise, in: directory, name: "room")
    return Recording(
      url: url, references: clips.map(\.reference), spans: spans, duration: position)
  }

  /// `file` (16 kHz mono) under steady `noise` `snr` dB below its speech; the file itself when
  /// `snr` is `nil`. The noise is the same on every run (sox's `-R`).
  public static func mix(
    _ file: URL, snr: Double?, noise: String = "pinknoise", in directory: URL,
    name: String? = nil
  ) throws -> URL {
    guard let snr else { return file }
    let base = name ?? file.deletingPathExtension().lastPathComponent
    let speech = try samples(of: file)
    let length = Double(speech.count) / 16_000
    let noiseFile = directory.appendingPathComponent("\(base)-\(noise).wav")
    try sox(
      [
        "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noiseFile.path, "synth", "\(length)",
        noise,
        "vol", "0.5",
      ])
    // The speech's level: the RMS of its louder half of 20 ms frames (the pauses left out).
    let speechLevel = activeRMS(speech)
    let noiseLevel = rms(try samples(of: noiseFile))
    let gain = speechLevel / max(noiseLevel, 1) / pow(10, snr / 20)
    let url = directory.appendingPathComponent("\(base)-\(noise)-\(Int(snr))dB.wav")
    try sox([
      "-m", "-v", "1", file.path, "-v", String(format: "%.6f", gain), noiseFile.path, url.path,
    ])
    return url
  }

  /// The samples of a 16-bit mono file, read through sox.
  public static func samples(of file: URL) throws -> [Int16] {
    let raw = FileManager.default.temporaryDirectory.appendingPathComponent(
      "transcribe-samples-\(UUID().uuidString).raw")
    try sox([
      file.path, "-t", "raw", "-e", "signed", "-b", "16", "-c", "1", "-r", "16000", raw.path,
    ])
    defer { try? FileManager.default.removeItem(at: raw) }
    let data = try Data(contentsOf: raw)
    return stride(from: 0, to: data.count - 1, by: 2).map {
      Int16(bitPattern: UInt16(data[$0]) | UInt16(data[$0 + 1]) << 8)
    }
  }

  private static func rms(_ samples: [Int16]) -> Double {
    guard !samples.isEmpty else { return 0 }
    let sum = samples.reduce(0.0) { $0 + Double($1) * Double($1) }
    return (sum / Double(samples.count)).squareRoot()
  }

  private static func activeRMS(_ samples: [Int16]) -> Double {
    let frame = 320
    let energies = stride(from: 0, to: samples.count - frame + 1, by: frame).map { start in
      samples[start..<start + frame].reduce(0.0) { $0 + Double($1) * Double($1) }
    }.sorted()
    let loud = energies.suffix(max(1, energies.count / 2))
    return (loud.reduce(0, +) / Double(loud.count * frame)).squareRoot()
  }

  private static func sox(_ arguments: [String]) throws {
    try runSox(arguments)
  }
}

/// The word error rate's numerator: substitutions, insertions and deletions that turn
/// `hypothesis` into `reference`.
public func editDistance(_ hypothesis: [String], _ reference: [String]) -> Int {
  var previous = Array(0...reference.count)
  for (i, word) in hypothesis.enumerated() {
    var current = [i + 1]
    for (j, expected) in reference.enumerated() {
      current.append(
        min(previous[j + 1] + 1, current[j] + 1, previous[j] + (word == expected ? 0 : 1)))
    }
    previous = current
  }
  return previous[reference.count]
}
