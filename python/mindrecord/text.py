"""Text transforms (MindSpore's mindspore.dataset.text): tokenizers, a
vocabulary and its Lookup, and sequence ops, run by the C++ pipeline on its
worker threads like the vision ops.

    from mindrecord import text, transforms        # for mindspore.dataset.text / .transforms
    ds = ds.map(text.WhitespaceTokenizer(), input_columns="text")
    vocab = text.Vocab.from_dataset(ds, columns="text", special_tokens=["<pad>", "<unk>"])
    ds = ds.map(text.Lookup(vocab, unknown_token="<unk>"), input_columns="text")
    ds = ds.map(transforms.PadEnd([32], pad_value=vocab.tokens_to_ids("<pad>")), input_columns="text")

Strings travel as arrays of strings (numpy str arrays in Python, dtype
'<U..'); a string column's value is one string. Tokenizers take one string
and give a 1-D array of its tokens (one empty token for a string without
any); with `with_offsets=True` they give three columns, the tokens and their
byte offsets (start, limit) as int32 arrays (MindSpore's are uint32), so the
map names three output_columns. Python callables in a map take and return
str arrays too. Rows of string arrays of one shape batch into one str array;
of different shapes, as a list (or an error, as the batch's pad_info asks:
padding string arrays is not supported). Text that is not UTF-8 is an error
naming the op.

CaseFold, NormalizeUTF8, RegexReplace, RegexTokenizer, BasicTokenizer and
BertTokenizer run through ICU, as MindSpore's (ICU's regular expressions,
each match bounded in time). Pretrained vectors (Vectors, GloVe, FastText,
CharNGram) and ToVectors live in _text_vectors.py; SentencePieceVocab and
SentencePieceTokenizer (Google's sentencepiece, python3-sentencepiece) in
_sentencepiece.py. Not here (an AttributeError names them): JiebaTokenizer
and FilterWikipediaXML.

Thread safety: op objects and Vocab (once built) are immutable values.
"""
from collections import Counter
from enum import Enum
import numbers
from types import SimpleNamespace
import os

import numpy as np

from mindrecord._ops_base import TensorOperation, check_int, check_numeric_dtype
from mindrecord._text_vectors import CharNGram, FastText, GloVe, ToVectors, Vectors
from mindrecord._sentencepiece import (SentencePieceModel, SentencePieceTokenizer, SentencePieceVocab,
                                     SPieceTokenizerLoadType, SPieceTokenizerOutType)

__all__ = ["AddToken", "BasicTokenizer", "BertTokenizer", "CaseFold", "CharNGram", "FastText", "GloVe", "Lookup",
           "Ngram", "NormalizeForm", "NormalizeUTF8", "PythonTokenizer", "RegexReplace", "RegexTokenizer",
           "SentencePieceModel", "SentencePieceTokenizer", "SentencePieceVocab", "SPieceTokenizerLoadType",
           "SPieceTokenizerOutType", "SlidingWindow", "ToNumber", "ToVectors", "Truncate", "TruncateSequencePair", "UnicodeCharTokenizer",
           "UnicodeScriptTokenizer", "Vectors", "WhitespaceTokenizer", "WordpieceTokenizer", "Vocab", "to_bytes",
           "to_str"]

_MAX_ID = 2 ** 31 - 1


def _check_bool(value, op, name):
    if not isinstance(value, bool):
        raise TypeError("%s: %s must be a bool, got %r" % (op, name, value))
    return value


def _check_str(value, op, name):
    if not isinstance(value, str):
        raise TypeError("%s: %s must be a str, got %r" % (op, name, value))
    return value


class _Tokenizer(TensorOperation):
    def __init__(self, name, with_offsets):
        super().__init__(name, with_offsets=_check_bool(with_offsets, name, "with_offsets"))
        self._gives = 3 if with_offsets else 1


class WhitespaceTokenizer(_Tokenizer):
    """Splits a string at Unicode white space (the White_Space property, as
    ICU's u_isUWhiteSpace, which MindSpore's uses)."""

    def __init__(self, with_offsets: bool = False) -> None:
        super().__init__("WhitespaceTokenizer", with_offsets)


class UnicodeCharTokenizer(_Tokenizer):
    """Splits a string into its characters (Unicode code points)."""

    def __init__(self, with_offsets: bool = False) -> None:
        super().__init__("UnicodeCharTokenizer", with_offsets)


class NormalizeForm(str, Enum):
    """Unicode normalization forms (MindSpore's text.NormalizeForm)."""
    NONE = "none"
    NFC = "nfc"
    NFKC = "nfkc"
    NFD = "nfd"
    NFKD = "nfkd"


def _form(value, op, name):
    if not isinstance(value, NormalizeForm):
        raise TypeError("%s: %s must be a text.NormalizeForm, got %r" % (op, name, value))
    return value.value


class CaseFold(TensorOperation):
    """Unicode case folding (ICU's NFKC_Casefold) of each string."""

    def __init__(self) -> None:
        super().__init__("CaseFold")


class NormalizeUTF8(TensorOperation):
    """Unicode normalization of each string to `normalize_form`."""

    def __init__(self, normalize_form=NormalizeForm.NFKC) -> None:
        super().__init__("NormalizeUTF8", normalize_form=_form(normalize_form, "NormalizeUTF8", "normalize_form"))


class RegexReplace(TensorOperation):
    """The matches of ICU regular expression `pattern` in each string
    replaced by `replace` ($1 for a group): all of them, or the first."""

    def __init__(self, pattern: str, replace: str, replace_all: bool = True) -> None:
        super().__init__("RegexReplace", pattern=_check_str(pattern, "RegexReplace", "pattern"),
                         replace=_check_str(replace, "RegexReplace", "replace"),
                         replace_all=_check_bool(replace_all, "RegexReplace", "replace_all"))


class RegexTokenizer(_Tokenizer):
    """Splits a string at the matches of `delim_pattern` (an ICU regular
    expression); a match that also matches `keep_delim_pattern` whole is
    kept as a token."""

    def __init__(self, delim_pattern: str, keep_delim_pattern: str = "", with_offsets: bool = False) -> None:
        super().__init__("RegexTokenizer", with_offsets)
        self._spec["delim_pattern"] = _check_str(delim_pattern, "RegexTokenizer", "delim_pattern")
        self._spec["keep_delim_pattern"] = _check_str(keep_delim_pattern, "RegexTokenizer", "keep_delim_pattern")


def _basic_spec(op, lower_case, keep_whitespace, normalization_form, preserve_unused_token):
    return {"lower_case": _check_bool(lower_case, op, "lower_case"),
            "keep_whitespace": _check_bool(keep_whitespace, op, "keep_whitespace"),
            "normalization_form": _form(normalization_form, op, "normalization_form"),
            "preserve_unused_token": _check_bool(preserve_unused_token, op, "preserve_unused_token")}


def _wordpiece_spec(op, vocab, suffix_indicator, max_bytes_per_token, unknown_token):
    if not isinstance(vocab, Vocab):
        raise TypeError("%s: vocab must be a text.Vocab, got %r" % (op, vocab))
    return {"vocab": vocab.vocab(), "suffix_indicator": _check_str(suffix_indicator, op, "suffix_indicator"),
            "max_bytes_per_token": check_int(max_bytes_per_token, op, "max_bytes_per_token", 0, _MAX_ID),
            "unknown_token": _check_str(unknown_token, op, "unknown_token")}


class BasicTokenizer(_Tokenizer):
    """BERT's basic tokenizer, as MindSpore's: with `lower_case`, case
    folding (not of [CLS], [SEP], [UNK], [PAD], [MASK] with
    `preserve_unused_token`) and accents removed, else `normalization_form`;
    control characters become spaces; then split at white space, punctuation
    and CJK ideographs (each kept as a token; white space too with
    `keep_whitespace`)."""

    def __init__(self, lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False) -> None:
        super().__init__("BasicTokenizer", with_offsets)
        self._spec.update(_basic_spec("BasicTokenizer", lower_case, keep_whitespace, normalization_form,
                                      preserve_unused_token))


class WordpieceTokenizer(_Tokenizer):
    """Splits each token of a 1-D array of strings greedily into the longest
    pieces in `vocab` (pieces after the first prefixed with
    `suffix_indicator`); a token with no split, or longer than
    `max_bytes_per_token` bytes, becomes `unknown_token` (the token itself
    when that is '')."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 with_offsets=False) -> None:
        super().__init__("WordpieceTokenizer", with_offsets)
        self._spec.update(_wordpiece_spec("WordpieceTokenizer", vocab, suffix_indicator, max_bytes_per_token,
                                          unknown_token))

    def __repr__(self):
        return "WordpieceTokenizer(%d tokens)" % len(self._spec["vocab"])


class BertTokenizer(_Tokenizer):
    """BasicTokenizer, then WordpieceTokenizer on its tokens (offsets in the
    normalized string)."""

    def __init__(self, vocab, suffix_indicator="##", max_bytes_per_token=100, unknown_token="[UNK]",
                 lower_case=False, keep_whitespace=False, normalization_form=NormalizeForm.NONE,
                 preserve_unused_token=True, with_offsets=False) -> None:
        super().__init__("BertTokenizer", with_offsets)
        self._spec.update(_wordpiece_spec("BertTokenizer", vocab, suffix_indicator, max_bytes_per_token,
                                          unknown_token))
        self._spec.update(_basic_spec("BertTokenizer", lower_case, keep_whitespace, normalization_form,
                                      preserve_unused_token))

    def __repr__(self):
        return "BertTokenizer(%d tokens)" % len(self._spec["vocab"])


class UnicodeScriptTokenizer(_Tokenizer):
    """Splits a string where the Unicode script changes ("Chinese中国" gives
    "Chinese", "中国"; punctuation and digits are script Common) and between
    white space and the rest; white space is dropped unless
    `keep_whitespace`."""

    def __init__(self, keep_whitespace: bool = False, with_offsets: bool = False) -> None:
        super().__init__("UnicodeScriptTokenizer", with_offsets)
        self._spec["keep_whitespace"] = _check_bool(keep_whitespace, "UnicodeScriptTokenizer", "keep_whitespace")


class PythonTokenizer:
    """A Python function str -> list of str as a tokenizer: each string
    becomes the str array of the tokens it returns. Runs as a map's Python
    callable."""

    def __init__(self, tokenizer) -> None:
        if not callable(tokenizer):
            raise TypeError("PythonTokenizer: tokenizer must be callable, got %r" % (tokenizer,))
        self.tokenizer = tokenizer
        self.__name__ = getattr(tokenizer, "__name__", type(tokenizer).__name__)

    def __call__(self, in_array):
        if not isinstance(in_array, np.ndarray):
            raise TypeError("PythonTokenizer: input should be a NumPy array, got %s" % type(in_array).__name__)
        if in_array.dtype.kind == "S":
            in_array = to_str(in_array)
        if in_array.dtype.kind != "U" or in_array.ndim != 0:
            raise TypeError("PythonTokenizer: input should be one string, got an array of dtype %s and shape %s"
                            % (in_array.dtype, in_array.shape))
        tokens = self.tokenizer(str(in_array))
        return np.array(list(tokens), dtype=str)


class Lookup(TensorOperation):
    """Each string (a string, or an array of them) becomes its id in `vocab`
    (a Vocab), an array of the input's shape of `data_type` (default int32).
    A string not in the vocabulary gets the id of `unknown_token` (which must
    be in it), or without one stops the pipeline naming the string."""

    def __init__(self, vocab, unknown_token=None, data_type="int32") -> None:
        if not isinstance(vocab, Vocab):
            raise TypeError("Lookup: vocab must be a text.Vocab, got %r" % (vocab,))
        unknown_id = None
        if unknown_token is not None:
            _check_str(unknown_token, "Lookup", "unknown_token")
            unknown_id = vocab.tokens_to_ids(unknown_token)
            if unknown_id == -1:
                raise ValueError("Lookup: unknown_token %r is not in the vocabulary" % unknown_token)
        dtype = check_numeric_dtype(data_type, "Lookup", "data_type")
        super().__init__("Lookup", vocab=vocab.vocab(), unknown_id=unknown_id, data_type=dtype)

    def __repr__(self):
        return "Lookup(%d tokens, unknown_id=%r, data_type=%r)" % (
            len(self._spec["vocab"]), self._spec["unknown_id"], self._spec["data_type"])


class Ngram(TensorOperation):
    """The n-grams of a 1-D array of strings for each n in `n` (an int or a
    list of ints >= 1), with `left_pad` / `right_pad` ((token, width)) added
    (min(n - 1, width) of them on each side) and each n-gram's tokens joined
    by `separator`. An n larger than the padded sequence gives one empty
    string."""

    def __init__(self, n, left_pad=("", 0), right_pad=("", 0), separator=" ") -> None:
        ns = [n] if isinstance(n, numbers.Integral) and not isinstance(n, bool) else n
        if not isinstance(ns, list) or not ns:
            raise TypeError("Ngram: n must be an int or a non-empty list of ints, got %r" % (n,))
        ns = [check_int(v, "Ngram", "n", 1, _MAX_ID) for v in ns]
        pads = []
        for name, pad in (("left_pad", left_pad), ("right_pad", right_pad)):
            if not isinstance(pad, tuple) or len(pad) != 2:
                raise TypeError("Ngram: %s must be a tuple (str, int), got %r" % (name, pad))
            pads.append([_check_str(pad[0], "Ngram", name + "[0]"), check_int(pad[1], "Ngram", name + "[1]", 0, _MAX_ID)])
        super().__init__("Ngram", n=ns, left_pad=pads[0], right_pad=pads[1],
                         separator=_check_str(separator, "Ngram", "separator"))


class SlidingWindow(TensorOperation):
    """The windows of `width` consecutive elements of a 1-D array (strings or
    numbers), [n - width + 1, width]; fewer than `width` elements give an
    empty array. `axis` 0 (or -1): the input is 1-D."""

    def __init__(self, width: int, axis: int = 0) -> None:
        super().__init__("SlidingWindow", width=check_int(width, "SlidingWindow", "width", 1, _MAX_ID),
                         axis=check_int(axis, "SlidingWindow", "axis", -1, 0))


class ToNumber(TensorOperation):
    """Strings parsed as numbers of `data_type` (an int or float type); a
    string that is not a number of that type, or out of its range, stops the
    pipeline naming it."""

    def __init__(self, data_type) -> None:
        dtype = check_numeric_dtype(data_type, "ToNumber", "data_type")
        if dtype == "bool":
            raise TypeError("ToNumber: data_type must be an int or float type, got bool")
        super().__init__("ToNumber", data_type=dtype)


class Truncate(TensorOperation):
    """Keeps the first `max_seq_len` elements of a 1-D array (strings or
    numbers), or of each row of a 2-D one."""

    def __init__(self, max_seq_len: int) -> None:
        super().__init__("Truncate", max_seq_len=check_int(max_seq_len, "Truncate", "max_seq_len", 1, _MAX_ID))


class TruncateSequencePair(TensorOperation):
    """Two 1-D columns cut until their lengths sum to at most `max_length`,
    always from the longer one's end (the second's on a tie); the map names
    two input and two output columns."""

    _gives = 2

    def __init__(self, max_length: int) -> None:
        super().__init__("TruncateSequencePair",
                         max_length=check_int(max_length, "TruncateSequencePair", "max_length", 0, _MAX_ID))


class AddToken(TensorOperation):
    """Adds `token` at the start (`begin`) or end of a 1-D array of strings,
    or of each row of a 2-D one."""

    def __init__(self, token: str, begin: bool = True) -> None:
        super().__init__("AddToken", token=_check_str(token, "AddToken", "token"),
                         begin=_check_bool(begin, "AddToken", "begin"))


class Vocab:
    """A vocabulary: tokens and their ids (ints in [0, 2^31)). Made with the
    from_* class methods, as MindSpore's."""

    def __init__(self) -> None:
        self._ids: dict[str, int] = {}

    @staticmethod
    def _with_special(words, special_tokens, special_first, op):
        special = [] if special_tokens is None else special_tokens
        if not isinstance(special, list) or not all(isinstance(t, str) for t in special):
            raise TypeError("%s: special_tokens must be a list of str, got %r" % (op, special_tokens))
        _check_bool(special_first, op, "special_first")
        if len(set(special)) != len(special):
            raise ValueError("%s: special_tokens contains duplicate tokens" % op)
        clash = [t for t in special if t in set(words)]
        if clash:
            raise ValueError("%s: special_tokens and the words share %r" % (op, clash[0]))
        return special + list(words) if special_first else list(words) + special

    @classmethod
    def _of(cls, tokens):
        v = cls()
        v._ids = {t: i for i, t in enumerate(tokens)}
        return v

    @classmethod
    def from_list(cls, word_list, special_tokens=None, special_first=True):
        """Ids in list order (special_tokens first or last)."""
        if not isinstance(word_list, list) or not all(isinstance(w, str) for w in word_list):
            raise TypeError("Vocab.from_list: word_list must be a list of str")
        if len(set(word_list)) != len(word_list):
            dup = next(w for w, c in Counter(word_list).items() if c > 1)
            raise ValueError("Vocab.from_list: word_list contains duplicate word %r" % dup)
        return cls._of(cls._with_special(word_list, special_tokens, special_first, "Vocab.from_list"))

    @classmethod
    def from_dict(cls, word_dict):
        """The ids given: {token: id}."""
        if not isinstance(word_dict, dict):
            raise TypeError("Vocab.from_dict: word_dict must be a dict, got %r" % (word_dict,))
        v = cls()
        for w, i in word_dict.items():
            _check_str(w, "Vocab.from_dict", "a word")
            v._ids[w] = check_int(i, "Vocab.from_dict", "the id of %r" % w, 0, _MAX_ID)
        return v

    @classmethod
    def from_file(cls, file_path, delimiter="", vocab_size=None, special_tokens=None, special_first=True):
        """One word a line (the text before `delimiter` when one is given),
        the first `vocab_size` lines (all when None), ids in line order."""
        _check_str(file_path, "Vocab.from_file", "file_path")
        _check_str(delimiter, "Vocab.from_file", "delimiter")
        if vocab_size is not None:
            check_int(vocab_size, "Vocab.from_file", "vocab_size", 1, _MAX_ID)
        if not os.path.isfile(file_path):
            raise ValueError("Vocab.from_file: %s is not a file" % file_path)
        words = []
        with open(file_path, encoding="utf-8") as f:
            for n, line in enumerate(f, 1):
                if vocab_size is not None and len(words) >= vocab_size:
                    break
                word = line.rstrip("\r\n")
                if delimiter:
                    word = word.split(delimiter, 1)[0]
                if word in words:
                    raise ValueError("Vocab.from_file: %s line %d: duplicate word %r" % (file_path, n, word))
                words.append(word)
        return cls._of(cls._with_special(words, special_tokens, special_first, "Vocab.from_file"))

    @classmethod
    def from_dataset(cls, dataset, columns=None, freq_range=None, top_k=None, special_tokens=None,
                     special_first=True):
        """The tokens of `columns` (a name or a list; None: every column of
        strings) over one pass of `dataset`, kept when their count lies in
        `freq_range` ((min, max), None ends open), the `top_k` most frequent
        (ties in token order), ids by frequency then token."""
        cols = [columns] if isinstance(columns, str) else columns
        if cols is not None and (not isinstance(cols, list) or not all(isinstance(c, str) for c in cols)):
            raise TypeError("Vocab.from_dataset: columns must be a str or a list of str, got %r" % (columns,))
        lo, hi = 0, None
        if freq_range is not None:
            if not isinstance(freq_range, tuple) or len(freq_range) != 2:
                raise TypeError("Vocab.from_dataset: freq_range must be a tuple (min, max), got %r" % (freq_range,))
            lo = 0 if freq_range[0] is None else check_int(freq_range[0], "Vocab.from_dataset", "freq_range[0]", 0)
            hi = None if freq_range[1] is None else check_int(freq_range[1], "Vocab.from_dataset", "freq_range[1]", 0)
            if hi is not None and lo > hi:
                raise ValueError("Vocab.from_dataset: freq_range %r is empty" % (freq_range,))
        if top_k is not None:
            check_int(top_k, "Vocab.from_dataset", "top_k", 1)
        counts = Counter()
        for row in dataset.create_dict_iterator(num_epochs=1, output_numpy=True):
            for name in (cols if cols is not None else list(row)):
                if name not in row:
                    raise ValueError("Vocab.from_dataset: no column %r (columns: %s)" % (name, list(row)))
                value = row[name]
                if not isinstance(value, np.ndarray) or value.dtype.kind != "U":
                    if cols is None:
                        continue
                    raise TypeError("Vocab.from_dataset: column %r holds %s, not strings"
                                    % (name, getattr(value, "dtype", type(value).__name__)))
                counts.update(value.reshape(-1).tolist())
        words = [w for w, c in counts.items() if c >= lo and (hi is None or c <= hi)]
        words.sort(key=lambda w: (-counts[w], w))
        if top_k is not None:
            words = words[:top_k]
        special = set(special_tokens or [])
        words = [w for w in words if w not in special]
        return cls._of(cls._with_special(words, special_tokens, special_first, "Vocab.from_dataset"))

    def vocab(self):
        """{token: id}."""
        return dict(self._ids)

    def tokens_to_ids(self, tokens):
        """The id of a token, or a list of ids for a list (-1 for a token
        not in the vocabulary)."""
        if isinstance(tokens, np.ndarray):
            tokens = tokens.tolist()
        if isinstance(tokens, str):
            return self._ids.get(tokens, -1)
        if not isinstance(tokens, list):
            raise TypeError("Vocab.tokens_to_ids: tokens must be a str or a list of str, got %r" % (tokens,))
        return [self._ids.get(_check_str(t, "Vocab.tokens_to_ids", "a token"), -1) for t in tokens]

    def ids_to_tokens(self, ids):
        """The token of an id, or a list of tokens for a list ('' for an id
        not in the vocabulary)."""
        if not hasattr(self, "_tokens") or len(self._tokens) != len(self._ids):
            self._tokens = {i: t for t, i in self._ids.items()}
        if isinstance(ids, np.ndarray):
            ids = ids.tolist()
        if isinstance(ids, numbers.Integral) and not isinstance(ids, bool):
            return self._tokens.get(int(ids), "")
        if not isinstance(ids, list):
            raise TypeError("Vocab.ids_to_tokens: ids must be an int or a list of int, got %r" % (ids,))
        return [self._tokens.get(check_int(i, "Vocab.ids_to_tokens", "an id"), "") for i in ids]

    def __len__(self):
        return len(self._ids)


def to_str(array, encoding="utf8"):
    """A numpy bytes array as a str array, decoded with `encoding`."""
    if not isinstance(array, np.ndarray):
        raise TypeError("to_str: array must be a numpy.ndarray, got %s" % type(array).__name__)
    return np.char.decode(array, encoding)


def to_bytes(array, encoding="utf8"):
    """A numpy str array as a bytes array, encoded with `encoding`."""
    if not isinstance(array, np.ndarray):
        raise TypeError("to_bytes: array must be a numpy.ndarray, got %s" % type(array).__name__)
    return np.char.encode(array, encoding)


# MindSpore's mindspore.dataset.text.utils names (text.utils.NormalizeForm.NFKC in older scripts).
utils = SimpleNamespace(NormalizeForm=NormalizeForm, Vocab=Vocab, to_bytes=to_bytes, to_str=to_str,
                        SentencePieceModel=SentencePieceModel, SentencePieceVocab=SentencePieceVocab,
                        SPieceTokenizerLoadType=SPieceTokenizerLoadType, SPieceTokenizerOutType=SPieceTokenizerOutType)
