#!/usr/bin/env python3
"""Abandoned and abusive sessions against a running `transcribe serve`: how soon a session whose
client left stops costing CPU, and whether many such sessions leave file descriptors, memory and
readiness as they were.

    python3 Benchmarks/serve/abandon.py --url http://127.0.0.1:2700 --pid PID --audio long.wav

Run by hand (see Benchmarks/serve/README.md), never as a test. Needs `websockets`.
"""

import argparse
import asyncio
import json
import socket
import time
import uuid

import websockets

from server_process import cpu_seconds, descriptors, readyz as ready, rss_mib


def cpu_over(pid, seconds):
    """CPU seconds the server used per wall second over the next `seconds`."""
    start = cpu_seconds(pid)
    time.sleep(seconds)
    return (cpu_seconds(pid) - start) / seconds


def upload_request(host, port, audio):
    boundary = uuid.uuid4().hex
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
        f"filename=\"talk.wav\"\r\nContent-Type: audio/wav\r\n\r\n"
    ).encode()
    body = head + audio + f"\r\n--{boundary}--\r\n".encode()
    request = (
        f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {len(body)}\r\n\r\n"
    ).encode()
    return request + body


def abandon_upload(host, port, audio, after):
    """Sends a whole upload, then leaves `after` seconds into its decoding."""
    connection = socket.create_connection((host, port))
    connection.sendall(upload_request(host, port, audio))
    time.sleep(after)
    connection.close()


async def abandon_stream(url, pcm, seconds):
    """Streams `seconds` of audio as fast as the server reads it, then drops the connection
    without a close frame."""
    async with websockets.connect(url, max_size=None) as socket_:
        await socket_.send(json.dumps({"config": {"sample_rate": 16000}}))
        chunk = 3200 * 2
        for offset in range(0, min(len(pcm), int(seconds * 32000)), chunk):
            await socket_.send(pcm[offset : offset + chunk])
            await socket_.recv()
        socket_.transport.abort()


def wav_pcm(audio):
    """The samples of a 16 kHz 16-bit mono WAV (its data chunk)."""
    index = audio.find(b"data")
    return audio[index + 8 :] if index >= 0 else audio


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:2700")
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--audio", required=True, help="a long 16 kHz mono WAV")
    parser.add_argument("--sessions", type=int, default=50)
    arguments = parser.parse_args()
    base = arguments.url.rstrip("/")
    host, port = base.split("//", 1)[1].split(":")
    port = int(port)
    audio = open(arguments.audio, "rb").read()
    pid = arguments.pid

    before = (descriptors(pid), rss_mib(pid), ready(base))
    print(f"before: fds {before[0]}, RSS {before[1]:.0f} MiB, readyz {before[2]}")

    # How soon an abandoned upload stops costing CPU.
    idle = cpu_over(pid, 1)
    connection = socket.create_connection((host, port))
    connection.sendall(upload_request(host, port, audio))
    time.sleep(2)
    busy = cpu_over(pid, 1)
    connection.close()
    left = time.monotonic()
    first = cpu_over(pid, 1)
    second = cpu_over(pid, 1)
    print(
        f"upload abandoned while decoding: CPU {idle:.2f} idle, {busy:.2f} decoding, "
        f"{first:.2f} in the first second after the client left, {second:.2f} in the next "
        f"(readyz {ready(base)}, {time.monotonic() - left:.1f} s after)"
    )

    pcm = wav_pcm(audio)
    asyncio.run(abandon_stream(base.replace("http", "ws", 1) + "/", pcm, 3))
    first = cpu_over(pid, 1)
    second = cpu_over(pid, 1)
    print(
        f"stream dropped without a close: CPU {first:.2f} in the first second, {second:.2f} in "
        f"the next (readyz {ready(base)})"
    )

    started = time.monotonic()
    for number in range(arguments.sessions):
        if number % 2:
            abandon_upload(host, port, audio, 0.3)
        else:
            asyncio.run(abandon_stream(base.replace("http", "ws", 1) + "/", pcm, 1))
    time.sleep(2)
    after = (descriptors(pid), rss_mib(pid), ready(base))
    print(
        f"after {arguments.sessions} abandoned sessions ({time.monotonic() - started:.0f} s): "
        f"fds {after[0]}, RSS {after[1]:.0f} MiB, readyz {after[2]}, "
        f"CPU {cpu_over(pid, 1):.2f}"
    )


if __name__ == "__main__":
    main()
