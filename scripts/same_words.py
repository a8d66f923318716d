#!/usr/bin/env python3
"""Sends one recording through a streaming path of `transcribe serve`, first in one piece, then
run after run cut into randomly sized pieces with random pauses between them, and reports
whether every run heard the words of the one piece.

    same_words.py BASE_URL AUDIO.wav --path vosk|realtime|realtime-vad|wyoming|stream
                  [--wyoming tcp://HOST:PORT] [--model NAME] [--runs 10] [--seed 1]

Each run draws its pieces and pauses from a generator seeded with SEED + run number, so a run
that heard other words can be repeated alone with `--runs 1 --seed THAT`. The pieces are from a
single sample (two bytes) to half a second of audio, evenly on a log scale; after three pieces in
ten comes a pause of up to 10 ms. Prints one
JSON object: the reference words, and for every run that differed its seed and its words.

The paths: vosk's WebSocket (`ws://…/`, 16 kHz PCM, then `{"eof": 1}`); OpenAI Realtime
(`/v1/realtime`, 24 kHz PCM in base64) with turn detection off and one commit (`realtime`) or with
server VAD, a second of silence and a commit (`realtime-vad`); Wyoming (`--wyoming`, the `wyoming`
package's client: audio-start, audio-chunks, audio-stop); and an upload with `stream=true`
whose body is sent in pieces (HTTP chunked transfer). The audio is converted with sox without
dither (`-D`), so every run sends the same samples. AUDIO must be a 16 kHz mono 16-bit WAV.
"""

import argparse
import asyncio
import base64
import http.client
import json
import random
import subprocess
import sys
import time
import urllib.parse
import uuid
import wave

import websockets


def words(text):
    """A transcript's words, lowercased, without punctuation."""
    cleaned = "".join(c if c.isalnum() or c in " '" else " " for c in text.lower())
    return cleaned.split()


def pcm16k(path):
    with wave.open(path, "rb") as audio:
        if (audio.getframerate(), audio.getnchannels(), audio.getsampwidth()) != (16000, 1, 2):
            sys.exit("same_words: AUDIO must be a 16 kHz mono 16-bit WAV")
        return audio.readframes(audio.getnframes())


def pcm24k(path):
    command = ["sox", "-D", path, "-t", "raw", "-r", "24000", "-e", "signed", "-b", "16",
               "-c", "1", "-"]
    return subprocess.run(command, check=True, capture_output=True).stdout


class Cutter:
    """Cuts bytes into pieces and waits between them, as a seeded generator says; or sends
    everything in one piece (`rng` None)."""

    def __init__(self, rng, alignment=2, largest=16000):
        self.rng = rng
        self.alignment = alignment
        self.largest = largest

    def pieces(self, data):
        if self.rng is None:
            yield data
            return
        offset = 0
        while offset < len(data):
            # From one sample to `largest` bytes, evenly on a log scale: many small pieces, some
            # large ones.
            units = self.largest // self.alignment
            size = max(1, int(units ** self.rng.random())) * self.alignment
            yield data[offset:offset + size]
            offset += size

    def pause(self):
        if self.rng is None or self.rng.random() < 0.7:
            return 0
        return self.rng.uniform(0, 0.01)


async def vosk(arguments, audio, cutter):
    url = arguments.base.replace("http", "ws", 1).rstrip("/") + "/"
    texts = []
    async with websockets.connect(url, max_size=None) as websocket:
        await websocket.send(json.dumps({"config": {"sample_rate": 16000}}))

        async def receive():
            async for message in websocket:
                reply = json.loads(message)
                if "text" in reply and reply["text"]:
                    texts.append(reply["text"])

        receiver = asyncio.create_task(receive())
        for piece in cutter.pieces(audio):
            await websocket.send(piece)
            await asyncio.sleep(cutter.pause())
        await websocket.send(json.dumps({"eof": 1}))
        await asyncio.wait_for(receiver, arguments.timeout)
    return " ".join(texts)


async def realtime(arguments, audio, cutter, server_vad):
    url = arguments.base.replace("http", "ws", 1).rstrip("/") + "/v1/realtime?intent=transcription"
    detection = ({"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                  "silence_duration_ms": 500} if server_vad else None)
    session = {"type": "transcription", "audio": {"input": {
        "format": {"type": "audio/pcm", "rate": 24000}, "turn_detection": detection,
        "transcription": {"model": arguments.model} if arguments.model else {}}}}
    if server_vad:
        audio = audio + bytes(24000 * 2)
    completed = {}
    order = []
    async with websockets.connect(url, max_size=None) as websocket:
        await websocket.send(json.dumps({"type": "session.update", "session": session}))
        for piece in cutter.pieces(audio):
            await websocket.send(json.dumps(
                {"type": "input_audio_buffer.append", "audio": base64.b64encode(piece).decode()}))
            await asyncio.sleep(cutter.pause())
        # A clear after the commit: it is answered (`input_audio_buffer.cleared`) after the
        # commit's own answer, so once it came and every item committed has completed, nothing
        # more is coming.
        await websocket.send(json.dumps({"type": "input_audio_buffer.commit"}))
        await websocket.send(json.dumps({"type": "input_audio_buffer.clear"}))
        cleared = False
        while not cleared or len(completed) < len(order):
            event = json.loads(await asyncio.wait_for(websocket.recv(), arguments.timeout))
            kind = event.get("type")
            if kind == "input_audio_buffer.committed":
                order.append(event["item_id"])
            elif kind == "conversation.item.input_audio_transcription.completed":
                completed[event["item_id"]] = event["transcript"]
            elif kind == "input_audio_buffer.cleared":
                cleared = True
            elif kind == "error" and event["error"].get("code") != "input_audio_buffer_commit_empty":
                raise RuntimeError(f"error event: {event}")
    return " ".join(completed[item] for item in order if completed[item])


async def wyoming(arguments, audio, cutter):
    from wyoming.asr import Transcribe, Transcript
    from wyoming.audio import AudioChunk, AudioStart, AudioStop
    from wyoming.client import AsyncClient

    async with AsyncClient.from_uri(arguments.wyoming) as client:
        await client.write_event(Transcribe(language="en").event())
        await client.write_event(AudioStart(rate=16000, width=2, channels=1).event())
        for piece in cutter.pieces(audio):
            await client.write_event(
                AudioChunk(rate=16000, width=2, channels=1, audio=piece).event())
            await asyncio.sleep(cutter.pause())
        await client.write_event(AudioStop().event())
        while True:
            event = await asyncio.wait_for(client.read_event(), arguments.timeout)
            if event is None:
                raise RuntimeError("the server closed before its transcript")
            if Transcript.is_type(event.type):
                return Transcript.from_event(event).text


def stream_upload(arguments, path, cutter):
    boundary = uuid.uuid4().hex
    with open(path, "rb") as audio:
        data = audio.read()
    fields = [("stream", "true"), ("response_format", "json")]
    if arguments.model:
        fields.append(("model", arguments.model))
    body = b""
    for name, value in fields:
        body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"{name}\"\r\n\r\n"
                 f"{value}\r\n").encode()
    body += (f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
             f"filename=\"speech.wav\"\r\nContent-Type: audio/wav\r\n\r\n").encode()
    body += data + f"\r\n--{boundary}--\r\n".encode()

    def chunks():
        for piece in Cutter(cutter.rng, alignment=1, largest=cutter.largest).pieces(body):
            yield piece
            time.sleep(cutter.pause())

    base = urllib.parse.urlparse(arguments.base)
    connection = http.client.HTTPConnection(base.hostname, base.port, timeout=arguments.timeout)
    connection.request(
        "POST", "/v1/audio/transcriptions", body=chunks(), encode_chunked=True,
        headers={"Content-Type": f"multipart/form-data; boundary={boundary}",
                 "Authorization": "Bearer unused"})
    response = connection.getresponse()
    if response.status != 200:
        raise RuntimeError(f"HTTP {response.status}: {response.read()[:200]!r}")
    text = None
    for line in response:
        line = line.decode().strip()
        if not line.startswith("data: "):
            continue
        event = json.loads(line[len("data: "):])
        if event.get("type") == "transcript.text.done":
            text = event["text"]
    connection.close()
    if text is None:
        raise RuntimeError("no transcript.text.done event")
    return text


def transcribe(arguments, audio16, audio24, rng):
    cutter = Cutter(rng)
    if arguments.path == "vosk":
        return asyncio.run(vosk(arguments, audio16, cutter))
    if arguments.path in ("realtime", "realtime-vad"):
        return asyncio.run(realtime(arguments, audio24, cutter, arguments.path == "realtime-vad"))
    if arguments.path == "wyoming":
        return asyncio.run(wyoming(arguments, audio16, cutter))
    return stream_upload(arguments, arguments.audio, cutter)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("base")
    parser.add_argument("audio")
    parser.add_argument("--path", required=True,
                        choices=["vosk", "realtime", "realtime-vad", "wyoming", "stream"])
    parser.add_argument("--wyoming")
    parser.add_argument("--model")
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--timeout", type=float, default=60)
    arguments = parser.parse_args()
    if arguments.path == "wyoming" and not arguments.wyoming:
        sys.exit("same_words: --path wyoming needs --wyoming tcp://HOST:PORT")
    audio16 = pcm16k(arguments.audio)
    audio24 = pcm24k(arguments.audio) if arguments.path.startswith("realtime") else b""
    reference = words(transcribe(arguments, audio16, audio24, None))
    differences = []
    for run in range(arguments.runs):
        seed = arguments.seed + run
        heard = words(transcribe(arguments, audio16, audio24, random.Random(seed)))
        if heard != reference:
            differences.append({"seed": seed, "words": heard})
    print(json.dumps({"path": arguments.path, "reference": reference, "runs": arguments.runs,
                      "differences": differences}))


if __name__ == "__main__":
    main()
