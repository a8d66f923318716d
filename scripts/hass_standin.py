#!/usr/bin/env python3
"""A stand-in for Home Assistant's REST API, for tests of `transcribe serve --hass-url`.

    hass_standin.py TOKEN NAMES.json

Listens on 127.0.0.1 (a free port), prints "listening on http://127.0.0.1:PORT" and answers as
Home Assistant does, for requests with `Authorization: Bearer TOKEN` (else 401):
  GET  /api/states    the entities of NAMES.json's "entities" ({"light.x": "Friendly name"})
  POST /api/template  {"areas": [...], "floors": [...]} from NAMES.json (the template is not
                      rendered; transcribe sends one that asks for exactly these lists)
Standard library only. It serves until killed.
"""
import json
import signal
import sys
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

# A test's process may block or ignore SIGTERM, and children inherit both: stop when asked to.
signal.signal(signal.SIGTERM, signal.SIG_DFL)
signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})

TOKEN = sys.argv[1]
with open(sys.argv[2], encoding="utf-8") as file:
    NAMES = json.load(file)


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body):
        data = json.dumps(body).encode()
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def authorized(self):
        if self.headers.get("Authorization") == f"Bearer {TOKEN}":
            return True
        self.answer(401, {"message": "401: Unauthorized"})
        return False

    def do_GET(self):
        if not self.authorized():
            return
        if self.path != "/api/states":
            return self.answer(404, {"message": "Not found"})
        self.answer(200, [
            {"entity_id": entity, "state": "off", "attributes": {"friendly_name": name}}
            for entity, name in NAMES.get("entities", {}).items()
        ])

    def do_POST(self):
        length = int(self.headers.get("Content-Length", "0"))
        self.rfile.read(length)
        if not self.authorized():
            return
        if self.path != "/api/template":
            return self.answer(404, {"message": "Not found"})
        self.answer(200, {"areas": NAMES.get("areas", []), "floors": NAMES.get("floors", [])})

    def log_message(self, *args):
        pass


server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
print(f"listening on http://127.0.0.1:{server.server_address[1]}", flush=True)
server.serve_forever()
