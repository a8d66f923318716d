import Foundation
import Testing

@testable import Whisper

@Suite struct WhisperTranscriberTests {
  @Test func theEncoderWindowFitsTheUtteranceUpToTheFullWindow() {
    // 50 frames a second and 64 more; 30 s and more take the full window (0).
    #expect(WhisperTranscriber.audioContext(samples: 16_000) == 114)
    #expect(WhisperTranscriber.audioContext(samples: 16_001) == 115)
    #expect(WhisperTranscriber.audioContext(samples: 3 * 16_000 + 3_200) == 224)
    #expect(WhisperTranscriber.audioContext(samples: 28 * 16_000) == 1_464)
    #expect(WhisperTranscriber.audioContext(samples: 29 * 16_000) == 0)
    #expect(WhisperTranscriber.audioContext(samples: 40 * 16_000) == 0)
  }

  @Test func thePromptIsTheConfiguredTextThenThePhrases() {
    #expect(WhisperTranscriber.prompt(nil, phrases: []) == nil)
    #expect(WhisperTranscriber.prompt("  ", phrases: [" "]) == nil)
    #expect(WhisperTranscriber.prompt("Minutes.", phrases: []) == "Minutes.")
    #expect(
      WhisperTranscriber.prompt("Minutes.", phrases: ["Saoirse", "Kallax"])
        == "Minutes., Saoirse, Kallax")
    #expect(WhisperTranscriber.prompt(nil, phrases: ["Saoirse"]) == "Saoirse")
  }
}
