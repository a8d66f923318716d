#!/usr/bin/env python3
"""A vosk-server WebSocket client that does what vosk's example client (websocket/test.py) does.

It sends the configuration with the file's sample rate, then the audio in 0.2 s chunks, waiting
for exactly one reply after each, then {"eof" : 1} and its reply. Every reply is printed as one
line of JSON on stdout, and finally {"close": CODE, "reason": "..."} once the server closed.

    vosk_client.py ws://127.0.0.1:2700 speech.wav [--token T] [--words/--no-words] [--realtime]
                   [--chunk-bytes N] [--phrases "A, B"]

A .raw file is headerless 16 kHz mono 16-bit little-endian audio. --realtime sends each chunk
when its audio would have been spoken, as a microphone does; --latency writes to stderr how long
each reply took after its message was sent, and how long the last words took after the end.
--chunk-bytes sends chunks of that many bytes instead (e.g. more than the server accepts).
--phrases sends them as the configuration's phrase_list (comma-separated); --language CODE
sends the configuration's language (ours, not vosk-server's).
"""

import argparse
import asyncio
import json
import sys
import time
import wave

import websockets


def read_audio(path):
    if path.endswith(".raw"):
        with open(path, "rb") as raw:
            return 16000, raw.read()
    with wave.open(path, "rb") as wav:
        if wav.getnchannels() != 1 or wav.getsampwidth() != 2:
            sys.exit("vosk_client: the WAV file must be 16-bit mono")
        return wav.getframerate(), wav.readframes(wav.getnframes())


async def run(arguments):
    rate, audio = read_audio(arguments.audio)
    headers = {}
    if arguments.token:
        headers["Authorization"] = "Bearer " + arguments.token
    async with websockets.connect(arguments.uri, additional_headers=headers) as websocket:
        config = {"sample_rate": rate}
        if arguments.words is not None:
            config["words"] = arguments.words
        if arguments.phrases is not None:
            config["phrase_list"] = [p.strip() for p in arguments.phrases.split(",") if p.strip()]
        if arguments.language is not None:
            config["language"] = arguments.language
        await websocket.send(json.dumps({"config": config}))
        try:
            chunk = arguments.chunk_bytes or int(rate * 0.2) * 2
            began = time.monotonic()
            latencies = []
            for index, start in enumerate(range(0, len(audio), chunk)):
                if arguments.realtime:
                    await asyncio.sleep(max(0, began + index * 0.2 - time.monotonic()))
                sent = time.monotonic()
                await websocket.send(audio[start:start + chunk])
                print(await websocket.recv(), flush=True)
                latencies.append(time.monotonic() - sent)
            sent = time.monotonic()
            await websocket.send('{"eof" : 1}')
            print(await websocket.recv(), flush=True)
            if arguments.latency and latencies:
                ordered = sorted(latencies)
                print(json.dumps({
                    "replies": len(ordered),
                    "p50_ms": round(1000 * ordered[len(ordered) // 2], 1),
                    "p95_ms": round(1000 * ordered[int(len(ordered) * 0.95)], 1),
                    "max_ms": round(1000 * ordered[-1], 1),
                    "final_ms": round(1000 * (time.monotonic() - sent), 1),
                }), file=sys.stderr, flush=True)
            try:
                await websocket.recv()
            except websockets.ConnectionClosed:
                pass
        except websockets.ConnectionClosed:
            # The server closed first (a limit, or its shutdown): its close code says why.
            pass
        print(json.dumps({"close": websocket.close_code, "reason": websocket.close_reason}),
              flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uri")
    parser.add_argument("audio")
    parser.add_argument("--token")
    parser.add_argument("--words", action=argparse.BooleanOptionalAction, default=None)
    parser.add_argument("--realtime", action="store_true")
    parser.add_argument("--latency", action="store_true")
    parser.add_argument("--chunk-bytes", type=int)
    parser.add_argument("--phrases")
    parser.add_argument("--language", help="the config's language (ours: en, de, auto, ...)")
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
