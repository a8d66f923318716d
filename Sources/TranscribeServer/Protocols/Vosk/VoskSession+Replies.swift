import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// The replies a vosk session gives, as changes to its state: a finished utterance when one
/// waits, else the partial words, and the next message let in once the decoder has caught up.
/// The session's reducer (``VoskSession``) decides when.
extension VoskSession.State {
  /// Sends the reply to the last audio message: a finished utterance if one waits, else the
  /// partial words.
  mutating func reply(bufferLimit: Duration) {
    pending = nil
    if !finals.isEmpty {
      stream.outbox.append(.reply(.result(finals.removeFirst())))
    } else {
      let partial = recognition?.result?.bestTranscription.partialSegments ?? []
      stream.outbox.append(
        .reply(.partial(partial.map(\.substring).joined(separator: " "))))
    }
    stream.wantsMessage = true
    allowNextMessageIfBuffered(within: bufferLimit)
  }

  /// Lets the next message in once a reply went out and the audio waiting to be decoded is
  /// within ``ServerConfiguration/maxBufferedAudio``.
  mutating func allowNextMessageIfBuffered(within limit: Duration) {
    let waiting = Double(pushedSamples - decodedSamples)
    stream.allowNextMessage(
      waitingSeconds: waiting / Double(configuration.sampleRate),
      within: limit)
  }

  /// Moves the utterances finished since the last look into ``finals``.
  mutating func takeFinishedUtterances() {
    guard let utterances = recognition?.result?.bestTranscription.finishedUtterances
    else { return }
    for index in utterances.indices(from: takenUtterances) {
      finals.append(Array(utterances[index]))
    }
    takenUtterances = max(takenUtterances, utterances.endIndex)
  }
}
