#!/usr/bin/env python3
"""How soon final words come after the last word, streaming at real-time pace.

  latency.py wyoming tcp://127.0.0.1:10300 SET --clip goforward --runs 20
  latency.py vosk ws://127.0.0.1:2700 SET [--clip NAME ...] [--runs 3]

SET is the folder `make_set.py` writes: its set.json has every clip's words with where each
word's sound ends (`words[i][3]`, seconds), so "the last word" is measured, not guessed.

- **wyoming**: Home Assistant's sequence (transcribe, audio-start, 100 ms audio-chunks at
  real-time pace) with the clip, then silence at the same pace until the transcript comes
  (never audio-stop: the server's own endpointing ends the command, as with a satellite that
  keeps streaming). Latency: from when the last word's end was due (the start plus its time in
  the clip) to the transcript.
- **vosk**: one stream per run with every clip named, each followed by 2.5 s of silence, in
  messages of `--chunk-ms` (default 100 ms; vosk's demo client sends 250 ms) at real-time
  pace; each final result is matched to its clip in order. Latency: from when that clip's last word's end was due to the final.

Prints one JSON line per measurement and a summary per clip and overall (median, p95). Run
against a release build on a quiet machine for the figures that count (README.md here).
"""

import argparse
import asyncio
import json
import statistics
import time
import wave
from pathlib import Path

RATE = 16000
PCM_DIRECTORY = "/usr/share/pocketsphinx/test/data"


def clip_samples(clip: dict) -> bytes:
    source = Path(PCM_DIRECTORY) / clip["source"]
    if source.suffix == ".raw":
        return source.read_bytes()
    with wave.open(str(source)) as audio:
        return audio.readframes(audio.getnframes())


def last_word_end(clip: dict) -> float:
    return float(clip["words"][-1][3])


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


def summary(values):
    return {"n": len(values), "median_s": round(statistics.median(values), 3),
            "p95_s": round(p95(values), 3), "min_s": round(min(values), 3),
            "max_s": round(max(values), 3)}


async def wyoming_run(uri: str, clip: dict) -> dict:
    from wyoming.asr import Transcribe, Transcript
    from wyoming.audio import AudioChunk, AudioStart, AudioStop
    from wyoming.client import AsyncClient

    pcm = clip_samples(clip) + bytes(2 * RATE * 3)
    async with AsyncClient.from_uri(uri) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(RATE, 2, 1).event())
        got = {}

        async def reader():
            while True:
                event = await client.read_event()
                if event is None:
                    return
                if Transcript.is_type(event.type):
                    got["at"] = time.monotonic()
                    got["text"] = Transcript.from_event(event).text
                    return

        reading = asyncio.create_task(reader())
        step = RATE // 10 * 2
        start = time.monotonic()
        for index, position in enumerate(range(0, len(pcm), step)):
            if reading.done():
                break
            # Chunk n holds n × 100 ms to (n + 1) × 100 ms: it leaves when its last sample is due.
            await asyncio.sleep(max(0, start + (index + 1) * 0.1 - time.monotonic()))
            await client.write_event(AudioChunk(RATE, 2, 1, pcm[position:position + step]).event())
        if not reading.done():
            await client.write_event(AudioStop().event())
        await reading
    if "at" not in got:
        return {"clip": clip["name"], "error": "no transcript"}
    return {"clip": clip["name"], "latency_s": round(got["at"] - start - last_word_end(clip), 3),
            "text": got["text"]}


async def vosk_run(uri: str, clips: list[dict], chunk_ms: int) -> list[dict]:
    import websockets

    gap = 2.5
    pcm = b""
    ends = []
    for clip in clips:
        ends.append(len(pcm) / 2 / RATE + last_word_end(clip))
        pcm += clip_samples(clip) + bytes(int(2 * RATE * gap))
    results = []
    async with websockets.connect(uri, max_size=None) as socket:
        await socket.send(json.dumps({"config": {"sample_rate": RATE}}))
        finals = []

        async def reader():
            async for message in socket:
                reply = json.loads(message)
                if reply.get("text"):
                    finals.append((time.monotonic(), reply["text"]))

        reading = asyncio.create_task(reader())
        step = 2 * RATE * chunk_ms // 1000
        start = time.monotonic()
        for index, position in enumerate(range(0, len(pcm), step)):
            await asyncio.sleep(max(0, start + (index + 1) * step / 2 / RATE - time.monotonic()))
            await socket.send(pcm[position:position + step])
        await socket.send(json.dumps({"eof": 1}))
        try:
            await asyncio.wait_for(reading, timeout=10)
        except asyncio.TimeoutError:
            reading.cancel()
    for clip, end, final in zip(clips, ends, finals):
        results.append({"clip": clip["name"], "latency_s": round(final[0] - start - end, 3),
                        "text": final[1]})
    if len(finals) != len(clips):
        results.append({"error": f"{len(finals)} finals for {len(clips)} clips",
                        "finals": [text for _, text in finals]})
    return results


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("protocol", choices=["wyoming", "vosk"])
    parser.add_argument("uri")
    parser.add_argument("set", type=Path)
    parser.add_argument("--clip", action="append", help="a clip's name (default: by protocol)")
    parser.add_argument("--runs", type=int, default=None)
    parser.add_argument("--chunk-ms", type=int, default=100, help="vosk: audio per message")
    args = parser.parse_args()
    manifest = json.loads((args.set / "set.json").read_text())
    by_name = {clip["name"]: clip for clip in manifest["clips"]}
    if args.protocol == "wyoming":
        names = args.clip or ["goforward"]
        runs = args.runs or 20
    else:
        names = args.clip or [name for name in by_name if "librivox" in by_name[name]["source"]]
        runs = args.runs or 3
    clips = [by_name[name] for name in names]
    latencies: dict[str, list[float]] = {}
    for run in range(runs):
        if args.protocol == "wyoming":
            results = [await wyoming_run(args.uri, clip) for clip in clips]
        else:
            results = await vosk_run(args.uri, clips, args.chunk_ms)
        for result in results:
            print(json.dumps({"run": run} | result), flush=True)
            if "latency_s" in result:
                latencies.setdefault(result["clip"], []).append(result["latency_s"])
    everything = [value for values in latencies.values() for value in values]
    print(json.dumps({"protocol": args.protocol,
                      "clips": {name: summary(values) for name, values in latencies.items()},
                      "all": summary(everything) if everything else None}), flush=True)


asyncio.run(main())
