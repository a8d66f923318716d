#!/usr/bin/env python3
"""A reference Moonshine decoder in Python, for tests and benchmarks of transcribe's own.

Moonshine base-en (see scripts/convert-moonshine.py) is two ONNX graphs and a tokenizer:

    encoder_model        input_values [1, samples] float, 16 kHz mono in [-1, 1]
                         -> last_hidden_state [1, T, 416]
    decoder_model_merged input_ids [1, n] int64, encoder_hidden_states [1, T, 416],
                         past_key_values.{0..7}.{decoder,encoder}.{key,value} [1, 8, len, 52]
                         (encoder keys [1, 8, 52, len] from format 4 on: stored transposed),
                         use_cache_branch [1] bool
                         -> logits [1, n, 32768], present.{0..7}.{decoder,encoder}.{key,value}
    tokenizer.bin        one byte string per token id, each prefixed by its length (one byte;
                         a length of 128 or more takes two, low 7 bits first); U+2581 is a space

The converter's default output keeps the weights 8-bit for ONNX Runtime's com.microsoft
MatMulNBits operator ("weights": "int8-matmulnbits" in model.json; the onnxruntime wheel's CPU
provider runs it); `--float-weights` gives the graphs as shipped ("float-folded"). Both run here
unchanged; the summaries name the format.

Greedy decoding with the key/value cache: the first step feeds BOS (1) with empty past tensors
and use_cache_branch false; every later step feeds the last token alone, use_cache_branch true,
the previous step's decoder key/values and the first step's encoder key/values. Decoding stops
at EOS (2) or after about 6 tokens per second of audio (cut-off audio can make the model loop).

Commands:
    moonshine_reference.py transcribe [--model DIR | --ort] WAV...
        print each file's transcript and timings
    moonshine_reference.py librivox [--model DIR] [--ort-dir DIR] [--no-compare]
                                    [--compare-model DIR]...
        decode pocketsphinx-testdata's LibriVox clips with the converted .onnx model, then with
        each --compare-model (another conversion, e.g. --float-weights) and (unless --no-compare)
        the wheel's .ort original; print per-token and per-second times and the word error rate
        against the references; list every clip whose tokens differ from the first model's
        (with both transcripts and the first differing step) and fail if any does
    moonshine_reference.py memory [--model DIR] [--no-arena]
        load both sessions, decode the LibriVox clips, print the process's peak RSS

Common options: --threads N (intra-op threads, default 1), --optimization {all,extended,basic,
disable}, --no-arena, --config KEY=VALUE (a session config entry, repeatable). Sessions always
set `session.intra_op.allow_spinning` = "0": spinning worker threads only burn a shared
machine's cores.

Used as a module: `Moonshine(directory).transcribe(samples)` returns a Transcript.
"""

from __future__ import annotations

import argparse
import dataclasses
import importlib.util
import json
import math
import os
import re
import resource
import sys
import time
import wave
from pathlib import Path

SAMPLE_RATE = 16000
BOS_TOKEN_ID = 1
EOS_TOKEN_ID = 2
MAX_TOKENS_PER_SECOND = 6.0
SPACE_MARK = "\u2581"

LIBRIVOX_DIR = Path("/usr/share/pocketsphinx/test/data/librivox")

ENCODER, DECODER, TOKENIZER = "encoder_model", "decoder_model_merged", "tokenizer.bin"


def installed_model_dir() -> Path:
    """Where scripts/install-dependencies.sh converts the model: the per-user directory when it
    exists, else the system-wide one."""
    data_home = Path(os.environ.get("XDG_DATA_HOME") or Path.home() / ".local" / "share")
    user = data_home / "transcribe" / "moonshine" / "base-en"
    system = Path("/usr/local/share/transcribe/moonshine/base-en")
    return user if (user / f"{ENCODER}.onnx").is_file() else system


def wheel_model_dir() -> Path | None:
    """The moonshine-cpp wheel's ORT-format originals (found without importing the package)."""
    spec = importlib.util.find_spec("moonshine_cpp")
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0]) / "models" / "base-en"


# --------------------------------------------------------------------------------------------
# Tokenizer
# --------------------------------------------------------------------------------------------


class Tokenizer:
    def __init__(self, path: Path):
        data = path.read_bytes()
        self.pieces: list[bytes] = []
        position = 0
        while position < len(data):
            length = data[position]
            position += 1
            if length >= 128:
                length = (length & 0x7F) | (data[position] << 7)
                position += 1
            self.pieces.append(data[position:position + length])
            position += length

    def decode(self, tokens: list[int]) -> str:
        """Concatenates the tokens' bytes (byte-fallback tokens hold one raw byte), skipping the
        special tokens <unk>, <s>, </s> and ids past the vocabulary (the logits are padded)."""
        pieces = [self.pieces[token] for token in tokens
                  if EOS_TOKEN_ID < token < len(self.pieces)]
        text = b"".join(pieces).decode("utf-8", errors="replace")
        return text.replace(SPACE_MARK, " ").strip()


# --------------------------------------------------------------------------------------------
# Model
# --------------------------------------------------------------------------------------------


@dataclasses.dataclass
class Transcript:
    text: str
    tokens: list[int]
    audio_seconds: float
    encoder_seconds: float
    decoder_seconds: float
    decoder_steps: int

    @property
    def seconds(self) -> float:
        return self.encoder_seconds + self.decoder_seconds


OPTIMIZATION_LEVELS = ("all", "extended", "basic", "disable")


def session_options(threads: int = 1, optimization: str = "all", arena: bool = True,
                    config: dict[str, str] | None = None):
    import onnxruntime

    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = threads
    options.inter_op_num_threads = 1
    options.execution_mode = onnxruntime.ExecutionMode.ORT_SEQUENTIAL
    options.graph_optimization_level = {
        "all": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_ALL,
        "extended": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED,
        "basic": onnxruntime.GraphOptimizationLevel.ORT_ENABLE_BASIC,
        "disable": onnxruntime.GraphOptimizationLevel.ORT_DISABLE_ALL,
    }[optimization]
    options.enable_cpu_mem_arena = arena
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    for key, value in (config or {}).items():
        options.add_session_config_entry(key, value)
    options.log_severity_level = 3
    return options


class Moonshine:
    """Encoder, merged decoder and tokenizer from one directory; `extension` picks the .onnx
    conversion or the wheel's .ort originals."""

    def __init__(self, directory: Path, extension: str = "onnx", **options):
        import numpy
        import onnxruntime

        self.numpy = numpy
        started = time.monotonic()
        session = lambda stem: onnxruntime.InferenceSession(  # noqa: E731
            str(directory / f"{stem}.{extension}"), session_options(**options),
            providers=["CPUExecutionProvider"])
        self.encoder = session(ENCODER)
        self.decoder = session(DECODER)
        self.load_seconds = time.monotonic() - started
        self.tokenizer = Tokenizer(directory / TOKENIZER)
        self.output_names = [value.name for value in self.decoder.get_outputs()]
        # Empty past tensors for the first step: one batch, the graph's fixed dimensions, no
        # positions ([1, heads, 0, head_dim]; [1, heads, head_dim, 0] for encoder keys stored
        # transposed, as convert-moonshine.py's format 4 does).
        self.empty_past = {
            value.name: numpy.zeros(
                tuple(1 if index == 0 else (dim if isinstance(dim, int) else 0)
                      for index, dim in enumerate(value.shape)), numpy.float32)
            for value in self.decoder.get_inputs() if value.name.startswith("past_key_values.")}

    def transcribe(self, samples) -> Transcript:
        """`samples`: float32 mono audio at 16 kHz, in [-1, 1]."""
        numpy = self.numpy
        audio = numpy.asarray(samples, dtype=numpy.float32).reshape(1, -1)
        audio_seconds = audio.shape[1] / SAMPLE_RATE
        max_tokens = max(1, math.ceil(audio_seconds * MAX_TOKENS_PER_SECOND))

        started = time.perf_counter()
        hidden = self.encoder.run(None, {"input_values": audio})[0]
        encoded = time.perf_counter()

        feeds = {"input_ids": numpy.array([[BOS_TOKEN_ID]], numpy.int64),
                 "encoder_hidden_states": hidden,
                 "use_cache_branch": numpy.array([False]),
                 **self.empty_past}
        tokens: list[int] = []
        steps = 0
        while len(tokens) < max_tokens:
            outputs = dict(zip(self.output_names, self.decoder.run(None, feeds)))
            steps += 1
            token = int(outputs["logits"][0, -1].argmax())
            if token == EOS_TOKEN_ID:
                break
            tokens.append(token)
            feeds["input_ids"] = numpy.array([[token]], numpy.int64)
            for name in self.empty_past:
                # Decoder self-attention grows every step; the encoder cross-attention
                # key/values are computed on the first step only and then kept.
                if steps == 1 or ".decoder." in name:
                    feeds[name] = outputs[name.replace("past_key_values.", "present.")]
            feeds["use_cache_branch"] = numpy.array([True])
        decoded = time.perf_counter()
        return Transcript(self.tokenizer.decode(tokens), tokens, audio_seconds,
                          encoded - started, decoded - encoded, steps)


def read_wav(path: Path):
    """16-bit PCM mono 16 kHz WAV -> float32 samples in [-1, 1]."""
    import numpy

    with wave.open(str(path), "rb") as file:
        if (file.getnchannels(), file.getsampwidth(), file.getframerate()) != (1, 2, SAMPLE_RATE):
            raise SystemExit(f"{path}: need 16-bit mono {SAMPLE_RATE} Hz "
                             f"(convert with: sox IN -r 16000 -c 1 -b 16 OUT.wav)")
        frames = file.readframes(file.getnframes())
    return numpy.frombuffer(frames, dtype="<i2").astype(numpy.float32) / 32768.0


# --------------------------------------------------------------------------------------------
# Word error rate
# --------------------------------------------------------------------------------------------

ABBREVIATIONS = {"mr": "mister", "mrs": "missus", "dr": "doctor", "st": "saint"}


def normalize(text: str) -> list[str]:
    """Lower case, hyphens as spaces, punctuation dropped, common abbreviations spelled out as
    the LibriVox references write them."""
    text = text.lower().replace("-", " ")
    words = re.sub(r"[^a-z0-9' ]+", " ", text).split()
    return [ABBREVIATIONS.get(word, word) for word in words]


def word_errors(reference: list[str], hypothesis: list[str]) -> int:
    """Levenshtein distance over words (substitutions + deletions + insertions)."""
    previous = list(range(len(hypothesis) + 1))
    for i, word in enumerate(reference, 1):
        current = [i]
        for j, guess in enumerate(hypothesis, 1):
            current.append(min(previous[j] + 1, current[j - 1] + 1,
                               previous[j - 1] + (word != guess)))
        previous = current
    return previous[-1]


def librivox_clips(directory: Path = LIBRIVOX_DIR) -> list[tuple[Path, str]]:
    """(wav, reference) pairs from pocketsphinx-testdata's `transcription` file, whose lines
    read `<s> words </s> (file-id)`."""
    transcription = directory / "transcription"
    if not transcription.is_file():
        raise SystemExit(f"{transcription} is missing (apt-get install pocketsphinx-testdata)")
    clips = []
    for line in transcription.read_text().splitlines():
        match = re.match(r"\s*(.*?)\s*\(([^)]+)\)\s*$", line)
        if match:
            words = match.group(1).replace("<s>", "").replace("</s>", "").strip()
            clips.append((directory / f"{match.group(2)}.wav", words))
    return clips


# --------------------------------------------------------------------------------------------
# Commands
# --------------------------------------------------------------------------------------------


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # Linux: kilobytes


def current_rss_mb() -> float:
    with open("/proc/self/statm") as statm:  # in pages: size, resident, ...
        return int(statm.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") / 2**20


def weights_format(directory: Path, extension: str) -> str:
    """The converted model's "weights" as model.json records them ("ort" for the originals)."""
    if extension == "ort":
        return "ort"
    try:
        manifest = json.loads((directory / "model.json").read_text())
    except (OSError, ValueError):
        return "unknown"
    # Conversions before format 2 had no "weights": they were all float-folded.
    return manifest.get("weights", "float-folded") if isinstance(manifest, dict) else "unknown"


def decode_all(model: Moonshine, clips) -> list[Transcript]:
    return [model.transcribe(read_wav(path)) for path, _ in clips]


def summarize(label: str, model: Moonshine, clips, transcripts: list[Transcript]) -> None:
    audio = sum(t.audio_seconds for t in transcripts)
    encoder = sum(t.encoder_seconds for t in transcripts)
    decoder = sum(t.decoder_seconds for t in transcripts)
    steps = sum(t.decoder_steps for t in transcripts)
    errors = sum(word_errors(normalize(reference), normalize(t.text))
                 for (_, reference), t in zip(clips, transcripts))
    words = sum(len(normalize(reference)) for _, reference in clips)
    print(f"{label}: load {model.load_seconds:.2f} s; {audio:.2f} s of audio in "
          f"{encoder + decoder:.2f} s, RTF {(encoder + decoder) / audio:.3f}; "
          f"encoder {1000 * encoder / audio:.0f} ms per second of audio; "
          f"decoder {1000 * decoder / steps:.1f} ms per token ({steps} steps); "
          f"WER {errors / words:.3f} ({errors}/{words})")


def command_transcribe(arguments, options) -> int:
    directory, extension = model_location(arguments)
    model = Moonshine(directory, extension, **options)
    for path in arguments.wav:
        transcript = model.transcribe(read_wav(path))
        print(f"{path}: {transcript.text}")
        print(f"  {transcript.audio_seconds:.2f} s audio, encoder "
              f"{transcript.encoder_seconds * 1000:.0f} ms, decoder "
              f"{transcript.decoder_seconds * 1000:.0f} ms / {transcript.decoder_steps} steps, "
              f"RTF {transcript.seconds / transcript.audio_seconds:.3f}", file=sys.stderr)
    return 0


def command_librivox(arguments, options) -> int:
    clips = librivox_clips()
    models = [(arguments.model, "onnx")]
    models += [(directory, "onnx") for directory in arguments.compare_model]
    if not arguments.no_compare:
        if arguments.ort_dir is None:
            raise SystemExit("moonshine-cpp is not installed; give --ort-dir or --no-compare")
        models.append((arguments.ort_dir, "ort"))

    results = []
    for number, (directory, extension) in enumerate(models):
        model = Moonshine(directory, extension, **options)
        decode_all(model, clips[:1])  # warm up (first runs allocate)
        transcripts = decode_all(model, clips)
        label = f"{directory} (.{extension}, {weights_format(directory, extension)})"
        if number == 0:
            for (path, reference), transcript in zip(clips, transcripts):
                print(f"{path.stem}: {transcript.text}\n  reference: {reference}")
        summarize(label, model, clips, transcripts)
        results.append((label, transcripts))
        del model

    first_label, first = results[0]
    differences = 0
    for label, transcripts in results[1:]:
        different = [(path, a, b) for (path, _), a, b in zip(clips, first, transcripts)
                     if a.tokens != b.tokens]
        differences += len(different)
        if not different:
            print(f"identical tokens and transcripts: {first_label} and {label}")
            continue
        print(f"DIFFERENT tokens: {first_label} and {label}, on {len(different)} of "
              f"{len(clips)} clips:")
        for path, a, b in different:
            step = next((j for j, (x, y) in enumerate(zip(a.tokens, b.tokens)) if x != y),
                        min(len(a.tokens), len(b.tokens)))
            print(f"  {path.stem} (first at token {step + 1}):\n    {a.text}\n    {b.text}")
    return 1 if differences else 0


def command_memory(arguments, options) -> int:
    directory, extension = model_location(arguments)
    before = peak_rss_mb()
    model = Moonshine(directory, extension, **options)
    loaded, resident = peak_rss_mb(), current_rss_mb()
    decode_all(model, librivox_clips())
    print(f"peak RSS: {before:.0f} MB before loading, {loaded:.0f} MB with both sessions "
          f"loaded ({resident:.0f} MB resident once loaded), {peak_rss_mb():.0f} MB after "
          f"decoding the LibriVox clips ({current_rss_mb():.0f} MB resident) "
          f"(.{extension}, {weights_format(directory, extension)}, "
          f"arena {'on' if options['arena'] else 'off'})")
    return 0


def model_location(arguments) -> tuple[Path, str]:
    if getattr(arguments, "ort", False):
        if arguments.ort_dir is None:
            raise SystemExit("moonshine-cpp is not installed; give --ort-dir")
        return arguments.ort_dir, "ort"
    return arguments.model, "onnx"


def main(argv: list[str]) -> int:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--model", type=Path, default=installed_model_dir(),
                        help="directory of the converted .onnx model (default: %(default)s)")
    common.add_argument("--ort-dir", type=Path, default=wheel_model_dir(),
                        help="directory of the .ort originals (default: the moonshine-cpp wheel's)")
    common.add_argument("--ort", action="store_true", help="use the .ort originals")
    common.add_argument("--threads", type=int, default=1, help="intra-op threads (default 1)")
    common.add_argument("--optimization", choices=OPTIMIZATION_LEVELS, default="all")
    common.add_argument("--no-arena", action="store_true",
                        help="disable ONNX Runtime's CPU memory arena")
    common.add_argument("--config", action="append", default=[], metavar="KEY=VALUE",
                        help="add a session config entry, e.g. session.disable_prepacking=1")
    parser = argparse.ArgumentParser(description="Reference Moonshine decoder (see the header).")
    commands = parser.add_subparsers(dest="command", required=True)
    transcribe = commands.add_parser("transcribe", parents=[common])
    transcribe.add_argument("wav", type=Path, nargs="+")
    librivox = commands.add_parser("librivox", parents=[common])
    librivox.add_argument("--no-compare", action="store_true",
                          help="skip decoding with the .ort originals")
    librivox.add_argument("--compare-model", type=Path, action="append", default=[],
                          metavar="DIR", help="also decode with this converted model and "
                                              "compare (repeatable)")
    commands.add_parser("memory", parents=[common])
    arguments = parser.parse_args(argv)

    config = dict(entry.split("=", 1) for entry in arguments.config if "=" in entry)
    if len(config) != len(arguments.config):
        parser.error("--config takes KEY=VALUE")
    options = {"threads": arguments.threads, "optimization": arguments.optimization,
               "arena": not arguments.no_arena, "config": config}
    return {"transcribe": command_transcribe, "librivox": command_librivox,
            "memory": command_memory}[arguments.command](arguments, options)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
