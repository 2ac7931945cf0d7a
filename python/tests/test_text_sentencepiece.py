"""text.SentencePieceVocab / SentencePieceTokenizer, written as MindSpore code
with only the import changed: train a model from text files and from a
dataset column, save it, tokenize a MindRecord column and a text file into
pieces and ids at several worker counts (beside Python callables in worker
processes), the models that would crash sentencepiece, and the errors for
what does not take them."""
import os
import stat

import numpy as np
import pytest

import mindrecord as ds
from mindrecord import FileWriter, MindDataset, TFRecordDataset, text
from mindrecord.text import SentencePieceModel, SPieceTokenizerOutType

from conftest import compat_path

spm = pytest.importorskip("sentencepiece")  # python3-sentencepiece (in .ci/packages)

SYLLABLES = ["ka", "lo", "mi", "ne", "ru", "so", "ta", "vi", "be", "du"]
WORDS = [a + b + c for a in SYLLABLES for b in SYLLABLES[3:] for c in ("", "n", "st")][:150]
LINES = [" ".join(WORDS[(i * 7 + j * 3) % len(WORDS)] for j in range(3 + i % 9)) for i in range(400)]
LINES[5] = "héllo wörld, 日本語のテキスト"
LINES[9] = ""


@pytest.fixture(scope="module")
def corpus(tmp_path_factory):
    """LINES as a text file and as a MindRecord file (a string and a label)."""
    d = tmp_path_factory.mktemp("spm")
    txt = d / "corpus.txt"
    txt.write_text("\n".join(LINES) + "\n", encoding="utf-8")
    path = str(d / "t.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"text": {"type": "string"}, "label": {"type": "int32"}}, "t")
    w.write_raw_data([{"text": s, "label": i} for i, s in enumerate(LINES)])
    w.commit()
    return str(txt), path


def upper(pieces):
    """A module-level callable (it must pickle into the worker processes)."""
    return np.char.upper(pieces)


class Pieces:
    """A Python callable holding the op: it pickles into the worker processes."""

    def __init__(self, tok):
        self.tok = tok

    def __call__(self, line):
        return self.tok(line)


def reference(model_path):
    """sentencepiece's own processor over a saved model."""
    p = spm.SentencePieceProcessor()
    p.Load(model_path)
    return p


@pytest.mark.parametrize("workers", [1, 3])
def test_pieces_and_ids_of_a_mindrecord_column(corpus, tmp_path, workers):
    txt, path = corpus
    vocab = text.SentencePieceVocab.from_file([txt], 64, 0.9995, SentencePieceModel.UNIGRAM, {})
    text.SentencePieceVocab.save_model(vocab, str(tmp_path), "m.model")
    model = str(tmp_path / "m.model")
    assert stat.S_IMODE(os.stat(model).st_mode) == 0o600
    ref = reference(model)
    assert ref.GetPieceSize() == 64
    pieces = MindDataset(path, shuffle=False, num_parallel_workers=workers).map(
        operations=text.SentencePieceTokenizer(vocab, out_type=SPieceTokenizerOutType.STRING), input_columns="text",
        num_parallel_workers=workers)
    ids = MindDataset(path, shuffle=False, num_parallel_workers=workers).map(
        operations=text.SentencePieceTokenizer(model, out_type=SPieceTokenizerOutType.INT), input_columns="text",
        num_parallel_workers=workers)
    got_pieces = [r["text"] for r in pieces.create_dict_iterator(output_numpy=True)]
    got_ids = [(r["text"], int(r["label"])) for r in ids.create_dict_iterator(output_numpy=True)]
    assert len(got_pieces) == len(got_ids) == len(LINES)
    for i, (line, p, (t, label)) in enumerate(zip(LINES, got_pieces, got_ids)):
        assert label == i
        assert p.dtype.kind == "U" and p.ndim == 1 and t.dtype == np.int32 and t.ndim == 1
        assert p.tolist() == ref.EncodeAsPieces(line)
        assert t.tolist() == ref.EncodeAsIds(line) == [ref.PieceToId(x) for x in p.tolist()]
        # The pieces spell the line (sentencepiece marks spaces with U+2581).
        assert "".join(p.tolist()).replace("\u2581", " ").strip() == " ".join(line.split())


def test_a_vocab_from_a_dataset_column_and_batches_of_ids(corpus):
    txt, path = corpus
    data = ds.TextFileDataset(txt, shuffle=False)
    vocab = text.SentencePieceVocab.from_dataset(data, ["text"], 80, 1.0, SentencePieceModel.BPE,
                                                 {"max_sentence_length": 4096, "split_digits": True})
    tok = text.SentencePieceTokenizer(vocab, SPieceTokenizerOutType.INT)
    # An empty col_names reads the column "text", as MindSpore's.
    assert text.SentencePieceVocab.from_dataset(MindDataset(path, columns_list=["text"], shuffle=False), [], 80,
                                                1.0, SentencePieceModel.BPE, {})._model
    data = data.map(operations=[tok, text.Truncate(6), ds.transforms.PadEnd([6], pad_value=0)], input_columns="text")
    rows = [r["text"] for r in data.batch(8).create_dict_iterator(output_numpy=True)]
    flat = np.concatenate(rows)
    lines = [s for s in LINES if s]  # TextFileDataset skips empty lines
    assert flat.shape == (len(lines), 6) and flat.dtype == np.int32
    for line, got in zip(lines, flat):
        want = tok(np.array(line))[:6].tolist()
        assert got.tolist() == want + [0] * (6 - len(want))


def test_beside_python_callables_in_worker_processes(corpus):
    txt, path = corpus
    vocab = text.SentencePieceVocab.from_file([txt], 64, 0.9995, SentencePieceModel.CHAR, {})
    tok = text.SentencePieceTokenizer(vocab, SPieceTokenizerOutType.STRING)
    # The C++ op runs in the pipeline's threads, the callable in processes.
    data = MindDataset(path, shuffle=False).map(operations=[tok, upper], input_columns="text",
                                                num_parallel_workers=2, python_multiprocessing=True)
    got = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert got == [upper(tok(np.array(s))).tolist() for s in LINES]
    # A callable that calls the op by hand, in the worker processes: the op
    # travels as its model and is loaded there again.
    data = MindDataset(path, shuffle=False).map(operations=Pieces(tok), input_columns="text",
                                                num_parallel_workers=2, python_multiprocessing=True)
    got = [r["text"].tolist() for r in data.create_dict_iterator(output_numpy=True)]
    assert got == [tok(np.array(s)).tolist() for s in LINES]
    # A TFRecord file (read through the protobuf library _core links) reads
    # in the same process after sentencepiece, which carries its own protobuf.
    assert TFRecordDataset(compat_path("sources", "tfrecord", "dummy.tfrecord"), shuffle=False).get_dataset_size() == 10


def test_errors_name_what_is_wrong(corpus, tmp_path):
    txt, path = corpus
    uni = SentencePieceModel.UNIGRAM
    with pytest.raises(RuntimeError, match="SentencePieceVocab: .*[Vv]ocabulary size"):
        text.SentencePieceVocab.from_file([txt], 100000, 0.9995, uni, {})
    with pytest.raises(FileNotFoundError, match="missing.txt"):
        text.SentencePieceVocab.from_file([str(tmp_path / "missing.txt")], 64, 0.9995, uni, {})
    with pytest.raises(ValueError, match="may not set 'vocab_size'"):
        text.SentencePieceVocab.from_file([txt], 64, 0.9995, uni, {"vocab_size": 10})
    with pytest.raises(RuntimeError, match="no_such_option"):
        text.SentencePieceVocab.from_file([txt], 64, 0.9995, uni, {"no_such_option": 1})
    with pytest.raises(TypeError, match="model_type"):
        text.SentencePieceVocab.from_file([txt], 64, 0.9995, "unigram", {})
    with pytest.raises(ValueError, match="character_coverage"):
        text.SentencePieceVocab.from_file([txt], 64, 1.5, uni, {})
    data = MindDataset(path, shuffle=False)
    with pytest.raises(ValueError, match="one column"):
        text.SentencePieceVocab.from_dataset(data, ["text", "label"], 64, 0.9995, uni, {})
    with pytest.raises(ValueError, match="no column 'words'"):
        text.SentencePieceVocab.from_dataset(data, ["words"], 64, 0.9995, uni, {})
    with pytest.raises(TypeError, match="column 'label' must hold one string a row"):
        text.SentencePieceVocab.from_dataset(data, ["label"], 64, 0.9995, uni, {})
    with pytest.raises(TypeError, match="must be a trained"):
        text.SentencePieceVocab.save_model(text.SentencePieceVocab(), str(tmp_path), "m.model")
    vocab = text.SentencePieceVocab.from_file([txt], 64, 0.9995, uni, {})
    with pytest.raises(FileNotFoundError, match="nowhere"):
        text.SentencePieceVocab.save_model(vocab, str(tmp_path / "nowhere"), "m.model")
    with pytest.raises(FileNotFoundError, match="absent.model"):
        text.SentencePieceTokenizer(str(tmp_path / "absent.model"), SPieceTokenizerOutType.INT)
    (tmp_path / "bad.model").write_bytes(b"\x0a\xff\xff\xff\xff\x0f garbage")
    with pytest.raises(RuntimeError, match="bad.model is not a SentencePiece model"):
        text.SentencePieceTokenizer(str(tmp_path / "bad.model"), SPieceTokenizerOutType.INT)
    with pytest.raises(TypeError, match="out_type"):
        text.SentencePieceTokenizer(vocab, "int")
    tok = text.SentencePieceTokenizer(vocab, SPieceTokenizerOutType.INT)
    with pytest.raises(RuntimeError, match="SentencePieceTokenizer: the input should be one string"):
        tok(np.array(["a", "b"]))
    bad = MindDataset(path, shuffle=False).map(operations=tok, input_columns="label")
    with pytest.raises(RuntimeError, match="SentencePieceTokenizer: the input should be one string"):
        list(bad.create_dict_iterator(output_numpy=True))
    assert tok(np.array("")).tolist() == []


def test_models_that_would_crash_sentencepiece_are_refused(corpus, tmp_path):
    """sentencepiece trusts a model's normalizer trie and its pieces: these
    two models load in sentencepiece and then crash the process (checked in
    a child process); the tokenizer refuses them, naming the file."""
    import struct
    import subprocess
    import sys
    from mindrecord._sentencepiece_check import _fields

    txt, _ = corpus
    vocab = text.SentencePieceVocab.from_file([txt], 64, 0.9995, SentencePieceModel.UNIGRAM, {})
    model = vocab._model
    spec = next(v for n, w, v in _fields(model) if n == 3)  # normalizer_spec
    charsmap = next(v for n, w, v in _fields(spec) if n == 2)
    at = model.find(charsmap) + 4  # the trie's root unit, after its size
    bad_trie = bytearray(model)
    bad_trie[at:at + 4] = struct.pack("<I", 0x1FFFFF << 10)  # a root whose children lie 8 GB away
    piece = b"\x0a\x02\x00a" + b"\x15" + struct.pack("<f", -5.0) + b"\x18\x01"  # the piece "\0a"
    nul_piece = model + b"\x0a" + bytes([len(piece)]) + piece
    for name, data in (("trie.model", bytes(bad_trie)), ("nul.model", nul_piece)):
        path = tmp_path / name
        path.write_bytes(data)
        child = subprocess.run([sys.executable, "-c", "import sentencepiece as s; p = s.SentencePieceProcessor(); "
                                "p.Load(%r); p.EncodeAsIds('kalo mine ' * 20)" % str(path)], capture_output=True)
        assert child.returncode < 0, (name, child.returncode, child.stderr[-300:])  # SIGSEGV / SIGABRT
        with pytest.raises(RuntimeError, match="%s is not a SentencePiece model this tokenizer can use" % name):
            text.SentencePieceTokenizer(str(path), SPieceTokenizerOutType.INT)
