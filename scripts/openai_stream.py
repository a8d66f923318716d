#!/usr/bin/env python3
"""Streams a transcription from /v1/audio/transcriptions with the official `openai` SDK.

Waits for the server's /healthz, then calls `audio.transcriptions.create(..., stream=True)`
and iterates the events the SDK parses. Prints one JSON object: `events`, each with its `type`,
its `delta` or `text` (and `usage`), and `at`, the seconds from the call to the event; or
`error` with the status and message of the SDK's exception.

    openai_stream.py http://127.0.0.1:2700 talk.wav [--token T] [--format json|text]
        [--model M] [--logprobs] [--whole] [--chunking auto|JSON]

`--logprobs` asks for `include=["logprobs"]`; `--chunking` passes `chunking_strategy` (`auto`, or
a JSON object the SDK sends as its fields); `--whole` asks without streaming and prints
`{"whole": the answer}` instead.
"""

import argparse
import json
import sys
import time

import openai
from openai import OpenAI

from server_health import wait_for


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("base")
    parser.add_argument("audio")
    parser.add_argument("--token", default="unused")
    parser.add_argument("--format", default="json")
    parser.add_argument("--model", default="whisper-1")
    parser.add_argument("--logprobs", action="store_true")
    parser.add_argument("--whole", action="store_true")
    parser.add_argument("--chunking")
    arguments = parser.parse_args()
    extra = {"include": ["logprobs"]} if arguments.logprobs else {}
    if arguments.chunking:
        extra["chunking_strategy"] = (
            "auto" if arguments.chunking == "auto" else json.loads(arguments.chunking))
    wait_for(arguments.base)
    client = OpenAI(
        base_url=arguments.base + "/v1", api_key=arguments.token, max_retries=0, timeout=300)
    events = []
    started = time.monotonic()
    try:
        if arguments.whole:
            with open(arguments.audio, "rb") as file:
                answer = client.audio.transcriptions.create(
                    model=arguments.model, file=file, response_format=arguments.format, **extra)
            print(json.dumps({"whole": answer.model_dump(exclude_none=True)}))
            return
        with open(arguments.audio, "rb") as file:
            stream = client.audio.transcriptions.create(
                model=arguments.model, file=file, response_format=arguments.format,
                stream=True, **extra)
            for event in stream:
                shown = event.model_dump(exclude_none=True)
                shown["at"] = round(time.monotonic() - started, 3)
                events.append(shown)
    except openai.APIStatusError as error:
        print(json.dumps({"error": {"status": error.status_code, "message": error.message}}))
        return
    print(json.dumps({"events": events}))


if __name__ == "__main__":
    sys.exit(main())
