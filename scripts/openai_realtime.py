#!/usr/bin/env python3
"""A Realtime transcription client for `transcribe serve`: the official `openai` SDK's
`client.realtime.connect(...)`, or a raw `websockets` client that pins the wire format.

Waits for the server's /healthz, opens `/v1/realtime?intent=transcription`, sends a
`session.update`, then streams an audio file (any format sox reads, or headerless 16 kHz PCM
`.raw`) as base64 `input_audio_buffer.append` events at real-time pace (`--pace`), converted to
the session's format (`audio/pcm` at 24 kHz by default, or G.711 `pcmu`/`pcma` at 8 kHz). Prints
one JSON object: `events`, each server event as received (`at`: seconds since the connection;
`audio_at`: seconds of audio sent by then), plus `close_code` for the raw client.

    openai_realtime.py http://127.0.0.1:2700 talk.wav [--client sdk|raw] [--token T]
        [--turn-detection server_vad|none] [--format pcm|pcmu|pcma] [--pace 1.0]
        [--chunk-ms 100] [--silence 1.0] [--silence-duration-ms 500] [--commit] [--logprobs]
        [--model M]
        [--wait-completed N] [--timeout 30]

`--commit` commits the buffer after the audio (required with `--turn-detection none`);
`--silence` appends that much silence so server VAD can end the last utterance; the client
stops once it has `--wait-completed` completions (default: one per commit, else any after the
audio) or `--timeout` passes.

    openai_realtime.py http://127.0.0.1:2700 --errors [--token T]

sends one bad event of each kind (invalid JSON, an unknown type, base64 that is not, odd-length
PCM, an empty commit, a wrong format, an oversized append, a binary frame) over the raw client
and prints the answer to each (`errors`: name → the server event), then checks the session still
transcribes (`after`), and what a WebSocket without `intent=transcription` gets (`no_intent`: its
event and close code).
"""

import argparse
import asyncio
import base64
import json
import os
import subprocess
import sys
import time

from server_health import wait_for


def load_audio(path, audio_format):
    """The file as bytes in the session's format, with sox."""
    rate = 24000 if audio_format == "pcm" else 8000
    encoding = {"pcm": ["-e", "signed", "-b", "16"], "pcmu": ["-e", "u-law", "-b", "8"],
                "pcma": ["-e", "a-law", "-b", "8"]}[audio_format]
    source = (["-t", "raw", "-r", "16000", "-e", "signed", "-b", "16", "-c", "1", path]
              if path.endswith(".raw") else [path])
    # -D: no dither, which sox would otherwise seed afresh each run; the same file is sent as the
    # same bytes every time, so a session's words can be compared from run to run.
    command = ["sox", "-D"] + source + ["-t", "raw", "-r", str(rate), "-c", "1"] + encoding + ["-"]
    data = subprocess.run(command, check=True, capture_output=True).stdout
    bytes_per_second = rate * (2 if audio_format == "pcm" else 1)
    return data, bytes_per_second


def silence(seconds, audio_format):
    if audio_format == "pcm":
        return bytes(int(seconds * 24000) * 2)
    value = 0xFF if audio_format == "pcmu" else 0xD5
    return bytes([value]) * int(seconds * 8000)


def session_update(arguments):
    audio_input = {
        "format": ({"type": "audio/pcm", "rate": 24000} if arguments.format == "pcm"
                   else {"type": "audio/" + arguments.format}),
        "transcription": {"model": arguments.model, "language": arguments.language},
        "turn_detection": (
            None if arguments.turn_detection == "none"
            else {"type": "semantic_vad", "eagerness": arguments.eagerness}
            if arguments.turn_detection == "semantic_vad"
            else {"type": "server_vad", "threshold": 0.5, "prefix_padding_ms": 300,
                  "silence_duration_ms": arguments.silence_duration_ms}),
    }
    session = {"type": "transcription", "audio": {"input": audio_input}}
    if arguments.logprobs:
        session["include"] = ["item.input_audio_transcription.logprobs"]
    return session


class Recorder:
    def __init__(self):
        self.started = time.monotonic()
        self.events = []
        self.audio_sent = 0.0

    def add(self, event):
        event["at"] = round(time.monotonic() - self.started, 3)
        event["audio_at"] = round(self.audio_sent, 3)
        self.events.append(event)

    def completions(self):
        return sum(1 for e in self.events
                   if e.get("type") == "conversation.item.input_audio_transcription.completed")


async def stream(arguments, send_append, send_commit, recorder):
    data, bytes_per_second = load_audio(arguments.audio, arguments.format)
    data += silence(arguments.silence, arguments.format)
    chunk = max(2, int(bytes_per_second * arguments.chunk_ms / 1000) // 2 * 2)
    began = time.monotonic()
    for offset in range(0, len(data), chunk):
        piece = data[offset:offset + chunk]
        await send_append(base64.b64encode(piece).decode())
        recorder.audio_sent += len(piece) / bytes_per_second
        if arguments.pace > 0:
            delay = began + recorder.audio_sent / arguments.pace - time.monotonic()
            if delay > 0:
                await asyncio.sleep(delay)
    if arguments.commit:
        await send_commit()


def wanted(arguments):
    if arguments.wait_completed is not None:
        return arguments.wait_completed
    return 1


async def run_sdk(arguments, recorder):
    from openai import AsyncOpenAI
    client = AsyncOpenAI(base_url=arguments.base + "/v1", api_key=arguments.token, max_retries=0)
    async with client.realtime.connect(extra_query={"intent": "transcription"}) as connection:
        await connection.session.update(session=session_update(arguments))
        done = asyncio.Event()

        async def receive():
            async for event in connection:
                recorder.add(event.model_dump(exclude_none=True))
                if recorder.completions() >= wanted(arguments) and sender.done():
                    done.set()
                    return

        async def append(audio):
            await connection.input_audio_buffer.append(audio=audio)

        async def commit():
            await connection.input_audio_buffer.commit()

        sender = asyncio.create_task(stream(arguments, append, commit, recorder))
        receiver = asyncio.create_task(receive())
        await sender
        try:
            if recorder.completions() < wanted(arguments):
                await asyncio.wait_for(asyncio.shield(receiver), arguments.timeout)
            else:
                receiver.cancel()
        except asyncio.TimeoutError:
            receiver.cancel()
    return {}


def raw_url(arguments):
    base = arguments.base.replace("http://", "ws://").replace("https://", "wss://")
    return base + "/v1/realtime?intent=transcription"


async def connect_raw(arguments):
    import websockets
    headers = {"Authorization": "Bearer " + arguments.token}
    return await websockets.connect(
        raw_url(arguments), additional_headers=headers, max_size=None)


async def run_raw(arguments, recorder):
    import websockets
    websocket = await connect_raw(arguments)
    close_code = None
    try:
        await websocket.send(json.dumps(
            {"type": "session.update", "event_id": "client_update",
             "session": session_update(arguments)}))

        async def append(audio):
            await websocket.send(json.dumps({"type": "input_audio_buffer.append", "audio": audio}))

        async def commit():
            await websocket.send(json.dumps(
                {"type": "input_audio_buffer.commit", "event_id": "client_commit"}))

        async def receive():
            async for message in websocket:
                recorder.add(json.loads(message))
                if recorder.completions() >= wanted(arguments) and sender.done():
                    return

        sender = asyncio.create_task(stream(arguments, append, commit, recorder))
        receiver = asyncio.create_task(receive())
        await sender
        try:
            if recorder.completions() < wanted(arguments):
                await asyncio.wait_for(asyncio.shield(receiver), arguments.timeout)
            else:
                receiver.cancel()
        except asyncio.TimeoutError:
            receiver.cancel()
        await websocket.close()
    except websockets.ConnectionClosed as closed:
        close_code = closed.rcvd.code if closed.rcvd else None
    close_code = close_code or (websocket.close_code if websocket.close_code else None)
    return {"close_code": close_code}


async def run_errors(arguments):
    """One bad event of each kind, each answered by an `error` event; the session goes on."""
    websocket = await connect_raw(arguments)
    created = json.loads(await websocket.recv())
    answers = {}

    async def ask(name, message):
        await websocket.send(message)
        answers[name] = json.loads(await asyncio.wait_for(websocket.recv(), 10))

    await ask("invalid_json", "{not json")
    await ask("unknown_type", json.dumps({"type": "response.create", "event_id": "e1"}))
    await ask("bad_base64", json.dumps(
        {"type": "input_audio_buffer.append", "audio": "%%%not base64%%%", "event_id": "e2"}))
    await ask("odd_length", json.dumps(
        {"type": "input_audio_buffer.append", "audio": base64.b64encode(b"\x01\x02\x03").decode()}))
    await ask("empty_commit", json.dumps({"type": "input_audio_buffer.commit", "event_id": "e3"}))
    await ask("wrong_format", json.dumps({"type": "session.update", "session": {
        "type": "transcription", "audio": {"input": {"format": {"type": "audio/pcm", "rate": 16000}}}}}))
    await ask("not_transcription", json.dumps(
        {"type": "session.update", "session": {"type": "realtime"}}))
    await ask("unknown_parameter", json.dumps(
        {"type": "session.update", "session": {"type": "transcription", "voice": "alloy"}}))
    limit = arguments.max_frame_bytes
    await ask("oversized", json.dumps({"type": "input_audio_buffer.append",
                                       "audio": base64.b64encode(bytes(limit)).decode()}))
    await ask("binary", b"\x00\x01")
    await ask("clear", json.dumps({"type": "input_audio_buffer.clear"}))
    # The session still works: a short commit of silence gets its item.
    await websocket.send(json.dumps({"type": "session.update", "session": {
        "type": "transcription", "audio": {"input": {"turn_detection": None}}}}))
    updated = json.loads(await websocket.recv())
    await websocket.send(json.dumps(
        {"type": "input_audio_buffer.append", "audio": base64.b64encode(bytes(9600)).decode()}))
    await websocket.send(json.dumps({"type": "input_audio_buffer.commit"}))
    after = []
    while not after or after[-1]["type"] not in (
            "conversation.item.input_audio_transcription.completed", "error"):
        after.append(json.loads(await asyncio.wait_for(websocket.recv(), 20)))
    await websocket.close()
    # Without intent=transcription: an error event naming the fix, then the close.
    import websockets
    refused = await websockets.connect(
        raw_url(arguments).replace("?intent=transcription", ""),
        additional_headers={"Authorization": "Bearer " + arguments.token})
    await refused.send(json.dumps({"type": "input_audio_buffer.clear"}))
    no_intent = {"event": json.loads(await asyncio.wait_for(refused.recv(), 10))}
    try:
        await asyncio.wait_for(refused.recv(), 10)
    except websockets.ConnectionClosed as closed:
        no_intent["close_code"] = closed.rcvd.code if closed.rcvd else None
    return {"created": created, "errors": answers, "updated": updated, "after": after,
            "no_intent": no_intent}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("audio", nargs="?")
    parser.add_argument("--client", choices=["sdk", "raw"], default="sdk")
    parser.add_argument("--token", default="unused")
    parser.add_argument("--turn-detection", choices=["server_vad", "semantic_vad", "none"],
                        default="server_vad")
    parser.add_argument("--eagerness", choices=["low", "medium", "high", "auto"], default="auto")
    parser.add_argument("--format", choices=["pcm", "pcmu", "pcma"], default="pcm")
    parser.add_argument("--pace", type=float, default=1.0)
    parser.add_argument("--chunk-ms", type=int, default=100)
    parser.add_argument("--silence", type=float, default=1.0)
    parser.add_argument("--silence-duration-ms", type=int, default=500)
    parser.add_argument("--commit", action="store_true")
    parser.add_argument("--logprobs", action="store_true")
    parser.add_argument("--model", default="gpt-4o-transcribe")
    parser.add_argument("--language", default="en")
    parser.add_argument("--wait-completed", type=int)
    parser.add_argument("--timeout", type=float, default=30)
    parser.add_argument("--errors", action="store_true")
    parser.add_argument("--max-frame-bytes", type=int, default=1 << 20)
    arguments = parser.parse_args()
    wait_for(arguments.base)
    if arguments.errors:
        print(json.dumps(asyncio.run(run_errors(arguments))))
        return
    if not arguments.audio:
        parser.error("the audio file is required")
    recorder = Recorder()
    result = {}
    try:
        runner = run_sdk if arguments.client == "sdk" else run_raw
        result = asyncio.run(runner(arguments, recorder))
    except Exception as error:  # the events so far, and what went wrong
        result = {"exception": "%s: %s" % (type(error).__name__, error)}
    result["events"] = recorder.events
    print(json.dumps(result))


if __name__ == "__main__":
    sys.exit(main())
