#!/usr/bin/env python3
"""Sends hand-made WebSocket frames that break the protocol, as a careless or hostile client
would, and prints what the server answers: one JSON line per text message
({"text": "..."}), then {"close": CODE, "reason": "..."} (or {"closed": "without a close frame"}).

Cases: continuation-first, new-message-inside, fragmented-ping, long-ping, rsv1, opcode3,
close-code-5, fragments-over-limit (48 fragments of 64 KiB: 3 MiB in one message).
"""

import argparse
import base64
import json
import os
import socket
import struct
import sys
from urllib.parse import urlparse


def frame(opcode, payload=b"", fin=True, rsv1=False):
    """One masked client frame."""
    first = (0x80 if fin else 0) | (0x40 if rsv1 else 0) | opcode
    length = len(payload)
    if length < 126:
        header = struct.pack("!BB", first, 0x80 | length)
    elif length < 65536:
        header = struct.pack("!BBH", first, 0x80 | 126, length)
    else:
        header = struct.pack("!BBQ", first, 0x80 | 127, length)
    mask = os.urandom(4)
    masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
    return header + mask + masked


def frames_for(case):
    audio = bytes(3200)
    if case == "continuation-first":
        return [frame(0x0, audio)]
    if case == "new-message-inside":
        return [frame(0x2, audio, fin=False), frame(0x2, audio)]
    if case == "fragmented-ping":
        return [frame(0x9, b"ping", fin=False)]
    if case == "long-ping":
        return [frame(0x9, bytes(200))]
    if case == "rsv1":
        return [frame(0x2, audio, rsv1=True)]
    if case == "opcode3":
        return [frame(0x3, b"x")]
    if case == "close-code-5":
        return [frame(0x8, struct.pack("!H", 5))]
    if case == "fragments-over-limit":
        chunk = bytes(64 << 10)
        return [frame(0x2, chunk, fin=False)] + [frame(0x0, chunk, fin=False)] * 46 + [
            frame(0x0, chunk)
        ]
    raise SystemExit(f"unknown case {case}")


def read_exactly(sock, count):
    data = b""
    while len(data) < count:
        chunk = sock.recv(count - len(data))
        if not chunk:
            raise ConnectionError
        data += chunk
    return data


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("url")
    parser.add_argument("case")
    args = parser.parse_args()
    url = urlparse(args.url)
    sock = socket.create_connection((url.hostname, url.port))
    key = base64.b64encode(os.urandom(16)).decode()
    sock.sendall(
        (
            f"GET {url.path or '/'}{'?' + url.query if url.query else ''} HTTP/1.1\r\n"
            f"Host: {url.hostname}:{url.port}\r\n"
            "Upgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
    )
    head = b""
    while b"\r\n\r\n" not in head:
        head += sock.recv(1)
    if b" 101 " not in head.split(b"\r\n")[0]:
        print(json.dumps({"refused": head.split(b"\r\n")[0].decode()}))
        return 1
    sock.settimeout(20)
    try:
        for data in frames_for(args.case):
            sock.sendall(data)
    except (BrokenPipeError, ConnectionResetError):
        pass  # the server refused while frames were still going out; read its answer
    try:
        while True:
            first, second = read_exactly(sock, 2)
            length = second & 0x7F
            if length == 126:
                (length,) = struct.unpack("!H", read_exactly(sock, 2))
            elif length == 127:
                (length,) = struct.unpack("!Q", read_exactly(sock, 8))
            payload = read_exactly(sock, length)
            opcode = first & 0x0F
            if opcode == 0x1:
                print(json.dumps({"text": payload.decode()}), flush=True)
            elif opcode == 0x8:
                code = struct.unpack("!H", payload[:2])[0] if len(payload) >= 2 else None
                print(json.dumps({"close": code, "reason": payload[2:].decode()}), flush=True)
                return 0
    except (ConnectionError, socket.timeout, OSError):
        print(json.dumps({"closed": "without a close frame"}), flush=True)
        return 0


if __name__ == "__main__":
    sys.exit(main())
