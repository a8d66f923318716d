#!/usr/bin/env python3
"""Two `transcribe serve` instances behind nginx on loopback: sessions spread across both, and
when one instance is stopped mid-run its clients get their last words and a clean close while
new sessions go to the other.

    python3 scale_out.py /path/to/transcribe [--model]

Without --model the instances serve the lorem client (`serve --preview`), which "hears" a word
for about every 0.3 s of audio pushed, so silence is enough to drive it. Prints one line per
check and exits 0 when all pass, 1 with the failing check otherwise.
"""

import argparse
import asyncio
import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request

import websockets

CHUNK = b"\0\0" * 3200  # 0.2 s of 16 kHz silence


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_instance(transcribe, extra):
    process = subprocess.Popen(
        [transcribe, "serve", "--port", "0", "--max-sessions", "4", *extra],
        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 60
    for line in process.stderr:
        match = re.search(r"listening on http://([\d.]+):(\d+)", line)
        if match:
            break
        if time.monotonic() > deadline:
            raise SystemExit("an instance did not report its address within 60 s")
    else:
        raise SystemExit(f"an instance exited before listening (status {process.wait()})")
    # Keep draining its log so it never blocks on a full pipe.
    asyncio.get_running_loop().run_in_executor(None, lambda: [None for _ in process.stderr])
    return process, int(match.group(2))


def nginx_config(directory, listen, upstreams):
    servers = "\n".join(f"    server 127.0.0.1:{port} max_fails=1 fail_timeout=60s;"
                        for port in upstreams)
    user = "user root root;" if os.geteuid() == 0 else ""
    return f"""
{user}
worker_processes 1;
daemon off;
pid {directory}/nginx.pid;
error_log {directory}/error.log warn;
events {{ worker_connections 256; }}
http {{
  access_log {directory}/access.log;
  client_body_temp_path {directory}/body;
  proxy_temp_path {directory}/proxy;
  fastcgi_temp_path {directory}/fastcgi;
  uwsgi_temp_path {directory}/uwsgi;
  scgi_temp_path {directory}/scgi;
  upstream transcribe {{
{servers}
  }}
  map $http_upgrade $connection_upgrade {{ default upgrade; '' close; }}
  server {{
    listen 127.0.0.1:{listen};
    location / {{
      proxy_pass http://transcribe;
      proxy_http_version 1.1;
      proxy_set_header Upgrade $http_upgrade;
      proxy_set_header Connection $connection_upgrade;
      proxy_read_timeout 1h;
      client_max_body_size 100m;
      proxy_next_upstream error timeout http_502 http_503;
    }}
  }}
}}
"""


def active_sessions(port):
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=5) as response:
        text = response.read().decode()
    match = re.search(r"^transcribe_active_sessions(?:\{[^}]*\})? (\S+)$", text, re.M)
    return float(match.group(1)) if match else 0.0


class Stream:
    """One vosk-protocol client that keeps streaming silence until told to finish."""

    def __init__(self, url):
        self.url = url
        self.words = []
        self.close_code = None
        self.finished = asyncio.Event()
        self.stop = False

    async def run(self):
        async with websockets.connect(self.url) as ws:
            await ws.send(json.dumps({"config": {"sample_rate": 16000}}))
            try:
                while not self.stop:
                    await ws.send(CHUNK)
                    self.words += json.loads(await ws.recv()).get("text", "").split()
                    await asyncio.sleep(0.05)
                await ws.send('{"eof" : 1}')
                self.words += json.loads(await ws.recv()).get("text", "").split()
                await ws.wait_closed()
            except websockets.exceptions.ConnectionClosed:
                pass
            self.close_code = ws.close_code
        self.finished.set()


def check(condition, message):
    print(("ok: " if condition else "FAILED: ") + message, flush=True)
    if not condition:
        raise SystemExit(1)


async def main(transcribe, extra):
    with tempfile.TemporaryDirectory() as directory:
        os.chmod(directory, 0o755)
        first, first_port = start_instance(transcribe, extra)
        second, second_port = start_instance(transcribe, extra)
        listen = free_port()
        with open(f"{directory}/nginx.conf", "w") as config:
            config.write(nginx_config(directory, listen, [first_port, second_port]))
        nginx = subprocess.Popen(["nginx", "-p", directory, "-c", f"{directory}/nginx.conf"])
        try:
            for _ in range(100):
                try:
                    socket.create_connection(("127.0.0.1", listen), timeout=1).close()
                    break
                except OSError:
                    await asyncio.sleep(0.1)
            url = f"ws://127.0.0.1:{listen}/"

            streams = [Stream(url) for _ in range(4)]
            tasks = [asyncio.create_task(stream.run()) for stream in streams]
            await asyncio.sleep(2)
            on_first, on_second = active_sessions(first_port), active_sessions(second_port)
            check(on_first >= 1 and on_second >= 1 and on_first + on_second == 4,
                  f"4 streams spread across both instances ({on_first:.0f} + {on_second:.0f})")

            first.send_signal(signal.SIGTERM)
            status = await asyncio.get_running_loop().run_in_executor(None, first.wait)
            check(status == 0, f"the stopped instance exited 0 (status {status})")
            await asyncio.sleep(0.5)
            cut = [stream for stream in streams if stream.finished.is_set()]
            check(len(cut) == on_first,
                  f"its {on_first:.0f} clients were closed, the others stream on "
                  f"({len(cut)} closed)")
            check(all(stream.close_code == 1001 for stream in cut),
                  "they got a clean close, 1001 going away "
                  f"({[stream.close_code for stream in cut]})")
            check(all(stream.words for stream in cut),
                  "they got the words heard before the stop")

            fresh = [Stream(url) for _ in range(2)]
            tasks += [asyncio.create_task(stream.run()) for stream in fresh]
            await asyncio.sleep(2)
            check(not any(stream.finished.is_set() for stream in fresh),
                  "new sessions are accepted after the instance went away")
            check(active_sessions(second_port) == 4 - len(cut) + 2,
                  "and they run on the remaining instance")

            for stream in streams + fresh:
                stream.stop = True
            await asyncio.wait_for(asyncio.gather(*tasks), timeout=30)
            survivors = [stream for stream in streams + fresh if stream not in cut]
            check(all(stream.close_code == 1000 and stream.words for stream in survivors),
                  "the remaining streams end normally with their words")
        finally:
            nginx.terminate()
            nginx.wait()
            for process in (first, second):
                if process.poll() is None:
                    process.kill()
                    process.wait()
    return 0


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("transcribe")
    parser.add_argument("--model", action="store_true", help="serve the real model")
    options = parser.parse_args()
    sys.exit(asyncio.run(main(options.transcribe, [] if options.model else ["--preview"])))
