"""Pretrained word vectors (MindSpore's text.Vectors, GloVe, FastText,
CharNGram) and ToVectors, which maps tokens to them in the C++ workers.

A vectors file holds lines "token v1 v2 ... vd" (d >= 2 numbers), after
optional header lines of two fields ("count dim", as fastText's .vec files
begin); a token seen twice keeps its first vector. `from_file` reads it
once; ToVectors ops made while the object lives share that table. A
malformed line is a CorruptionError naming the file and line.

Thread safety: Vectors objects and ToVectors ops are immutable values.
"""
import os

from mindrecord import _core
from mindrecord._ops_base import TensorOperation

_MAX_INT32 = 2 ** 31 - 1


class Vectors:
    """Pretrained vectors from a text file of "token v1 ... vd" lines."""

    _kind = "Vectors"

    def __init__(self, *args, **kwargs) -> None:
        raise TypeError("%s objects are made by %s.from_file(file_path, max_vectors=None)"
                        % (type(self).__name__, type(self).__name__))

    @classmethod
    def from_file(cls, file_path, max_vectors=None):
        """The vectors of `file_path`: all lines, or the first `max_vectors`
        after the header (0 or None: all)."""
        name = cls.__name__ + ".from_file"
        if not isinstance(file_path, str):
            raise TypeError("%s: file_path must be a str, got %r" % (name, file_path))
        if max_vectors is None:
            max_vectors = 0
        elif isinstance(max_vectors, bool) or not isinstance(max_vectors, int):
            raise TypeError("Argument max_vectors with value %r is not of type [<class 'int'>], but got %s."
                            % (max_vectors, type(max_vectors)))
        elif not 0 <= max_vectors <= _MAX_INT32:
            raise ValueError("Input max_vectors is not within the required interval of [0, %d]." % _MAX_INT32)
        self = object.__new__(cls)
        self._file = os.path.abspath(file_path)
        self._max = max_vectors
        self._loaded = _core.load_vectors(self._file, cls._kind, max_vectors)
        return self

    def _spec(self):
        return {"kind": self._kind, "file": self._file, "max_vectors": self._max}

    def __repr__(self):
        return "%s(%r, %d vectors of %d)" % (type(self).__name__, self._file, len(self._loaded), self._loaded.dim)


class GloVe(Vectors):
    """GloVe vectors: the file must be named glove.6B.*.txt, as MindSpore's."""

    _kind = "GloVe"


class FastText(Vectors):
    """fastText vectors: the file must be a *.vec, as MindSpore's."""

    _kind = "FastText"


class CharNGram(Vectors):
    """Character n-gram vectors (keys "2gram-ab", "3gram-#BEGIN#ab", ...): a
    token's vector is the mean of its 2-, 3- and 4-grams' (characters are
    bytes, as MindSpore's)."""

    _kind = "CharNGram"


class ToVectors(TensorOperation):
    """Each string (one, or an array of them) becomes its vector (float32):
    [dim] for one string, else [strings, dim]. A token not in `vectors` gets
    `unk_init` (dim numbers) or zeros; `lower_case_backup` looks it up with
    ASCII letters lowered (only that form, as MindSpore's)."""

    def __init__(self, vectors, unk_init=None, lower_case_backup=False) -> None:
        if not isinstance(vectors, Vectors):
            raise TypeError("ToVectors: vectors must be a text.Vectors, FastText, GloVe or CharNGram, got %r"
                            % (vectors,))
        if unk_init is None:
            unk_init = []
        if not isinstance(unk_init, (list, tuple)) or any(
                isinstance(v, bool) or not isinstance(v, (int, float)) for v in unk_init):
            raise TypeError("ToVectors: unk_init must be a list of numbers, got %r" % (unk_init,))
        if not isinstance(lower_case_backup, bool):
            raise TypeError("Argument lower_case_backup with value %s is not of type [<class 'bool'>], but got %s."
                            % (lower_case_backup, type(lower_case_backup)))
        super().__init__("ToVectors", vectors=vectors._spec(), unk_init=[float(v) for v in unk_init],
                         lower_case_backup=lower_case_backup)
        self._vectors = vectors  # holds the loaded table while the op lives
