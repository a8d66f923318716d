#!/usr/bin/env python3
"""The peer: decodes audio files with faster-whisper (CTranslate2) and prints one JSON line per
file, like whisper_decode: the text, the language, and the decode time (transcribe() and the
reading of its segments, which it produces lazily; no model load, no file reading).

    faster_whisper_decode.py [--threads N] [--beam N] [--language CODE|auto] [--translate]
                             [--compute-type int8] MODEL_DIR FILE...

MODEL_DIR: a CTranslate2 Whisper model (model.bin, config.json, tokenizer.json,
vocabulary.txt); FILE: 16 kHz mono 16-bit PCM, WAV or headerless (.raw).
"""

import argparse
import json
import sys
import time
import wave

import numpy


def read_audio(path: str):
    """16 kHz mono 16-bit PCM as float32 in [-1, 1)."""
    if path.endswith(".wav"):
        with wave.open(path, "rb") as stream:
            if (stream.getframerate(), stream.getnchannels(), stream.getsampwidth()) != (16000, 1, 2):
                sys.exit(f"faster_whisper_decode: {path}: not 16 kHz mono 16-bit PCM")
            data = stream.readframes(stream.getnframes())
    else:
        with open(path, "rb") as stream:
            data = stream.read()
    return numpy.frombuffer(data, dtype="<i2").astype(numpy.float32) / 32768.0


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--threads", type=int, default=2)
    parser.add_argument("--beam", type=int, default=5)
    parser.add_argument("--language", default="en")
    parser.add_argument("--translate", action="store_true")
    parser.add_argument("--compute-type", default="int8")
    parser.add_argument("model")
    parser.add_argument("files", nargs="+")
    arguments = parser.parse_args()

    from faster_whisper import WhisperModel

    model = WhisperModel(arguments.model, device="cpu", compute_type=arguments.compute_type,
                         cpu_threads=arguments.threads, num_workers=1)
    language = None if arguments.language == "auto" else arguments.language
    total = 0.0
    for path in arguments.files:
        audio = read_audio(path)
        started = time.monotonic()
        segments, info = model.transcribe(
            audio, language=language, beam_size=arguments.beam,
            task="translate" if arguments.translate else "transcribe")
        text = "".join(segment.text for segment in segments)
        seconds = time.monotonic() - started
        total += seconds
        print(json.dumps({"file": path, "language": info.language, "seconds": round(seconds, 4),
                          "audio_seconds": round(len(audio) / 16000, 3), "text": text},
                         ensure_ascii=False), flush=True)
    print(f"faster_whisper_decode: {len(arguments.files)} files, decode {total:.3f} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
