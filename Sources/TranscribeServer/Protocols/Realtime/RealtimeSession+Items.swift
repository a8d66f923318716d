import Foundation
import SpeechClient
import SpeechRecognitionFeature

/// The items a Realtime session makes of the words it hears, as changes to its state: which item
/// the words belong to, the deltas that carry each word once, `speech_started`,
/// `speech_stopped`, `committed` and `completed`, and the timeouts of quiet audio. The session's
/// reducer (``RealtimeSession``) decides when; these say what goes out.
extension RealtimeSession.State {
  /// A new item, numbered after the last.
  mutating func newItem() -> RealtimeSession.Item {
    items += 1
    return RealtimeSession.Item(id: "item_\(id)_\(items)")
  }

  /// Opens an item for words heard with server VAD: `speech_started`.
  mutating func announceSpeech(firstWord: TranscriptionSegment) {
    guard item == nil || item?.isAnnounced == false else { return }
    var item = self.item ?? newItem()
    item.isAnnounced = true
    self.item = item
    let padding = Double(configuration.turnDetection?.prefixPaddingMilliseconds ?? 0)
    let runStart = run?.start ?? bufferMilliseconds
    let start = max(
      runStart + firstWord.timestamp * 1000 - padding, runStart, lastItemEnd)
    stream.outbox.append(
      .event(.speechStarted(itemID: item.id, audioStartMilliseconds: Int(start.rounded()))))
  }

  /// Sends the words of `words` past those sent already. Unless `isFinal`, only the words that
  /// have settled count (``SettledWords``: the decoder is sure or two looks agree, another word
  /// follows, no loop). A delta cannot be taken back: where the recognizer still revises a word
  /// already sent, the deltas keep the word as first heard and `completed` has the final one.
  mutating func sendDelta(
    words allWords: [TranscriptionSegment], isFinal: Bool = false
  ) {
    var words = allWords
    if !isFinal {
      // The pending words are finished utterances' words, then the partial ones.
      let partial = recognition?.result?.bestTranscription.partialSegments.count ?? 0
      let settled =
        run?.heard.settle(
          allWords.map(SettledWords.Word.init), finished: max(0, allWords.count - partial)) ?? 0
      words = Array(allWords.prefix(settled))
    }
    guard var item = self.item, item.isAnnounced else { return }
    guard words.count > item.sentWords else { return }
    let new = words[item.sentWords...]
    let text = (item.sentWords > 0 ? " " : "") + OpenAITranscription.text(of: new)
    // Partial words carry log probabilities when the engine decodes tokens (Moonshine), as
    // the decoder found them when they settled; pocketsphinx's have none until decided.
    let logprobs =
      configuration.includesLogprobs && (isFinal || new.allSatisfy { !$0.tokens.isEmpty })
      ? OpenAITranscription.logprobs(of: [new]) : nil
    item.sentWords = words.count
    self.item = item
    stream.outbox.append(.event(.delta(itemID: item.id, text: text, logprobs: logprobs)))
  }

  /// Completes the current item with `words`: the rest of its deltas and `completed`.
  mutating func complete(words: [TranscriptionSegment]) {
    guard let item else { return }
    sendDelta(words: words, isFinal: true)
    stream.outbox.append(
      .event(
        .completed(
          itemID: item.id, transcript: OpenAITranscription.text(of: words), words: words.count,
          logprobs: configuration.includesLogprobs
            ? OpenAITranscription.logprobs(of: [words]) : nil)))
    self.item = nil
    run?.heard.reset()
  }

  /// The words of the current run not in an item yet: its finished utterances not taken, then
  /// its partial words.
  var pendingWords: [TranscriptionSegment] {
    guard let run = self.run, let transcription = run.recognition.result?.bestTranscription
    else { return [] }
    let utterances = transcription.finishedUtterances
    var words: [TranscriptionSegment] = []
    for index in utterances.indices(from: run.takenUtterances) { words += utterances[index] }
    return words + transcription.partialSegments
  }

  /// With server VAD's `idle_timeout_ms`: once that much audio has come without speech since
  /// the last item (or timeout), `input_audio_buffer.timeout_triggered`, and the quiet audio is
  /// committed as an item with no words.
  mutating func triggerTimeoutIfQuiet() {
    guard let timeout = configuration.turnDetection?.idleTimeoutMilliseconds,
      self.item == nil,
      bufferMilliseconds - max(quietStart, lastItemEnd) >= Double(timeout)
    else { return }
    let item = newItem()
    let start = max(quietStart, lastItemEnd)
    stream.outbox.append(
      .event(
        .timeoutTriggered(
          itemID: item.id, audioStartMilliseconds: Int(start.rounded()),
          audioEndMilliseconds: Int(bufferMilliseconds.rounded()))))
    stream.outbox.append(
      .event(.committed(itemID: item.id, previousItemID: lastItemID)))
    stream.outbox.append(
      .event(.completed(itemID: item.id, transcript: "", words: 0, logprobs: nil)))
    lastItemID = item.id
    quietStart = bufferMilliseconds
    uncommittedMilliseconds = 0
  }

  /// Makes an item of each utterance server VAD ended since the last look.
  mutating func takeUtterances() {
    guard let run = self.run, let transcription = run.recognition.result?.bestTranscription
    else { return }
    let utterances = transcription.finishedUtterances
    for index in utterances.indices(from: run.takenUtterances) {
      let words = Array(utterances[index])
      self.run?.takenUtterances = index + 1
      guard let first = words.first else { continue }
      announceSpeech(firstWord: first)
      guard let item else { continue }
      let decoded = (run.recognition.progress?.audioDuration ?? 0) * 1000
      let lastEnd = (words.last.map { $0.timestamp + $0.duration } ?? 0) * 1000
      let end = run.start + max(decoded, lastEnd)
      stream.outbox.append(
        .event(.speechStopped(itemID: item.id, audioEndMilliseconds: Int(end.rounded()))))
      stream.outbox.append(
        .event(.committed(itemID: item.id, previousItemID: lastItemID)))
      lastItemID = item.id
      lastItemEnd = end
      uncommittedMilliseconds = max(0, bufferMilliseconds - end)
      var committed = item
      committed.isCommitted = true
      self.item = committed
      complete(words: words)
    }
  }
}
