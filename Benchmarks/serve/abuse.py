#!/usr/bin/env python3
"""Hostile but fair clients against a running `transcribe serve`: N sessions of each kind, one
kind after another, and after each kind the server's file descriptors, memory, CPU and
readiness, and the answers the clients got.

    python3 Benchmarks/serve/abuse.py --url http://127.0.0.1:2700 --pid PID [--sessions 50]

Run by hand against a release build (see Benchmarks/serve/README.md), never as a test. Needs
`websockets` and sox (for the compressed upload).
"""

import argparse
import asyncio
import base64
import collections
import json
import os
import socket
import subprocess
import tempfile
import time
import uuid

import websockets

from server_process import cpu_seconds, descriptors, readyz, rss_mib


def ready(base):
    return readyz(base)[0]


def raw(host, port, data, timeout=30.0, read=True):
    """Sends bytes on a new connection; returns the status line of the answer (or what
    happened) once the server closes or `timeout` passes."""
    connection = socket.create_connection((host, port), timeout=timeout)
    try:
        try:
            connection.sendall(data)
        except socket.timeout:
            pass  # the server answered before reading it all: read its answer
        if not read:
            return "sent"
        received = b""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                chunk = connection.recv(65536)
            except socket.timeout:
                break
            except ConnectionResetError:
                return "reset"
            if not chunk:
                break
            received += chunk
        return received.split(b"\r\n", 1)[0].decode(errors="replace") or "closed, no answer"
    except (BrokenPipeError, ConnectionResetError):
        return "reset while sending"
    finally:
        connection.close()


def multipart(host, port, filename, payload, extra_header=b""):
    boundary = uuid.uuid4().hex
    name = filename if isinstance(filename, bytes) else filename.encode()
    head = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"".encode()
        + name
        + b"\"\r\n"
        + extra_header
        + b"Content-Type: application/octet-stream\r\n\r\n"
    )
    body = head + payload + f"\r\n--{boundary}--\r\n".encode()
    return (
        f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n"
    ).encode() + body


async def stream(url, messages, headers=None, wait=5.0):
    """Sends `messages` on a WebSocket; returns the close code and the last error message."""
    error = None
    try:
        async with websockets.connect(
            url, max_size=None, additional_headers=headers or {}, open_timeout=10
        ) as socket_:
            for message in messages:
                await socket_.send(message)
            try:
                while True:
                    reply = await asyncio.wait_for(socket_.recv(), wait)
                    if isinstance(reply, str) and '"error"' in reply:
                        error = json.loads(reply)["error"][:60]
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                pass
            return socket_.close_code, error
    except websockets.InvalidStatus as status:
        return status.response.status_code, None
    except Exception as failure:  # noqa: BLE001 - reported as the outcome
        return type(failure).__name__, None


async def realtime(url, messages, headers=None, wait=2.0, until=None):
    """Sends `messages` on a Realtime WebSocket; returns the close code (None while open) and
    the codes of the `error` events it got, once `wait` passes without an event (or the event
    type `until` arrives)."""
    codes = []
    try:
        async with websockets.connect(
            url, max_size=None, additional_headers=headers or {}, open_timeout=10
        ) as socket_:
            for message in messages:
                await socket_.send(message)
            try:
                while True:
                    event = json.loads(await asyncio.wait_for(socket_.recv(), wait))
                    if event.get("type") == "error":
                        codes.append(event["error"].get("code"))
                    if until and event.get("type") == until:
                        break
            except (asyncio.TimeoutError, websockets.ConnectionClosed):
                pass
            return socket_.close_code, ",".join(sorted(set(codes))) or None
    except websockets.InvalidStatus as status:
        return status.response.status_code, None
    except Exception as failure:  # noqa: BLE001 - reported as the outcome
        return type(failure).__name__, None


def compressed_hours(hours):
    path = tempfile.mktemp(suffix=".flac")
    subprocess.run(
        ["sox", "-n", "-r", "16000", "-c", "1", "-b", "16", path, "trim", "0", str(hours * 3600)],
        check=True,
    )
    data = open(path, "rb").read()
    os.unlink(path)
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--url", default="http://127.0.0.1:2700")
    parser.add_argument("--pid", type=int, required=True)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--only", help="comma-separated parts of the names of kinds to run")
    parser.add_argument("--skip", help="comma-separated parts of the names of kinds to skip")
    parser.add_argument("--rounds", type=int, default=1, help="run every kind this many times")
    arguments = parser.parse_args()
    base = arguments.url.rstrip("/")
    host, port = base.split("//", 1)[1].split(":")
    port = int(port)
    ws = base.replace("http", "ws", 1) + "/"
    pid = arguments.pid
    count = arguments.sessions
    config = lambda body: json.dumps({"config": body})  # noqa: E731

    bomb = compressed_hours(10)
    words = ["go", "forward", "back", "left", "right", "stop", "ten", "meters", "turn", "up"]
    phrases = [f"{words[n % 10]} {words[n // 10 % 10]}" for n in range(64_000)]
    kinds = collections.OrderedDict()
    kinds["phrase_list 64,000 (0.8 MB)"] = lambda: asyncio.run(
        stream(ws, [config({"sample_rate": 16000, "phrase_list": phrases})], wait=0.5)
    )
    kinds["phrase_list 4,000"] = lambda: asyncio.run(
        stream(ws, [config({"sample_rate": 16000, "phrase_list": phrases[:4000]})], wait=0.5)
    )
    kinds["upload 10 h FLAC bomb"] = lambda: raw(host, port, multipart(host, port, "a.flac", bomb))
    kinds["upload 90 MiB part header"] = lambda: raw(
        host, port,
        multipart(host, port, "a.wav", b"x", b"X-Long: " + b"a" * (90 << 20) + b"\r\n"),
    )
    kinds["upload 1 MB of \\r\\n-"] = lambda: raw(
        host, port, multipart(host, port, "a.wav", b"\r\n-" * 350_000)
    )
    kinds["garbage (HELLO)"] = lambda: raw(host, port, b"HELLO\r\n\r\n")
    kinds["HTTP/9.9"] = lambda: raw(host, port, b"GET /healthz HTTP/9.9\r\n\r\n")
    kinds["HTTP/2 preface"] = lambda: raw(host, port, b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n")
    kinds["80 KB header"] = lambda: raw(
        host, port, b"GET /healthz HTTP/1.1\r\nX-A: " + b"a" * 90_000 + b"\r\n\r\n"
    )
    kinds["80 KB URL"] = lambda: raw(
        host, port, b"GET /healthz?" + b"a" * 80_000 + b" HTTP/1.1\r\n\r\n"
    )
    kinds["bad Content-Length"] = lambda: raw(
        host, port, b"POST /v1/audio/transcriptions HTTP/1.1\r\nContent-Length: x\r\n\r\n"
    )
    kinds["baseline: 1 s stream"] = lambda: asyncio.run(
        stream(ws, [config({"sample_rate": 16000}), b"\0" * 32000, '{"eof" : 1}'], wait=2)
    )
    kinds["evil Origin"] = lambda: asyncio.run(
        stream(ws, [], headers={"Origin": "http://evil.example"})
    )
    # OpenAI's Realtime transcription WebSocket: every bad event is an error event and the
    # session goes on; what closes is what must.
    rt = ws + "v1/realtime?intent=transcription"
    append = lambda audio: json.dumps(  # noqa: E731
        {"type": "input_audio_buffer.append", "audio": base64.b64encode(audio).decode()}
    )
    commit = json.dumps({"type": "input_audio_buffer.commit"})
    completed = "conversation.item.input_audio_transcription.completed"
    kinds["realtime: baseline 1 s + commit"] = lambda: asyncio.run(
        realtime(rt, [append(b"\0" * 48000), commit], until=completed)
    )
    kinds["realtime: no intent"] = lambda: asyncio.run(
        realtime(ws + "v1/realtime", ['{"type": "input_audio_buffer.clear"}'])
    )
    kinds["realtime: evil Origin"] = lambda: asyncio.run(
        realtime(rt, [], headers={"Origin": "http://evil.example"})
    )
    kinds["realtime: 100 invalid JSON, unknown types, bad base64"] = lambda: asyncio.run(
        realtime(
            rt,
            ["{not json", '{"type": "response.create"}',
             '{"type": "input_audio_buffer.append", "audio": "%%%"}'] * 34,
            wait=1,
        )
    )
    kinds["realtime: 1.5 MiB append (over the message limit)"] = lambda: asyncio.run(
        realtime(rt, [json.dumps({"type": "input_audio_buffer.append",
                                  "audio": "A" * (3 << 19)})], wait=1)
    )
    kinds["realtime: 3 MiB append (over the frame limit)"] = lambda: asyncio.run(
        realtime(rt, [append(b"\0" * (9 << 18))], wait=1)
    )
    kinds["realtime: 1 MiB session.update key"] = lambda: asyncio.run(
        realtime(rt, [json.dumps({"type": "session.update",
                                  "session": {"a\n" * (1 << 18): 1}})], wait=1)
    )
    kinds["realtime: 30 commits of 0.1 s"] = lambda: asyncio.run(
        realtime(
            rt,
            ['{"type": "session.update", "session": {"type": "transcription", "audio": '
             '{"input": {"turn_detection": null}}}}']
            + [append(b"\0" * 4800), commit] * 30,
            wait=3,
        )
    )
    kinds["realtime: appends and clears"] = lambda: asyncio.run(
        realtime(rt, [append(b"\1\0" * 4800), '{"type": "input_audio_buffer.clear"}'] * 30,
                 wait=1)
    )
    kinds["3 MiB frame"] = lambda: asyncio.run(stream(ws, [b"\0" * (3 << 20)]))
    kinds["1.5 MiB text"] = lambda: asyncio.run(stream(ws, ["x" * (3 << 19)]))
    kinds["1 MiB config field name"] = lambda: asyncio.run(
        stream(ws, [json.dumps({"config": {"a\n" * (1 << 19): 1}})])
    )


    def concurrent(send, seconds):
        """`count` connections at once that each `send`, then wait for their answers."""

        def one():
            connection = socket.create_connection((host, port), timeout=seconds + 30)
            send(connection)
            try:
                answer = connection.recv(4096).split(b"\r\n", 1)[0].decode() or "closed"
            except (socket.timeout, ConnectionResetError) as failure:
                answer = type(failure).__name__
            connection.close()
            return answer

        import concurrent.futures

        with concurrent.futures.ThreadPoolExecutor(count) as pool:
            return list(pool.map(lambda _: one(), range(count)))

    kinds["idle connections (all at once)"] = ("batch", lambda: concurrent(lambda c: None, 20))
    kinds["partial headers (all at once)"] = (
        "batch", lambda: concurrent(lambda c: c.sendall(b"GET /healthz HTTP/1.1\r\nHost: x"), 20)
    )

    def slow(connection):
        request = multipart(host, port, "a.wav", b"\0" * 100_000)
        connection.sendall(request[:400])
        for index in range(400, 440, 2):
            try:
                connection.sendall(request[index : index + 2])
            except (BrokenPipeError, ConnectionResetError):
                return
            time.sleep(1)

    kinds["uploads at 2 bytes/s (all at once)"] = ("batch", lambda: concurrent(slow, 30))

    # Round three (issue 29): protocol violations and over-long fragmented messages, uploads
    # that wait for 100 Continue, non-UTF-8 file names, a boundary inside the file.
    def frames(payloads):
        """Sends hand-made masked frames after an upgrade; returns the close code and reason."""
        key = base64.b64encode(os.urandom(16)).decode()
        connection = socket.create_connection((host, port), timeout=10)
        connection.sendall(
            (
                f"GET / HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\n"
                f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\n"
                "Sec-WebSocket-Version: 13\r\n\r\n"
            ).encode()
        )
        head = b""
        while b"\r\n\r\n" not in head:
            head += connection.recv(1)
        try:
            for payload in payloads:
                connection.sendall(payload)
        except (BrokenPipeError, ConnectionResetError):
            pass
        data = b""
        try:
            while chunk := connection.recv(65536):
                data += chunk
        except (socket.timeout, ConnectionResetError):
            pass
        connection.close()
        index = data.rfind(b"\x88")
        if index < 0:
            return "no close"
        length = data[index + 1] & 0x7F
        return f"{int.from_bytes(data[index + 2 : index + 4], 'big')} " + data[
            index + 4 : index + 2 + length
        ].decode(errors="replace")[:40]

    def frame(opcode, payload=b"", fin=True, rsv1=False):
        first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
        if len(payload) < 126:
            header = bytes([first, 0x80 | len(payload)])
        elif len(payload) < 65536:
            header = bytes([first, 0x80 | 126]) + len(payload).to_bytes(2, "big")
        else:
            header = bytes([first, 0x80 | 127]) + len(payload).to_bytes(8, "big")
        return header + b"\0\0\0\0" + payload  # a zero mask leaves the payload as it is

    kinds["unmasked frames"] = lambda: frames([bytes([0x82, 4, 1, 2, 3, 4])])
    chunk = b"\0" * (64 << 10)
    kinds["2 MiB+ message in 48 fragments"] = lambda: frames(
        [frame(0x2, chunk, fin=False)] + [frame(0x0, chunk, fin=False)] * 46 + [frame(0x0, chunk)]
    )
    kinds["continuation without a start"] = lambda: frames([frame(0x0, b"\0" * 320)])
    kinds["fragmented ping"] = lambda: frames([frame(0x9, b"x", fin=False)])
    kinds["RSV1 frame"] = lambda: frames([frame(0x2, b"\0" * 320, rsv1=True)])
    kinds["close code 5"] = lambda: frames([frame(0x8, (5).to_bytes(2, "big"))])

    def expect_continue():
        boundary = uuid.uuid4().hex
        body = (
            f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; "
            f"filename=\"a.wav\"\r\n\r\n"
        ).encode() + b"\0" * 32000 + f"\r\n--{boundary}--\r\n".encode()
        connection = socket.create_connection((host, port), timeout=30)
        connection.sendall(
            (
                f"POST /v1/audio/transcriptions HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
                f"Content-Length: {len(body)}\r\nExpect: 100-continue\r\n"
                "Connection: close\r\n\r\n"
            ).encode()
        )
        try:
            first = connection.recv(4096).split(b"\r\n", 1)[0].decode()
            if " 100 " in first + " ":
                connection.sendall(body)
                answer = b""
                while chunk_ := connection.recv(65536):
                    answer += chunk_
                first += " then " + answer.split(b"\r\n", 1)[0].decode()
            return first
        except (socket.timeout, ConnectionResetError) as failure:
            return type(failure).__name__
        finally:
            connection.close()

    kinds["upload waiting for 100 Continue"] = expect_continue
    kinds["upload with a Latin-1 file name"] = lambda: raw(
        host, port, multipart(host, port, b"caf\xe9.wav", b"\0" * 32000)
    )

    def boundary_inside():
        request = multipart(host, port, "a.wav", b"RIFF")
        boundary = request.split(b"boundary=", 1)[1].split(b"\r\n", 1)[0]
        return raw(
            host, port, request.replace(b"RIFF", b"RIFF\r\n--" + boundary + b"junk", 1)
        )

    kinds["upload with the boundary inside the file"] = boundary_inside

    async def trickle_one():
        """A stream that sends a 2-byte frame every second until the server closes it."""
        try:
            async with websockets.connect(ws, open_timeout=10) as socket_:
                started = time.monotonic()
                while time.monotonic() - started < 90:
                    await socket_.send(b"\0\0")
                    try:
                        await asyncio.wait_for(socket_.recv(), 1)
                    except asyncio.TimeoutError:
                        pass
                    await asyncio.sleep(1)
                return f"{socket_.close_code} after {time.monotonic() - started:.0f} s"
        except websockets.ConnectionClosed as closed:
            return f"{closed.rcvd.code if closed.rcvd else 'no close'}"
        except Exception as failure:  # noqa: BLE001 - reported as the outcome
            return type(failure).__name__

    async def trickle_all():
        return await asyncio.gather(*(trickle_one() for _ in range(count)))

    kinds["streams trickling 2 bytes/s (all at once)"] = (
        "batch", lambda: asyncio.run(trickle_all())
    )

    async def realtime_trickle_one():
        """A Realtime session appending 2 bytes every second until the server closes it."""
        try:
            async with websockets.connect(rt, open_timeout=10) as socket_:
                started = time.monotonic()
                code = None
                while time.monotonic() - started < 90:
                    await socket_.send(append(b"\0\0"))
                    try:
                        while True:
                            event = json.loads(await asyncio.wait_for(socket_.recv(), 1))
                            if event.get("type") == "error":
                                code = event["error"].get("code")
                    except asyncio.TimeoutError:
                        pass
                return f"{socket_.close_code} {code} after {time.monotonic() - started:.0f} s"
        except websockets.ConnectionClosed as closed:
            return f"{closed.rcvd.code if closed.rcvd else 'no close'}"
        except Exception as failure:  # noqa: BLE001 - reported as the outcome
            return type(failure).__name__

    async def realtime_trickle_all():
        return await asyncio.gather(*(realtime_trickle_one() for _ in range(count)))

    kinds["realtime: appends trickling 2 bytes/s (all at once)"] = (
        "batch", lambda: asyncio.run(realtime_trickle_all())
    )

    selected = arguments.only.split(",") if arguments.only else None
    skipped = arguments.skip.split(",") if arguments.skip else []
    print(f"before: fds {descriptors(pid)}, RSS {rss_mib(pid):.0f} MiB, readyz {ready(base)}")
    for round_ in range(arguments.rounds):
        if arguments.rounds > 1:
            print(f"round {round_ + 1}")
        run_kinds(kinds, selected, skipped, count, pid, base)


def run_kinds(kinds, selected, skipped, count, pid, base):
    for name, run in kinds.items():
        if selected and not any(part in name for part in selected):
            continue
        if any(part in name for part in skipped):
            continue
        cpu = cpu_seconds(pid)
        started = time.monotonic()
        if isinstance(run, tuple):
            answers = run[1]()
        else:
            answers = [run() for _ in range(count)]
        elapsed = time.monotonic() - started
        time.sleep(2)
        tally = collections.Counter(str(answer) for answer in answers)
        print(
            f"{name}: {count} in {elapsed:.0f} s, server CPU {cpu_seconds(pid) - cpu:.1f} s; "
            f"fds {descriptors(pid)}, RSS {rss_mib(pid):.0f} MiB, readyz {ready(base)}; "
            f"answers {dict(tally.most_common(3))}"
        )


if __name__ == "__main__":
    main()
