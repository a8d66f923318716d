#!/usr/bin/env python3
"""Home Assistant's sequence against `transcribe serve --wyoming`, timed.

  latency.py URI AUDIO.raw --runs 20 --clients 1

Each run: transcribe, audio-start, the audio in 100 ms chunks at real-time pace (as a
microphone delivers it), audio-stop; the time from audio-stop to the transcript is the
latency (0 when the server's endpointing sent the transcript before audio-stop). With
--clients K, K clients run each round at once. Prints one JSON line per run and a summary.
"""
import argparse
import asyncio
import json
import statistics
import time

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncClient
from wyoming.error import Error


async def command(uri, pcm):
    """(latency, text, endpointed before audio-stop), or (None, the reason, False) for a
    command the server turned away (every place taken: an `error` event, then the close)."""
    try:
        return await attempt(uri, pcm)
    except (ConnectionError, OSError) as error:
        return None, f"connection lost: {error}", False


async def attempt(uri, pcm):
    async with AsyncClient.from_uri(uri) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(16000, 2, 1).event())
        got = {}

        async def reader():
            while True:
                event = await client.read_event()
                if event is None:
                    return
                if Error.is_type(event.type):
                    got["error"] = Error.from_event(event).text
                    return
                if Transcript.is_type(event.type):
                    got["at"] = time.monotonic()
                    got["text"] = Transcript.from_event(event).text
                    return

        reading = asyncio.create_task(reader())
        start = time.monotonic()
        step = 3200
        for index, position in enumerate(range(0, len(pcm), step)):
            if reading.done():
                break
            await client.write_event(AudioChunk(16000, 2, 1, pcm[position:position + step]).event())
            # Real time: chunk n leaves n × 100 ms after the first.
            await asyncio.sleep(max(0, start + (index + 1) * 0.1 - time.monotonic()))
        stopped = time.monotonic()
        if not reading.done():
            await client.write_event(AudioStop().event())
        await reading
        if "error" in got:
            return None, got["error"], False
        return max(0.0, got.get("at", stopped) - stopped), got.get("text"), "at" in got and got["at"] < stopped


def p95(values):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(0.95 * (len(ordered) - 1))))]


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uri")
    parser.add_argument("audio")
    parser.add_argument("--runs", type=int, default=20)
    parser.add_argument("--clients", type=int, default=1)
    args = parser.parse_args()
    pcm = open(args.audio, "rb").read()
    latencies = []
    early = 0
    refused = 0
    for run in range(args.runs):
        results = await asyncio.gather(*(command(args.uri, pcm) for _ in range(args.clients)))
        for latency, text, before_stop in results:
            if latency is None:
                refused += 1
                print(json.dumps({"run": run, "refused": text}), flush=True)
                continue
            latencies.append(latency)
            early += before_stop
            print(json.dumps({"run": run, "latency_s": round(latency, 3), "text": text,
                              "before_audio_stop": before_stop}), flush=True)
    print(json.dumps({"clients": args.clients, "commands": len(latencies),
                      "median_s": round(statistics.median(latencies), 3),
                      "p95_s": round(p95(latencies), 3), "max_s": round(max(latencies), 3),
                      "endpointed_before_audio_stop": early, "refused": refused}), flush=True)


asyncio.run(main())
