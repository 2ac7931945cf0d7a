#!/usr/bin/env python3
"""Pipelines that run the user's Python code, against the loop a user would
write instead, as ratios measured in the same run (median of --runs
alternating pairs; > 1 means mindrecord is faster):

1. source: GeneratorDataset over a random-accessible source (a float32[256]
   array and an int64 per row), batch(64), one worker, against torch's
   DataLoader(batch_size=64, num_workers=0) over the same source (when torch
   is installed) and a plain loop (source[i] for 64 rows, then np.stack).
2. map: a per-row Python callable in map() on a NumpySlicesDataset
   (float32[16] rows), batch(64), one worker thread, against a plain loop
   applying the same callable to the same rows and stacking each 64, and
   torch's DataLoader(num_workers=0) over a Dataset applying it in
   __getitem__.
3. slices: NumpySlicesDataset of in-memory arrays (float32[256] and int64),
   shuffled, batch(64), against torch's DataLoader(TensorDataset,
   shuffle=True) and numpy's own fancy indexing by a permutation.
4. save: MindDataset(...).save() of 200k ~1 KiB rows against the loop
   MindSpore users write (create_dict_iterator + FileWriter.write_raw_data
   per 1,000 rows), both with an int64 index field.
5. bucket: bucket_batch_by_length over shuffled MindDataset rows of 1..128
   int32 token ids (5 buckets, batches of 64 down to 16, padded with 0),
   with the default length and with a Python element_length_function,
   against a plain loop bucketing the same rows (create_dict_iterator) and
   padding each batch with numpy.
6. text: TextFileDataset of 200k lines of 4..119 words, WhitespaceTokenizer,
   Lookup (a 5,000-word vocabulary, unknown words -> <unk>), Truncate and
   PadEnd to 64 ids, batch(64), against the loop a user writes (str.split,
   dict.get, padding, np.array per batch).
7. sentencepiece: the text case's lines through SentencePieceTokenizer (INT;
   a unigram model of 2,000 pieces trained on them), Truncate and PadEnd to
   64 ids, batch(64), 1 and 2 worker threads, against a loop encoding each
   line with sentencepiece itself (needs python3-sentencepiece).
8. audio: a MindRecord file of 2,000 one-second float32 waveforms (16 kHz),
   MelSpectrogram (n_fft 400, hop 160, 80 mels) + AmplitudeToDB, batch(32),
   2 workers, against torchaudio's MelSpectrogram + AmplitudeToDB in a torch
   DataLoader (2 workers, the waveforms held in memory; when
   python3-torchaudio is installed) and a numpy loop over FileReader's rows
   (strided frames, np.fft.rfft, the mel matrix).
9. speech_folder: the same features from a SpeechCommands folder of 2,000
   one-second 16-bit WAV files (SpeechCommandsDataset, 2 workers), against
   torchaudio's SPEECHCOMMANDS dataset (torchaudio.load) with the same
   transforms in a DataLoader (2 workers) and a loop reading the files with
   the wave module into the numpy features.

usage: PYTHONPATH=build/python /usr/bin/python3 benchmarks/python_code_bench.py
           [--rows N] [--runs R] [--only source,map,slices,save,bucket,text,sentencepiece,audio,speech_folder]
           [--json OUT]
"""
import argparse
import json
import os
import shutil
import statistics
import tempfile
import time

import numpy as np

import mindrecord

BATCH = 64


class Source:
    """The random-accessible source of the source case."""

    def __init__(self, n):
        self.n, self.x = n, np.zeros(256, np.float32)

    def __getitem__(self, i):
        return self.x, np.int64(i)

    def __len__(self):
        return self.n


def _timed(fn):
    t = time.perf_counter()
    count = fn()
    return count / (time.perf_counter() - t)


def source_case(rows):
    def ours():
        ds = mindrecord.GeneratorDataset(Source(rows), ["x", "i"], shuffle=False).batch(BATCH)
        return sum(len(b["i"]) for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True))

    def plain():
        src, count = Source(rows), 0
        for start in range(0, rows, BATCH):
            got = [src[i] for i in range(start, min(rows, start + BATCH))]
            xs, ids = np.stack([g[0] for g in got]), np.array([g[1] for g in got])
            count += len(ids) + 0 * len(xs)
        return count

    cases = {"GeneratorDataset.batch(64)": ours, "plain loop (source[i], np.stack)": plain}
    try:
        import torch
        from torch.utils.data import DataLoader

        def torch_loader():
            return sum(len(b[1]) for b in DataLoader(Source(rows), batch_size=BATCH, num_workers=0))
        torch.set_num_threads(1)
        cases["torch DataLoader(num_workers=0)"] = torch_loader
    except ImportError:
        pass
    return "rows/s", cases


def map_case(rows):
    data = np.random.RandomState(0).rand(rows, 16).astype(np.float32)

    def fn(x):
        return x * 2

    def ours():
        ds = mindrecord.NumpySlicesDataset(data, ["x"], shuffle=False)
        ds = ds.map(fn, input_columns=["x"], num_parallel_workers=1, python_multiprocessing=False).batch(BATCH)
        return sum(len(b["x"]) for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True))

    def plain():
        count = 0
        for start in range(0, rows, BATCH):
            count += len(np.stack([fn(data[i]) for i in range(start, min(rows, start + BATCH))]))
        return count

    cases = {"map(fn).batch(64)": ours, "plain loop (fn per row, np.stack)": plain}
    try:
        import torch
        from torch.utils.data import DataLoader

        class Mapped(torch.utils.data.Dataset):
            def __getitem__(self, i):
                return fn(data[i])

            def __len__(self):
                return rows

        def torch_loader():
            return sum(len(b) for b in DataLoader(Mapped(), batch_size=BATCH, num_workers=0))
        cases["torch DataLoader(num_workers=0), fn in __getitem__"] = torch_loader
    except ImportError:
        pass
    return "rows/s", cases


def slices_case(rows):
    rng = np.random.RandomState(0)
    x, y = rng.rand(rows, 256).astype(np.float32), np.arange(rows, dtype=np.int64)

    def ours():
        ds = mindrecord.NumpySlicesDataset((x, y), ["x", "y"], shuffle=True).batch(BATCH)
        return sum(len(b["y"]) for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True))

    def plain():
        perm, count = rng.permutation(rows), 0
        for start in range(0, rows, BATCH):
            idx = perm[start:start + BATCH]
            count += len(y[idx]) + 0 * len(x[idx])
        return count

    cases = {"NumpySlicesDataset.batch(64), shuffled": ours, "plain loop (x[perm[i:i+64]])": plain}
    try:
        import torch
        from torch.utils.data import DataLoader, TensorDataset

        def torch_loader():
            data = TensorDataset(torch.from_numpy(x), torch.from_numpy(y))
            return sum(len(b[1]) for b in DataLoader(data, batch_size=BATCH, shuffle=True, num_workers=0))
        cases["torch DataLoader(TensorDataset, shuffle=True)"] = torch_loader
    except ImportError:
        pass
    return "rows/s", cases


def save_case(rows, work):
    src = os.path.join(work, "rows.mindrecord")
    if not os.path.exists(src):
        w = mindrecord.FileWriter(src, overwrite=True)
        w.add_schema({"data": {"type": "bytes"}, "id": {"type": "int64"}})
        payload = bytes(np.random.RandomState(0).randint(0, 256, 1024, dtype=np.uint8))
        for start in range(0, rows, 10000):
            w.write_raw_data([{"data": payload, "id": i} for i in range(start, min(rows, start + 10000))])
        w.commit()
    out = os.path.join(work, "out")

    def clean():
        shutil.rmtree(out, ignore_errors=True)
        os.makedirs(out)

    def ours():
        clean()
        mindrecord.MindDataset(src, shuffle=False).save(os.path.join(out, "s.mindrecord"))
        return rows

    def plain():
        clean()
        w = mindrecord.FileWriter(os.path.join(out, "f.mindrecord"), 1)
        w.add_schema({"data": {"type": "bytes"}, "id": {"type": "int64"}})
        w.add_index(["id"])
        buf = []
        for row in mindrecord.MindDataset(src, shuffle=False).create_dict_iterator(num_epochs=1, output_numpy=True):
            buf.append({"data": row["data"].tobytes(), "id": int(row["id"])})
            if len(buf) == 1000:
                w.write_raw_data(buf)
                buf = []
        if buf:
            w.write_raw_data(buf)
        w.commit()
        return rows

    return "rows/s", {"Dataset.save": ours, "create_dict_iterator + FileWriter": plain}


BOUNDS, SIZES = [16, 32, 64, 96], [64, 64, 32, 32, 16]


def bucket_case(rows, work):
    src = os.path.join(work, "tokens.mindrecord")
    if not os.path.exists(src):
        w = mindrecord.FileWriter(src, overwrite=True)
        w.add_schema({"ids": {"type": "int32", "shape": [-1]}, "label": {"type": "int64"}})
        lengths = np.random.RandomState(0).randint(1, 129, rows)
        for start in range(0, rows, 10000):
            w.write_raw_data([{"ids": np.arange(lengths[i], dtype=np.int32), "label": i}
                              for i in range(start, min(rows, start + 10000))])
        w.commit()

    def dataset():
        return mindrecord.MindDataset(src, shuffle=True, seed=1)

    def count(ds):
        return sum(len(b["label"]) for b in ds.create_dict_iterator(num_epochs=1, output_numpy=True))

    def ours():
        return count(dataset().bucket_batch_by_length(["ids"], BOUNDS, SIZES, pad_info={"ids": ([None], 0)}))

    def ours_fn():
        return count(dataset().bucket_batch_by_length(["ids"], BOUNDS, SIZES, element_length_function=len,
                                                      pad_info={"ids": ([None], 0)}))

    def pad(bucket):
        longest = max(len(r["ids"]) for r in bucket)
        ids = np.zeros((len(bucket), longest), np.int32)
        for k, r in enumerate(bucket):
            ids[k, :len(r["ids"])] = r["ids"]
        return ids, np.array([r["label"] for r in bucket])

    def plain():
        buckets, n = [[] for _ in SIZES], 0
        for row in dataset().create_dict_iterator(num_epochs=1, output_numpy=True):
            b = sum(1 for x in BOUNDS if len(row["ids"]) >= x)
            buckets[b].append(row)
            if len(buckets[b]) == SIZES[b]:
                n += len(pad(buckets[b])[1])
                buckets[b] = []
        return n + sum(len(pad(b)[1]) for b in buckets if b)

    return "rows/s", {"bucket_batch_by_length": ours, "... with element_length_function=len": ours_fn,
                      "plain loop bucketing rows, numpy padding": plain}


def text_case(rows, work):
    """Text classification input: tokenize at white space, look the tokens up (unknown -> 1), cut or pad to
    64 ids, batch 64, against the loop a user writes (str.split, dict.get, numpy padding)."""
    words = ["w%d" % i for i in range(5000)]
    rng = np.random.RandomState(0)
    path = os.path.join(work, "text.txt")
    if not os.path.exists(path):
        with open(path, "w", encoding="utf-8") as f:
            for n in rng.randint(4, 120, rows):
                f.write(" ".join(words[k] if k < len(words) else "oov%d" % k for k in rng.randint(0, 5500, n)) + "\n")
    vocab = mindrecord.text.Vocab.from_list(words, special_tokens=["<pad>", "<unk>"])
    ids = vocab.vocab()
    length = 64

    def ours():
        ds = mindrecord.TextFileDataset(path, shuffle=False)
        ds = ds.map([mindrecord.text.WhitespaceTokenizer(), mindrecord.text.Lookup(vocab, "<unk>"),
                     mindrecord.text.Truncate(length), mindrecord.transforms.PadEnd([length], 0)],
                    input_columns="text").batch(BATCH)
        return sum(len(b[0]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))

    def plain():
        n, batch = 0, []
        with open(path, encoding="utf-8") as f:
            for line in f:
                row = [ids.get(w, 1) for w in line.split()][:length]
                batch.append(row + [0] * (length - len(row)))
                if len(batch) == BATCH:
                    n += len(np.array(batch, np.int32))
                    batch = []
        return n + (len(np.array(batch, np.int32)) if batch else 0)

    return "rows/s", {"TextFileDataset + tokenize, Lookup, pad": ours, "plain loop (split, dict.get, pad)": plain}


def sentencepiece_case(rows, work):
    """SentencePiece ids: a unigram model of 2,000 pieces trained on the text case's lines, TextFileDataset,
    SentencePieceTokenizer (INT), Truncate and PadEnd to 64, batch 64 (1 and 2 worker threads), against the
    loop a user writes with sentencepiece itself (encode per line, padding, np.array per batch)."""
    import sentencepiece as spm
    text = mindrecord.text
    text_case(rows, work)  # writes the lines
    path = os.path.join(work, "text.txt")
    vocab = text.SentencePieceVocab.from_file([path], 2000, 1.0, text.SentencePieceModel.UNIGRAM,
                                              {"input_sentence_size": 20000, "hard_vocab_limit": False})
    text.SentencePieceVocab.save_model(vocab, work, "spm.model")
    processor = spm.SentencePieceProcessor()
    processor.Load(os.path.join(work, "spm.model"))
    length = 64

    def ours(workers):
        def run():
            ds = mindrecord.TextFileDataset(path, shuffle=False, num_parallel_workers=workers)
            ds = ds.map([text.SentencePieceTokenizer(vocab, text.SPieceTokenizerOutType.INT), text.Truncate(length),
                         mindrecord.transforms.PadEnd([length], 0)], input_columns="text",
                        num_parallel_workers=workers).batch(BATCH)
            return sum(len(b[0]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))
        return run

    def plain():
        n, batch = 0, []
        with open(path, encoding="utf-8") as f:
            for line in f:
                row = processor.EncodeAsIds(line.rstrip("\n"))[:length]
                batch.append(row + [0] * (length - len(row)))
                if len(batch) == BATCH:
                    n += len(np.array(batch, np.int32))
                    batch = []
        return n + (len(np.array(batch, np.int32)) if batch else 0)

    return "rows/s", {"TextFileDataset + SentencePieceTokenizer, pad, 1 worker": ours(1),
                      "... 2 worker threads": ours(2), "plain loop (sentencepiece, pad)": plain}


def _numpy_log_mel(rate, n_fft, hop, n_mels):
    """The loop's log-mel features in numpy: strided Hann frames, np.fft.rfft, the mel matrix, dB (top 80)."""
    fb = mindrecord.audio.melscale_fbanks(n_fft // 2 + 1, 0.0, rate / 2, n_mels, rate).T.astype(np.float32)
    window = (0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)).astype(np.float32)

    def features(x):
        x = np.pad(x, n_fft // 2, mode="reflect")
        frames = np.lib.stride_tricks.sliding_window_view(x, n_fft)[::hop] * window
        power = np.abs(np.fft.rfft(frames, axis=1)) ** 2
        db = 10 * np.log10(np.maximum(fb @ power.T, 1e-10))
        return np.maximum(db, db.max() - 80).astype(np.float32)
    return features


def audio_case(work, count=2000, rate=16000):
    """Speech features: log-mel spectrograms (n_fft 400, hop 160, 80 mels, dB) of one-second waveforms in
    a MindRecord file, batch 32, 2 workers, against torchaudio's transforms in a DataLoader and a numpy
    loop."""
    path = os.path.join(work, "speech.mindrecord")
    if not os.path.exists(path):
        rng = np.random.RandomState(0)
        w = mindrecord.FileWriter(path, 1)
        w.add_schema({"audio": {"type": "float32", "shape": [-1]}, "id": {"type": "int64"}}, "speech")
        for start in range(0, count, 200):
            w.write_raw_data([{"audio": rng.uniform(-1, 1, rate).astype(np.float32), "id": i}
                              for i in range(start, start + 200)])
        w.commit()
    n_fft, hop, n_mels = 400, 160, 80
    audio = mindrecord.audio

    def ours():
        ds = mindrecord.MindDataset(path, columns_list=["audio"], shuffle=False, num_parallel_workers=2)
        ds = ds.map([audio.MelSpectrogram(sample_rate=rate, n_fft=n_fft, hop_length=hop, n_mels=n_mels),
                     audio.AmplitudeToDB()], input_columns="audio", num_parallel_workers=2).batch(32)
        return sum(len(b[0]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))

    numpy_features = _numpy_log_mel(rate, n_fft, hop, n_mels)

    def plain():
        n, batch = 0, []
        reader = mindrecord.FileReader(path, columns=["audio"])
        for row in reader.get_next():
            batch.append(numpy_features(row["audio"]))
            if len(batch) == 32:
                n += len(np.stack(batch))
                batch = []
        reader.close()
        return n + (len(np.stack(batch)) if batch else 0)

    cases = {"MindDataset + MelSpectrogram, dB (2 workers)": ours}
    try:
        import torch
        import torchaudio
    except ImportError:
        torch = None
    if torch is not None:
        reader = mindrecord.FileReader(path, columns=["audio"])
        waves = [row["audio"] for row in reader.get_next()]  # held in memory: no reads in the loader
        reader.close()

        class Waves(torch.utils.data.Dataset):
            def __init__(self):
                self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=rate, n_fft=n_fft, hop_length=hop,
                                                                n_mels=n_mels)
                self.db = torchaudio.transforms.AmplitudeToDB(top_db=80)

            def __len__(self):
                return len(waves)

            def __getitem__(self, i):
                with torch.no_grad():
                    return self.db(self.mel(torch.from_numpy(waves[i])))

        def torch_loader():
            torch.set_num_threads(1)
            loader = torch.utils.data.DataLoader(Waves(), batch_size=32, num_workers=2)
            return sum(len(b) for b in loader)
        cases["torchaudio in DataLoader (2 workers, waves in memory)"] = torch_loader
    cases["numpy loop over FileReader (rfft, mel matrix, dB)"] = plain
    return "rows/s", cases


def speech_folder_case(work, count=2000, rate=16000):
    """Log-mel features of a SpeechCommands folder of one-second 16-bit WAV files: SpeechCommandsDataset
    against torchaudio's SPEECHCOMMANDS in a DataLoader and a wave-module loop (batch 32, 2 workers)."""
    import wave
    root = os.path.join(work, "SpeechCommands", "speech_commands_v0.02")  # torchaudio's layout
    files = []
    if not os.path.exists(root):
        rng = np.random.RandomState(1)
        for i in range(count):
            label = "word%d" % (i % 10)
            path = os.path.join(root, label, "%08x_nohash_%d.wav" % (i, i % 5))
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with wave.open(path, "wb") as f:
                f.setnchannels(1)
                f.setsampwidth(2)
                f.setframerate(rate)
                f.writeframes(rng.randint(-32768, 32768, rate).astype("<i2").tobytes())
    for label in sorted(os.listdir(root)):
        files += [os.path.join(root, label, n) for n in sorted(os.listdir(os.path.join(root, label)))]
    n_fft, hop, n_mels = 400, 160, 80
    audio = mindrecord.audio

    def ours():
        ds = mindrecord.SpeechCommandsDataset(root, shuffle=False, num_parallel_workers=2)
        ds = ds.map([audio.MelSpectrogram(sample_rate=rate, n_fft=n_fft, hop_length=hop, n_mels=n_mels),
                     audio.AmplitudeToDB()], input_columns="waveform", num_parallel_workers=2)
        ds = ds.project(["waveform", "label"]).batch(32)
        return sum(len(b[0]) for b in ds.create_tuple_iterator(num_epochs=1, output_numpy=True))

    numpy_features = _numpy_log_mel(rate, n_fft, hop, n_mels)

    def plain():
        n, batch = 0, []
        for path in files:
            with wave.open(path, "rb") as f:
                x = np.frombuffer(f.readframes(f.getnframes()), "<i2").astype(np.float32) / 32767
            batch.append(numpy_features(x))
            if len(batch) == 32:
                n += len(np.stack(batch))
                batch = []
        return n + (len(np.stack(batch)) if batch else 0)

    cases = {"SpeechCommandsDataset + MelSpectrogram, dB (2 workers)": ours}
    try:
        import torch
        import torchaudio
    except ImportError:
        torch = None
    if torch is not None:
        class Features(torch.utils.data.Dataset):
            def __init__(self):
                self.ds = torchaudio.datasets.SPEECHCOMMANDS(work)
                self.mel = torchaudio.transforms.MelSpectrogram(sample_rate=rate, n_fft=n_fft, hop_length=hop,
                                                                n_mels=n_mels)
                self.db = torchaudio.transforms.AmplitudeToDB(top_db=80)

            def __len__(self):
                return len(self.ds)

            def __getitem__(self, i):
                waveform, _, label = self.ds[i][:3]
                with torch.no_grad():
                    return self.db(self.mel(waveform)), label

        def torch_loader():
            torch.set_num_threads(1)
            loader = torch.utils.data.DataLoader(Features(), batch_size=32, num_workers=2)
            return sum(len(b[0]) for b in loader)
        cases["torchaudio SPEECHCOMMANDS in DataLoader (2 workers)"] = torch_loader
    cases["wave-module loop (rfft, mel matrix, dB)"] = plain
    return "rows/s", cases


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--rows", type=int, default=100000, help="rows of the source and map cases (save: 2x)")
    p.add_argument("--runs", type=int, default=5)
    p.add_argument("--only", default="source,map,slices,save,bucket,text,sentencepiece,audio,speech_folder")
    p.add_argument("--json", default=None)
    a = p.parse_args()
    work = tempfile.mkdtemp(prefix="mr_pycode_")
    report = {"load": os.getloadavg()[0], "rows": a.rows, "runs": a.runs, "cases": {}}
    try:
        for name in a.only.split(","):
            if name == "source":
                unit, cases = source_case(a.rows)
            elif name == "map":
                unit, cases = map_case(a.rows)
            elif name == "slices":
                unit, cases = slices_case(a.rows)
            elif name == "save":
                unit, cases = save_case(2 * a.rows, work)
            elif name == "bucket":
                unit, cases = bucket_case(2 * a.rows, work)
            elif name == "text":
                unit, cases = text_case(2 * a.rows, work)
            elif name == "sentencepiece":
                unit, cases = sentencepiece_case(2 * a.rows, work)
            elif name == "audio":
                unit, cases = audio_case(work)
            elif name == "speech_folder":
                unit, cases = speech_folder_case(work)
            else:
                p.error("--only: unknown case %r (source, map, slices, save, bucket, text, sentencepiece, audio, "
                        "speech_folder)"
                        % name)
            for fn in cases.values():  # warm-up
                fn()
            rates = {k: [] for k in cases}
            for _ in range(a.runs):
                for k, fn in cases.items():
                    rates[k].append(_timed(fn))
            med = {k: statistics.median(v) for k, v in rates.items()}
            ours = next(iter(cases))
            print("%s (%s, median of %d):" % (name, unit, a.runs))
            for k in cases:
                ratio = "" if k == ours else "   ours / this: %.2fx" % (med[ours] / med[k])
                print("  %-40s %12.0f%s" % (k, med[k], ratio))
            report["cases"][name] = {"unit": unit, "median": med, "runs": rates}
    finally:
        shutil.rmtree(work, ignore_errors=True)
    report["load_end"] = os.getloadavg()[0]
    print("load average %.2f at the start, %.2f at the end" % (report["load"], report["load_end"]))
    if a.json:
        with open(a.json, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    main()
