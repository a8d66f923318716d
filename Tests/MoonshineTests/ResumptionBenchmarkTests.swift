import Foundation
import LiveTestSupport
import Recognition
import Testing

@testable import Moonshine

/// Figures for `Benchmarks/dictation/README.md` (issue 50's resumption window), printed rather
/// than checked; run with `MOONSHINE_BENCHMARK=resumption` (and optionally
/// `RESUMPTION_PAUSES=0.8,1.5`, `RESUMPTION_WINDOWS=0,2`, `RESUMPTION_GAPS=0.6,1`):
///
/// - the five LibriVox sentences with a thinking pause inside each (`ThinkingPauses`), 2 s
///   apart, streamed through the live path (Silero VAD, sentence endpointing) in 50 ms chunks,
///   as fast as they decode (looks paced by the wall clock), or with `RESUMPTION_AS_SPOKEN=1`
///   paced as live (the recognizer's clock follows the audio; transcriptions cost what they
///   take);
/// - the same sentences without thinking pauses but only `gap` seconds apart, where speech
///   resumes soon after an end that is real (a sentence or clause end in the book).
///
/// For each window (0: none) it prints the word error rate of the final text (revisions applied),
/// the sentence ends inside a sentence, the sentence ends kept at the clips' own ends, the
/// revisions, and the pauses (speech end to speech start) at which speech resumed.
@Suite(
  .enabled(
    if: isModelInstalled && isSileroInstalled && benchmark == "resumption",
    "set MOONSHINE_BENCHMARK=resumption"))
struct ResumptionBenchmarkTests {
  static let asSpoken = ProcessInfo.processInfo.environment["RESUMPTION_AS_SPOKEN"] == "1"

  static func list(_ name: String, _ fallback: [Double]) -> [Double] {
    ProcessInfo.processInfo.environment[name].map {
      $0.split(separator: ",").compactMap { Double($0) }
    } ?? fallback
  }

  /// The final text's utterances after `events`: a revision replaces the last one.
  func utterances(_ events: [RecognitionEvent]) -> (texts: [String], revisions: Int) {
    var texts: [String] = []
    var revisions = 0
    for event in events {
      switch event {
      case .partial: break
      case .utterance(let words): texts.append(words.map(\.text).joined(separator: " "))
      case .revision(let words):
        revisions += 1
        if !texts.isEmpty { texts.removeLast() }
        texts.append(words.map(\.text).joined(separator: " "))
      }
    }
    return (texts, revisions)
  }

  func report(
    _ name: String, samples: [Int16], references: [String], windows: [Double]
  ) throws {
    let reference = normalizedWords(references.joined(separator: " "))
    let lastWords = Set(references.compactMap { normalizedWords($0).last })
    for window in windows {
      var configuration = installedConfiguration
      configuration.voiceActivity = try installedSilero()
      configuration.endpointing = .sentence
      configuration.endOfUtteranceSilence = Endpointing.sentence.defaultSilence
      let recognizer = try MoonshineRecognizer(configuration: configuration)
      recognizer.tuneResumption(window: window > 0 ? window : nil)
      let started = ContinuousClock.now
      let clock = StoppedClock()
      if Self.asSpoken {
        // The recognizer's wall clock follows the audio, so looks are paced as live.
        recognizer.now = clock.now
      }
      var events: [RecognitionEvent] = []
      for start in stride(from: 0, to: samples.count, by: 800) {
        let end = min(start + 800, samples.count)
        clock.advance(bySamples: end - start)
        events += try samples[start..<end].withUnsafeBufferPointer { try recognizer.process($0) }
      }
      if let words = try recognizer.finish(), !words.isEmpty { events.append(.utterance(words)) }
      let seconds = (ContinuousClock.now - started).seconds
      let (texts, revisions) = utterances(events)
      let text = texts.joined(separator: " ")
      let rate = Double(editDistance(normalizedWords(text), reference)) / Double(reference.count)
      let ends = text.split(separator: " ").filter {
        $0.last.map { ".?!".contains($0) } == true && !["mr.", "mrs."].contains($0.lowercased())
      }
      let inside = ends.filter { !lastWords.contains(normalizedWords(String($0)).last ?? "") }
      print(
        "resumption: \(name) window \(window) s: WER \(String(format: "%.3f", rate)), "
          + "\(texts.count) utterances, \(revisions) revisions, ends inside \(inside), "
          + "ends at clip ends \(ends.count - inside.count), decoded in "
          + String(format: "%.1f", seconds) + " s\n  \(texts)")
    }
  }

  @Test func thinkingPausesAndShortGaps() throws {
    let windows = Self.list("RESUMPTION_WINDOWS", [0, 1, 1.5, 2, 2.5])
    let directory = try TemporaryDirectory()
    for pause in Self.list("RESUMPTION_PAUSES", [0.5, 0.8, 1.2, 1.5]) {
      let files = try ThinkingPauses.files(pause: pause, in: directory.url)
      let gap = [Int16](repeating: 0, count: 32_000)
      var samples = gap
      for file in files { samples += try NoisySpeech.samples(of: file.url) + gap }
      try report(
        "pause \(pause) s", samples: samples, references: files.map(\.reference),
        windows: windows)
    }
    for gap in Self.list("RESUMPTION_GAPS", [0.6, 1.0]) {
      let room = try NoisySpeech.room(in: directory.url, snr: nil, pause: gap)
      try report(
        "sentences \(gap) s apart", samples: try NoisySpeech.samples(of: room.url),
        references: room.references, windows: windows)
    }
  }
}
