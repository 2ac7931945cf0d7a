"""Checks a serialized SentencePiece model before sentencepiece uses it.

sentencepiece walks a model's normalizer tables (`precompiled_charsmap`: a
darts-clone double-array trie, then NUL-terminated replacement strings) with
no bounds checks: a model with a bad offset in that trie, which loads without
complaint, makes encoding read outside it (found by mutating a trained
model: a segfault in Normalizer::NormalizePrefix). This reads the model's
protobuf wire format just far enough to find those tables (ModelProto field
3, normalizer_spec, and 5, denormalizer_spec; NormalizerSpec field 2) and
checks that every step of a walk, from every node, stays inside the trie and
every replacement offset inside the strings. It also refuses pieces that
sentencepiece's loader puts in a darts-clone trie that cannot hold them (an
empty piece, or one with a NUL byte): the trie's builder throws a C++
exception nothing catches, and the process aborts.
"""
import struct

import numpy as np

_PIECES = 1                 # ModelProto.pieces (repeated SentencePiece)
_PIECE = 1                  # SentencePiece.piece (string)
_NORMALIZER_SPECS = (3, 5)  # ModelProto.normalizer_spec, .denormalizer_spec
_PRECOMPILED_CHARSMAP = 2   # NormalizerSpec.precompiled_charsmap


def _varint(b, i):
    value = shift = 0
    while True:
        if i >= len(b) or shift > 63:
            raise ValueError("a varint runs past the end")
        c = b[i]
        i += 1
        value |= (c & 0x7F) << shift
        if c < 0x80:
            return value, i
        shift += 7


def _fields(b):
    """(field number, wire type, value) of a protobuf message's fields."""
    i = 0
    while i < len(b):
        key, i = _varint(b, i)
        number, wire = key >> 3, key & 7
        if wire == 0:
            value, i = _varint(b, i)
        elif wire in (1, 5):
            value, i = None, i + (8 if wire == 1 else 4)
        elif wire == 2:
            n, i = _varint(b, i)
            value, i = b[i:i + n], i + n
        else:
            raise ValueError("field %d has wire type %d" % (number, wire))
        if i > len(b):
            raise ValueError("field %d runs past the end" % number)
        yield number, wire, value


def _check_charsmap(blob):
    if len(blob) <= 4:
        return  # empty (no normalization) or refused by sentencepiece itself
    trie_bytes = struct.unpack_from("<I", blob)[0]
    if trie_bytes >= len(blob) - 4:
        return  # refused by sentencepiece itself
    n = trie_bytes // 4
    if n == 0:
        raise ValueError("the normalizer's trie is empty")
    units = np.frombuffer(blob, dtype="<u4", count=n, offset=4).astype(np.uint64)
    strings = blob[4 + trie_bytes:]
    index = np.arange(n, dtype=np.uint64)
    # darts-clone: a node's children lie at (node ^ offset) ^ byte, its leaf
    # value at node ^ offset. Units with bit 31 set hold values and never
    # match a byte, so no walk passes through them, except the root (unit 0).
    node = ((units >> np.uint64(31)) == 0) | (index == 0)
    offset = (units >> np.uint64(10)) << ((units & np.uint64(1 << 9)) >> np.uint64(6))
    block = (index ^ offset) | np.uint64(0xFF)
    if np.any(node & (block >= n)):
        bad = int(np.argmax(node & (block >= n)))
        raise ValueError("the normalizer's trie node %d points past its %d units" % (bad, n))
    leaf = node & (((units >> np.uint64(8)) & np.uint64(1)) == 1)
    values = units[(index ^ offset)[leaf].astype(np.int64)] & np.uint64(0x7FFFFFFF)
    if values.size and (int(values.max()) >= len(strings) or strings[-1:] != b"\0"):
        raise ValueError("the normalizer's replacement strings are shorter than its trie says")


def check_model(model):
    """Raises ValueError when a serialized model's pieces or normalizer
    tables would crash sentencepiece."""
    for number, wire, spec in _fields(model):
        if number == _PIECES and wire == 2:
            pieces = [p for inner, inner_wire, p in _fields(spec) if inner == _PIECE and inner_wire == 2]
            if not pieces or any(not p or b"\0" in p for p in pieces):
                raise ValueError("a piece is empty or holds a NUL byte")
        if number in _NORMALIZER_SPECS and wire == 2:
            for inner, inner_wire, blob in _fields(spec):
                if inner == _PRECOMPILED_CHARSMAP and inner_wire == 2:
                    _check_charsmap(blob)
