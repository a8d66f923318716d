#!/usr/bin/env python3
"""A vosk-server WebSocket client that does what vosk's example client (websocket/test.py) does.

It sends the configuration with the file's sample rate, then the audio in 0.2 s chunks, waiting
for exactly one reply after each, then {"eof" : 1} and its reply. Every reply is printed as one
line of JSON on stdout, and finally {"close": CODE, "reason": "..."} once the server closed.

    vosk_client.py ws://127.0.0.1:2700 speech.wav [--token T] [--words/--no-words]

A .raw file is headerless 16 kHz mono 16-bit little-endian audio.
"""

import argparse
import asyncio
import json
import sys
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
        await websocket.send(json.dumps({"config": config}))
        chunk = int(rate * 0.2) * 2
        for start in range(0, len(audio), chunk):
            await websocket.send(audio[start:start + chunk])
            print(await websocket.recv(), flush=True)
        await websocket.send('{"eof" : 1}')
        print(await websocket.recv(), flush=True)
        try:
            await websocket.recv()
        except websockets.ConnectionClosed:
            pass
        print(json.dumps({"close": websocket.close_code, "reason": websocket.close_reason}),
              flush=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uri")
    parser.add_argument("audio")
    parser.add_argument("--token")
    parser.add_argument("--words", action=argparse.BooleanOptionalAction, default=None)
    asyncio.run(run(parser.parse_args()))


if __name__ == "__main__":
    main()
