#!/usr/bin/env python3
"""Uploads a file to /v1/audio/transcriptions as a client that honours `Expect: 100-continue`.

It sends the request head alone and waits (up to --wait seconds) for the server's first
answer: on `100 Continue` it sends the multipart body and reads the final response; on a final
status it sends nothing more. Prints one line per answer: `interim 100`, then
`final STATUS BODY` (or `final STATUS` before any body was sent), or `no answer` after the wait.
"""

import argparse
import socket
import sys
import time


def read_head(sock):
    """Reads one response head; returns (status, headers dict, bytes after the head)."""
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(65536)
        if not chunk:
            raise ConnectionError("the server closed the connection")
        data += chunk
    head, rest = data.split(b"\r\n\r\n", 1)
    lines = head.decode("latin-1").split("\r\n")
    status = int(lines[0].split(" ")[1])
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return status, headers, rest


def read_body(sock, headers, rest):
    length = int(headers.get("content-length", "0"))
    while len(rest) < length:
        chunk = sock.recv(65536)
        if not chunk:
            break
        rest += chunk
    return rest[:length].decode("utf-8", "replace")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("host")
    parser.add_argument("port", type=int)
    parser.add_argument("file")
    parser.add_argument("--token")
    parser.add_argument("--content-length", type=int, help="declare this length instead")
    parser.add_argument("--wait", type=float, default=20)
    args = parser.parse_args()

    boundary = "expectcontinueboundary"
    with open(args.file, "rb") as handle:
        audio = handle.read()
    body = (
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n"
        f"--{boundary}\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n"
        "Content-Type: audio/wav\r\n\r\n"
    ).encode() + audio + f"\r\n--{boundary}--\r\n".encode()
    length = args.content_length if args.content_length is not None else len(body)
    head = (
        "POST /v1/audio/transcriptions HTTP/1.1\r\n"
        f"Host: {args.host}:{args.port}\r\n"
        f"Content-Type: multipart/form-data; boundary={boundary}\r\n"
        f"Content-Length: {length}\r\n"
        "Expect: 100-continue\r\n"
        + (f"Authorization: Bearer {args.token}\r\n" if args.token else "")
        + "\r\n"
    )
    sock = socket.create_connection((args.host, args.port))
    sock.sendall(head.encode())
    sock.settimeout(args.wait)
    started = time.monotonic()
    try:
        status, headers, rest = read_head(sock)
    except socket.timeout:
        print("no answer", flush=True)
        return 1
    if status != 100:
        print(f"final {status} {read_body(sock, headers, rest)}", flush=True)
        return 0
    print(f"interim 100 after {time.monotonic() - started:.2f} s", flush=True)
    sock.sendall(body)
    sock.settimeout(120)
    status, headers, rest = read_head(sock)
    print(f"final {status} {read_body(sock, headers, rest)}", flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
