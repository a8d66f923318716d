#!/usr/bin/env python3
"""Latency of `transcribe serve`'s Realtime transcription WebSocket, as a live client sees it.

Streams speech (24 kHz 16-bit PCM, 100 ms appends at real-time pace, server VAD, then 1.5 s of
silence so the last utterance ends) on `/v1/realtime?intent=transcription` from N sessions at
once, and times each event on the clock of the audio sent: the word times come from the same
server's `verbose_json` for the same file (`--reference-model`: pocketsphinx by default, whose
word times come from aligning the audio; Moonshine's are estimates).

- **first delta**: from the end of the first word's audio to the first
  `conversation.item.input_audio_transcription.delta` (target ≤ 0.5 s, issue 27);
- **fidelity**: how many items' deltas, joined, read as their `completed` transcript (case and
  punctuation aside): a delta cannot be taken back, so a word sent too early shows here;
- **completed**: for each item, from the end of its last word's audio to its `completed`
  (this includes the pause server VAD waits for: `silence_duration_ms`, 500 by default), and
  from its `input_audio_buffer.speech_stopped` to its `completed` (target ≤ 0.6 s after speech
  stops; p95 ≤ 1.0 s with as many sessions as the vosk protocol holds).

    python3 Benchmarks/openai/realtime_latency.py --url http://127.0.0.1:2700 \\
        [--sessions 1,2,4] [--audio FILE ...] [--token T]

Needs `websockets` and sox. Run against a release build on a quiet machine for the figures
that count (see README.md here); prints one line per session count and a JSON summary.
"""

import argparse
import asyncio
import base64
import json
import statistics
import subprocess
import time
import urllib.request
import uuid

import websockets

DEFAULT_AUDIO = [
    "/usr/share/pocketsphinx/test/data/librivox/sense_and_sensibility_01_austen_64kb-0870.wav",
    "/usr/share/pocketsphinx/test/data/goforward.raw",
]


def pcm24k(path):
    source = (["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", path]
              if path.endswith(".raw") else [path])
    return subprocess.run(
        ["sox"] + source + ["-t", "raw", "-r", "24000", "-c", "1", "-e", "signed", "-b", "16",
                            "-"], check=True, capture_output=True).stdout


def wav16k(path):
    """The file as a 16 kHz WAV for the REST reference."""
    source = (["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", path]
              if path.endswith(".raw") else [path])
    return subprocess.run(["sox"] + source + ["-t", "wav", "-r", "16000", "-c", "1", "-"],
                          check=True, capture_output=True).stdout


def reference_words(base, token, path, model):
    """Word times of the file, from the same server's verbose_json with `model`."""
    boundary = uuid.uuid4().hex
    fields = [("response_format", "verbose_json"), ("timestamp_granularities[]", "word"),
              ("model", model)]
    body = b""
    for name, value in fields:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                 f"{value}\r\n").encode()
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
             f"filename=\"a.wav\"\r\nContent-Type: audio/wav\r\n\r\n").encode()
    body += wav16k(path) + f"\r\n--{boundary}--\r\n".encode()
    request = urllib.request.Request(
        base + "/v1/audio/transcriptions", data=body, method="POST",
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                 "Authorization": "Bearer " + token})
    answer = json.loads(urllib.request.urlopen(request, timeout=300).read())
    return [(word["start"], word["end"]) for word in answer.get("words", [])]


async def session(base, token, audio, chunk_seconds=0.1, silence=1.5):
    """One session at real-time pace; returns its events with `t`, the audio time (seconds
    sent) at which each arrived."""
    url = base.replace("http://", "ws://").replace("https://", "wss://")
    url += "/v1/realtime?intent=transcription"
    events = []
    async with websockets.connect(
            url, max_size=None, additional_headers={"Authorization": "Bearer " + token}) as ws:
        await ws.send(json.dumps({"type": "session.update", "session": {
            "type": "transcription", "audio": {"input": {"turn_detection": {
                "type": "server_vad", "silence_duration_ms": 500}}}}}))
        data = audio + bytes(int(silence * 24000) * 2)
        step = int(24000 * chunk_seconds) * 2
        started = None

        async def receive():
            async for message in ws:
                event = json.loads(message)
                event["t"] = time.monotonic() - started if started else 0.0
                events.append(event)

        receiver = asyncio.create_task(receive())
        started = time.monotonic()
        sent = 0.0
        try:
            for offset in range(0, len(data), step):
                piece = data[offset:offset + step]
                await ws.send(json.dumps({"type": "input_audio_buffer.append",
                                          "audio": base64.b64encode(piece).decode()}))
                sent += len(piece) / 48000
                delay = started + sent - time.monotonic()
                if delay > 0:
                    await asyncio.sleep(delay)
            await asyncio.sleep(2)
        except websockets.ConnectionClosed as closed:
            events.append({"type": "closed", "code": closed.rcvd.code if closed.rcvd else None})
        receiver.cancel()
        try:
            await receiver
        except (asyncio.CancelledError, websockets.ConnectionClosed):
            pass
    return events


def measure(events, words):
    """First-delta and completed latencies of one session against the reference words."""
    deltas = [e for e in events
              if e.get("type") == "conversation.item.input_audio_transcription.delta"]
    completed = [e for e in events
                 if e.get("type") == "conversation.item.input_audio_transcription.completed"]
    stopped = {e["item_id"]: e for e in events
               if e.get("type") == "input_audio_buffer.speech_stopped"}
    result = {"first_delta": None, "after_last_word": [], "after_speech_stopped": [],
              "items": len(completed), "faithful_items": 0,
              "refused": any(e.get("type") == "closed" for e in events)}
    if deltas and words:
        result["first_delta"] = deltas[0]["t"] - words[0][1]
    # Each item's first delta, from the end of the first word after its speech started.
    started = {e["item_id"]: e for e in events
               if e.get("type") == "input_audio_buffer.speech_started"}
    result["item_first_delta"] = []
    for item, start in started.items():
        first = next((e for e in deltas if e["item_id"] == item), None)
        # speech_started's audio_start_ms includes the padding before the first word.
        ends = [w[1] for w in words if w[1] > start["audio_start_ms"] / 1000 + 0.1]
        if first and ends:
            result["item_first_delta"].append(first["t"] - min(ends))
    # Fidelity: an item's deltas joined read as its completed transcript (case and punctuation
    # aside). A delta cannot be taken back, so a word sent too early shows here.
    for event in completed:
        joined = "".join(e["delta"] for e in deltas if e["item_id"] == event["item_id"])
        if normalized(joined) == normalized(event["transcript"]):
            result["faithful_items"] += 1
    for event in completed:
        stop = stopped.get(event["item_id"])
        if stop:
            result["after_speech_stopped"].append(event["t"] - stop["t"])
            # The last word that ended before the detector's end of speech.
            end = stop["audio_end_ms"] / 1000
            ended = [w[1] for w in words if w[1] <= end]
            if ended:
                result["after_last_word"].append(event["t"] - max(ended))
    return result


def normalized(text):
    """Lowercase words without punctuation."""
    return " ".join("".join(c for c in word.lower() if c.isalnum() or c == "'")
                    for word in text.split())


def p95(values):
    if not values:
        return None
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def summary(values):
    if not values:
        return "n/a"
    return (f"median {statistics.median(values):.2f} s, p95 {p95(values):.2f} s, "
            f"max {max(values):.2f} s")


async def run(base, token, files, count, reference):
    audio = [(pcm24k(path), reference_words(base, token, path, reference)) for path in files]
    jobs = [session(base, token, audio[n % len(audio)][0]) for n in range(count)]
    results = await asyncio.gather(*jobs)
    return [measure(events, audio[n % len(audio)][1]) for n, events in enumerate(results)]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:2700")
    parser.add_argument("--token", default="unused")
    parser.add_argument("--sessions", default="1,2,4")
    parser.add_argument("--audio", nargs="*", default=DEFAULT_AUDIO)
    # pocketsphinx's word times come from its alignment of the audio; Moonshine's are estimates
    # (an utterance's speech shared among its words by their length).
    parser.add_argument("--reference-model", default="pocketsphinx")
    arguments = parser.parse_args()
    base = arguments.url.rstrip("/")
    report = {}
    for count in [int(n) for n in arguments.sessions.split(",")]:
        measured = asyncio.run(
            run(base, arguments.token, arguments.audio, count, arguments.reference_model))
        first = [m["first_delta"] for m in measured if m["first_delta"] is not None]
        item_first = [v for m in measured for v in m["item_first_delta"]]
        after_word = [v for m in measured for v in m["after_last_word"]]
        after_stop = [v for m in measured for v in m["after_speech_stopped"]]
        items = sum(m["items"] for m in measured)
        faithful = sum(m["faithful_items"] for m in measured)
        refused = sum(1 for m in measured if m["refused"])
        print(f"{count} session(s) ({refused} closed early), {items} items "
              f"({faithful} with deltas that read as completed): first delta after the first "
              f"word {summary(first)}; each item's first delta after its first word "
              f"{summary(item_first)}; completed after the last word {summary(after_word)}; "
              f"completed after speech_stopped {summary(after_stop)}")
        report[count] = {"first_delta": first, "item_first_delta": item_first,
                         "after_last_word": after_word,
                         "after_speech_stopped": after_stop, "items": items,
                         "faithful_items": faithful, "refused": refused}
    print(json.dumps(report))


if __name__ == "__main__":
    main()
