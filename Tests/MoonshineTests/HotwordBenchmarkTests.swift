import Foundation
import LiveTestSupport
import Testing

@testable import Moonshine

/// Figures for `Benchmarks/hotwords/README.md`, printed rather than checked; run with
/// `MOONSHINE_BENCHMARK=hotwords`: the LibriVox clips, clean and under noise (pink, 10 dB SNR),
/// with no hotwords, with 50 and with 500 names they never say: the word error rate, and the
/// decoder's time (best of three rounds) and steps on the clean clips.
@Suite(.enabled(if: isModelInstalled && benchmark == "hotwords", "set MOONSHINE_BENCHMARK"))
struct HotwordBenchmarkTests {
  /// 50 names of lamps, rooms, people and things, none of them in the clips.
  static let fifty =
    HotwordSpeechTests.hotwords + [
      "Lifx", "Hue Gradient", "Aqara", "Shelly", "Zigbee", "Ecobee", "Lutron", "Wiz",
      "Tapo", "Kasa", "Yeelight", "Arlo", "Ring", "Netatmo", "Fibaro", "Sengled", "Wemo",
    ]
  /// 500 phrases: each name with ten things it may name.
  static let fiveHundred = fifty.flatMap { name in
    ["lamp", "light", "room", "speaker", "blinds", "plug", "fan", "camera", "heater", "door"]
      .map { "\(name) \($0)" }
  }

  @Test func hotwordCost() throws {
    let model = try MoonshineModel.shared(installedConfiguration)
    _ = model.hotwords(["warm up"])
    let clock = ContinuousClock()
    let compileStart = clock.now
    _ = model.hotwords(Self.fiveHundred)
    print(
      "hotwords 500: compiled in \((clock.now - compileStart).formatted(.units(allowed: [.milliseconds])))"
    )
    let clips = try libriVoxClips()
    let directory = try TemporaryDirectory()
    let noisy = try NoisySpeech.libriVoxClips().map { clip in
      (
        samples: try NoisySpeech.samples(
          of: try NoisySpeech.mix(clip.url, snr: 10, in: directory.url)),
        reference: clip.reference
      )
    }
    #expect(Set(Self.fifty).count == 50)
    #expect(Set(Self.fiveHundred).count == 500)
    let lists: [(String, MoonshineHotwords?)] = [
      ("none", nil), ("50", model.hotwords(Self.fifty)), ("500", model.hotwords(Self.fiveHundred)),
    ]
    // Once to warm up, then each list in turn, three rounds, keeping each list's best.
    for clip in clips {
      _ = try floats(clip.samples).withUnsafeBufferPointer { try model.transcribe($0) }
    }
    var best: [String: Double] = [:]
    var errors: [String: Int] = [:]
    var words = 0
    var steps: [String: Int] = [:]
    for round in 0..<3 {
      for (label, list) in lists {
        var seconds = 0.0
        var roundErrors = 0
        var roundSteps = 0
        for clip in clips {
          let transcript = try floats(clip.samples).withUnsafeBufferPointer {
            try model.transcribe($0, hotwords: list)
          }
          seconds += transcript.decoderSeconds
          roundSteps += transcript.decoderSteps
          let reference = normalizedWords(clip.reference)
          roundErrors += editDistance(normalizedWords(transcript.text), reference)
          if round == 0, label == "none" { words += reference.count }
        }
        best[label] = min(best[label] ?? .infinity, seconds)
        errors[label] = roundErrors
        steps[label] = roundSteps
      }
    }
    var noisyErrors: [String: Int] = [:]
    var noisyWords = 0
    for (label, list) in lists {
      for clip in noisy {
        let transcript = try floats(clip.samples).withUnsafeBufferPointer {
          try model.transcribe($0, hotwords: list)
        }
        let reference = normalizedWords(clip.reference)
        noisyErrors[label, default: 0] += editDistance(normalizedWords(transcript.text), reference)
        if label == "none" { noisyWords += reference.count }
      }
    }
    for (label, _) in lists {
      print(
        String(
          format: "hotwords %@: noisy WER %.4f (%d errors in %d words)", label,
          Double(noisyErrors[label]!) / Double(noisyWords), noisyErrors[label]!, noisyWords))
      print(
        String(
          format: "hotwords %@: WER %.4f (%d errors in %d words), decoder %.3f s for %d steps "
            + "(best of 3), %.2fx none's",
          label, Double(errors[label]!) / Double(words), errors[label]!, words, best[label]!,
          steps[label]!, best[label]! / best["none"]!))
    }
  }
}
