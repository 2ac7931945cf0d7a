"""SentencePiece in mindrecord.text, as MindSpore's: SentencePieceVocab trains a
model from text files or a dataset column (from_file, from_dataset) and saves
it (save_model); SentencePieceTokenizer splits each string into the model's
pieces or ids.

Training runs Google's sentencepiece trainer through its Debian Python binding
(python3-sentencepiece), imported when first used. The tokenizer is a C++ op:
mindrecord._sentencepiece_native (python/sentencepiece/, linked against
libsentencepiece) loads the model and hands _core a table of C functions
(python/native_tokenizer.h), which the worker threads call without the GIL.

Thread safety: SentencePieceVocab is an immutable value once built; a
SentencePieceTokenizer is an immutable op.
"""
from enum import IntEnum
import io
import numbers
import os
import tempfile

import numpy as np

from mindrecord import _core
from mindrecord._ops_base import TensorOperation
from mindrecord._sentencepiece_check import check_model


class SentencePieceModel(IntEnum):
    """The subword algorithm a SentencePieceVocab trains (MindSpore's values)."""
    UNIGRAM = 0
    BPE = 1
    CHAR = 2
    WORD = 3


class SPieceTokenizerOutType(IntEnum):
    """SentencePieceTokenizer's output: the pieces as strings, or their ids (int32)."""
    STRING = 0
    INT = 1


class SPieceTokenizerLoadType(IntEnum):
    """Where a SentencePieceTokenizer's model comes from (MindSpore's enum)."""
    FILE = 0
    MODEL = 1


# Set by the arguments of from_file / from_dataset, or by us: not in params.
_RESERVED = ("input", "vocab_size", "model_prefix", "character_coverage", "model_type", "model_writer",
             "sentence_iterator")


def _spm():
    try:
        import sentencepiece
    except ImportError as e:
        raise ImportError("SentencePiece needs Google's sentencepiece module (Debian: apt install "
                          "python3-sentencepiece)") from e
    return sentencepiece


def _train(op, vocab_size, character_coverage, model_type, params, **source):
    if isinstance(vocab_size, bool) or not isinstance(vocab_size, numbers.Integral) or not 0 < vocab_size < 2**31:
        raise ValueError("%s: vocab_size must be an int in [1, 2^31), got %r" % (op, vocab_size))
    if (isinstance(character_coverage, bool) or not isinstance(character_coverage, numbers.Real)
            or not 0 < character_coverage <= 1):
        raise ValueError("%s: character_coverage must be a number in (0, 1], got %r" % (op, character_coverage))
    if not isinstance(model_type, SentencePieceModel):
        raise TypeError("%s: model_type must be a text.SentencePieceModel, got %r" % (op, model_type))
    if not isinstance(params, dict):
        raise TypeError("%s: params must be a dict of sentencepiece trainer options, got %r" % (op, params))
    for key, value in params.items():
        if not isinstance(key, str):
            raise TypeError("%s: params keys must be str, got %r" % (op, key))
        if key in _RESERVED:
            raise ValueError("%s: params may not set %r: it is set by the arguments (MindSpore drops it "
                             "without a word)" % (op, key))
        if not isinstance(value, (str, numbers.Real)):
            raise TypeError("%s: params[%r] must be a str, number or bool, got %r" % (op, key, value))
    model = io.BytesIO()
    options = {k: (str(v).lower() if isinstance(v, bool) else v) for k, v in params.items()}
    options.setdefault("minloglevel", 1)  # the trainer's progress lines, as MindSpore quiets them
    try:
        _spm().SentencePieceTrainer.train(vocab_size=int(vocab_size), character_coverage=float(character_coverage),
                                          model_type=model_type.name.lower(), model_writer=model, **source,
                                          **options)
    except (RuntimeError, OSError, ValueError) as e:
        raise RuntimeError("SentencePieceVocab: %s" % e) from None
    vocab = SentencePieceVocab()
    vocab._model = model.getvalue()
    return vocab


class SentencePieceVocab:
    """A trained SentencePiece model (MindSpore's SentencePieceVocab)."""

    def __init__(self) -> None:
        self._model = b""

    @classmethod
    def from_file(cls, file_path, vocab_size, character_coverage, model_type, params):
        """Trains a model of `vocab_size` pieces on the lines of the text
        files `file_path` (a list). `params`: more sentencepiece trainer
        options ({"max_sentence_length": 8192, ...})."""
        if not isinstance(file_path, list) or not file_path or not all(isinstance(p, str) for p in file_path):
            raise TypeError("SentencePieceVocab.from_file: file_path must be a non-empty list of paths, got %r"
                            % (file_path,))
        for p in file_path:
            if not os.path.isfile(p):
                raise FileNotFoundError("SentencePieceVocab.from_file: %s: no such file" % p)
            if "," in p:
                raise ValueError("SentencePieceVocab.from_file: %s: sentencepiece takes its input files as a "
                                 "comma-separated list, so a path may not hold a comma" % p)
        return _train("SentencePieceVocab.from_file", vocab_size, character_coverage, model_type, params,
                      input=",".join(file_path))

    @classmethod
    def from_dataset(cls, dataset, col_names, vocab_size, character_coverage, model_type, params):
        """Trains a model on the strings of one column over one pass of
        `dataset`: col_names[0] (an empty list: the column "text")."""
        if not isinstance(col_names, list) or not all(isinstance(c, str) for c in col_names):
            raise TypeError("SentencePieceVocab.from_dataset: col_names must be a list of str, got %r" % (col_names,))
        if len(col_names) > 1:
            raise ValueError("SentencePieceVocab.from_dataset: trains on one column, got %r (MindSpore reads "
                             "only the first)" % (col_names,))
        column = col_names[0] if col_names else "text"
        if not hasattr(dataset, "create_dict_iterator"):
            raise TypeError("SentencePieceVocab.from_dataset: dataset must be a dataset, got %r" % (dataset,))

        def sentences():
            for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
                if column not in row:
                    raise ValueError("SentencePieceVocab.from_dataset: no column %r (columns: %s)"
                                     % (column, list(row)))
                value = row[column]
                if not isinstance(value, np.ndarray) or value.dtype.kind not in "US" or value.ndim != 0:
                    raise TypeError("SentencePieceVocab.from_dataset: column %r must hold one string a row, got %s"
                                    % (column, _describe(value)))
                yield value.item().decode("utf-8", "surrogateescape") if value.dtype.kind == "S" else str(value)

        # What the pass raises is kept and raised once the trainer returns
        # (raised inside its iterator, it turns into a SystemError).
        failed = []

        def guarded():
            try:
                yield from sentences()
            except Exception as e:  # noqa: BLE001 (raised below)
                failed.append(e)

        try:
            vocab = _train("SentencePieceVocab.from_dataset", vocab_size, character_coverage, model_type, params,
                           sentence_iterator=guarded())
        except RuntimeError:
            if not failed:
                raise
        if failed:
            raise failed[0]
        return vocab

    @classmethod
    def save_model(cls, vocab, path, filename):
        """Writes the model to path/filename (owner read/write only, as
        MindSpore's); the folder must exist."""
        if not isinstance(vocab, SentencePieceVocab) or not vocab._model:
            raise TypeError("SentencePieceVocab.save_model: vocab must be a trained text.SentencePieceVocab, got %r"
                            % (vocab,))
        if not isinstance(path, str) or not isinstance(filename, str) or not filename:
            raise TypeError("SentencePieceVocab.save_model: path and filename must be str")
        if not os.path.isdir(path):
            raise FileNotFoundError("SentencePieceVocab.save_model: %s: no such folder" % path)
        target = os.path.join(os.path.realpath(path), filename)
        fd, tmp = tempfile.mkstemp(dir=os.path.dirname(target), prefix=".%s." % os.path.basename(target))
        try:
            with os.fdopen(fd, "wb") as f:
                f.write(vocab._model)
                f.flush()
                os.fsync(f.fileno())
            os.chmod(tmp, 0o600)
            os.replace(tmp, target)
        except BaseException:
            if os.path.exists(tmp):
                os.unlink(tmp)
            raise


def _describe(value):
    if isinstance(value, np.ndarray):
        return "an array of dtype %s and shape %s" % (value.dtype, value.shape)
    return type(value).__name__


class SentencePieceTokenizer(TensorOperation):
    """Each string (a string column's value, or a 0-d str array) becomes the
    1-D array of its pieces (out_type STRING) or of their ids (INT, int32).
    `mode`: a SentencePieceVocab, or the path of a model file (read once,
    here). A C++ op: the pipeline's worker threads encode without the GIL."""

    def __init__(self, mode, out_type) -> None:
        if isinstance(mode, SentencePieceVocab):
            if not mode._model:
                raise ValueError("SentencePieceTokenizer: the SentencePieceVocab holds no model")
            model, source = mode._model, "a SentencePieceVocab"
        elif isinstance(mode, str):
            try:
                with open(mode, "rb") as f:
                    model = f.read()
            except OSError as e:
                raise type(e)(e.errno, "SentencePieceTokenizer: cannot read the model file", mode) from None
            source = mode
        else:
            raise TypeError("SentencePieceTokenizer: mode must be a model file's path or a text.SentencePieceVocab, "
                            "got %r" % (mode,))
        if not isinstance(out_type, SPieceTokenizerOutType):
            raise TypeError("SentencePieceTokenizer: out_type must be a text.SPieceTokenizerOutType, got %r"
                            % (out_type,))
        try:
            from mindrecord import _sentencepiece_native
        except ImportError as e:
            raise ImportError("SentencePieceTokenizer: this mindrecord was built without libsentencepiece "
                              "(Debian: apt install libsentencepiece-dev, then build again)") from e
        try:
            check_model(model)  # what sentencepiece would walk unchecked
            capsule = _sentencepiece_native.load(model)
        except ValueError as e:
            raise RuntimeError("SentencePieceTokenizer: %s is not a SentencePiece model this tokenizer can use: %s"
                               % (source, e)) from None
        super().__init__("SentencePieceTokenizer", _ref=_core.register_native_tokenizer(capsule),
                         out_type="int" if out_type == SPieceTokenizerOutType.INT else "string")
        self.out_type = out_type
        self._source = source
        self._model = model

    def __reduce__(self):
        # The op names its model by an id of this process: another process
        # (a python_multiprocessing worker running a callable that holds the
        # op) loads the model again from its bytes.
        return _tokenizer_from_model, (self._model, self.out_type, self._source)

    def __repr__(self):
        return "SentencePieceTokenizer(%s, %s)" % (self._source, self.out_type)


def _tokenizer_from_model(model, out_type, source):
    vocab = SentencePieceVocab()
    vocab._model = model
    tok = SentencePieceTokenizer(vocab, out_type)
    tok._source = source
    return tok
