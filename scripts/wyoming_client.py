#!/usr/bin/env python3
"""A Wyoming client for `transcribe serve --wyoming`, built on the PyPI `wyoming` package.

It prints every event the server sends as one JSON line ({"type": ..., "data": ...}), then
{"closed": true} when the server closes the connection. URI is tcp://HOST:PORT or unix://PATH.

  wyoming_client.py URI describe
  wyoming_client.py URI transcribe AUDIO [--name MODEL] [--language en] [--realtime]
                                          [--no-stop] [--chunk-ms 100] [--names A,B]
      AUDIO: a WAV file (its rate, width and channels are sent as they are) or headerless
      16 kHz mono 16-bit PCM (.raw). Home Assistant's sequence: transcribe, audio-start,
      audio-chunks, audio-stop, then events until the transcript (and transcript-stop).
      --no-stop sends the audio and then silence at real-time pace, never audio-stop, until
      the transcript arrives (server-side endpointing). --names sends transcribe's
      transcript_names (names that should bias the transcription). --until-closed reads on after
      transcript-stop until the server closes.
  wyoming_client.py URI raw HEX    sends these bytes as they are, then reads until closed.
  wyoming_client.py URI abuse COUNT
      Opens COUNT connections for each kind of bad input (see ABUSE) and prints one JSON line
      per kind: the error codes the server answered with ("closed" once it closed).
"""
import argparse
import asyncio
import json
import sys
import wave

from wyoming.asr import Transcribe, Transcript
from wyoming.audio import AudioChunk, AudioStart, AudioStop
from wyoming.client import AsyncClient
from wyoming.event import Event
from wyoming.info import Describe


def show(event):
    if event is None:
        print(json.dumps({"closed": True}), flush=True)
    else:
        print(json.dumps({"type": event.type, "data": event.data}), flush=True)


def read_audio(path):
    if path.endswith(".wav"):
        with wave.open(path, "rb") as audio:
            return (audio.getframerate(), audio.getsampwidth(), audio.getnchannels(),
                    audio.readframes(audio.getnframes()))
    with open(path, "rb") as audio:
        return 16000, 2, 1, audio.read()


async def until_closed(client):
    while True:
        event = await client.read_event()
        show(event)
        if event is None:
            return


async def describe(client, _args):
    await client.write_event(Describe().event())
    show(await client.read_event())


async def transcribe(client, args):
    rate, width, channels, pcm = read_audio(args.audio)
    step = rate * width * channels * args.chunk_ms // 1000
    step -= step % (width * channels)
    names = [name.strip() for name in args.names.split(",")] if args.names else None
    await client.write_event(
        Transcribe(name=args.name, language=args.language, transcript_names=names).event())
    await client.write_event(AudioStart(rate, width, channels).event())
    transcript = asyncio.Event()

    async def reader():
        while True:
            event = await client.read_event()
            show(event)
            if event is None:
                transcript.set()
                return
            if Transcript.is_type(event.type):
                transcript.set()
            if event.type in ("transcript-stop", "error") and not args.until_closed:
                return

    reading = asyncio.create_task(reader())
    pace = args.chunk_ms / 1000 if (args.realtime or args.no_stop) else 0
    silence = bytes(step)
    position = 0
    while not transcript.is_set():
        if position < len(pcm):
            chunk = pcm[position:position + step]
            position += step
        elif args.no_stop:
            chunk = silence
        else:
            break
        try:
            await client.write_event(AudioChunk(rate, width, channels, chunk).event())
        except ConnectionError:
            break
        if pace:
            await asyncio.sleep(pace)
    if not args.no_stop and not transcript.is_set():
        await client.write_event(AudioStop().event())
    await reading


async def raw(client, args):
    client._writer.write(bytes.fromhex(args.hex))
    await client._writer.drain()
    await until_closed(client)


def header(**fields):
    return (json.dumps(fields) + "\n").encode()


# Bad input, by the error code the server should answer with.
ABUSE = {
    "bad-json": b"this is not json\n",
    "header-too-long": b"{" + b" " * (80 << 10),
    "payload-too-long": header(type="audio-chunk", payload_length=50 << 20),
    "data-too-long": header(type="transcribe", data_length=10 << 20),
    "audio-before-start": header(type="audio-chunk", data={"rate": 16000, "width": 2,
                                                           "channels": 1}, payload_length=2)
    + b"\0\0",
    "unknown-model": header(type="transcribe", data={"name": "whisper-large"}),
    "unsupported-language": header(type="transcribe", data={"language": "tlh"}),
    "unsupported-audio": header(type="audio-start", data={"rate": 16000, "width": 5,
                                                          "channels": 1}),
    "unexpected-event": header(type="audio-start", data={"rate": 16000, "width": 2,
                                                         "channels": 1})
    + header(type="transcribe"),
}


async def abuse(uri, count):
    for kind, data in ABUSE.items():
        answers = []
        for _ in range(count):
            client = AsyncClient.from_uri(uri)
            await client.connect()
            try:
                client._writer.write(data)
                await client._writer.drain()
            except ConnectionError:
                pass
            codes = []
            while True:
                try:
                    event = await client.read_event()
                except ConnectionError:
                    event = None
                if event is None:
                    codes.append("closed")
                    break
                codes.append(event.data.get("code", event.type))
            await client.disconnect()
            answers.append(" ".join(codes))
        print(json.dumps({"kind": kind, "answers": sorted(set(answers))}), flush=True)


async def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("uri")
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser("describe")
    command = commands.add_parser("transcribe")
    command.add_argument("audio")
    command.add_argument("--name")
    command.add_argument("--names")
    command.add_argument("--language", default="en")
    command.add_argument("--realtime", action="store_true")
    command.add_argument("--no-stop", action="store_true")
    command.add_argument("--chunk-ms", type=int, default=100)
    command.add_argument("--until-closed", action="store_true")
    command = commands.add_parser("raw")
    command.add_argument("hex")
    command = commands.add_parser("abuse")
    command.add_argument("count", type=int)
    args = parser.parse_args()
    if args.command == "abuse":
        await abuse(args.uri, args.count)
        return
    async with AsyncClient.from_uri(args.uri) as client:
        await {"describe": describe, "transcribe": transcribe, "raw": raw}[args.command](
            client, args)


asyncio.run(main())
