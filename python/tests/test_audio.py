"""mindrecord.audio (MindSpore's mindspore.dataset.audio), written as
MindSpore code with only the import changed: a speech front end (mel
spectrogram, decibels, SpecAugment masks, batch) over a MindRecord file of
waveforms at several worker counts against a numpy model; each op against
the values MindSpore's own unit tests expect; the argument and input errors."""
import numpy as np
import pytest

import mindrecord as ds
from mindrecord import FileWriter, MindDataset, audio

SR = 8000
RNG = np.random.default_rng(7)
WAVES = [RNG.uniform(-1, 1, n).astype(np.float32) for n in (1600, 2000, 1600, 24000, 1600, 1800, 1600, 2000)]


@pytest.fixture(scope="module")
def speech(tmp_path_factory):
    """WAVES as a MindRecord file: a float32 waveform of any length and a label."""
    path = str(tmp_path_factory.mktemp("audio") / "speech.mindrecord")
    w = FileWriter(path, 1)
    w.add_schema({"audio": {"type": "float32", "shape": [-1]}, "label": {"type": "int32"}}, "speech")
    w.write_raw_data([{"audio": x, "label": i % 4} for i, x in enumerate(WAVES)])
    w.commit()
    return path


def np_power_spectrogram(x, n_fft, hop):
    """|STFT|^2 with a periodic Hann window, reflect-padded by n_fft // 2: [bins, frames]."""
    w = 0.5 - 0.5 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
    x = np.pad(x.astype(np.float64), n_fft // 2, mode="reflect")
    frames = 1 + (len(x) - n_fft) // hop
    spec = np.fft.rfft(np.stack([x[j * hop:j * hop + n_fft] * w for j in range(frames)]), axis=1)
    return (np.abs(spec) ** 2).T


def np_htk_mel_filters(n_freqs, f_min, f_max, n_mels, sr):
    freqs = np.linspace(0, sr / 2, n_freqs)
    mels = np.linspace(2595 * np.log10(1 + f_min / 700), 2595 * np.log10(1 + f_max / 700), n_mels + 2)
    pts = 700 * (10 ** (mels / 2595) - 1)
    down = (freqs[:, None] - pts[None, :-2]) / (pts[1:-1] - pts[:-2])
    up = (pts[None, 2:] - freqs[:, None]) / (pts[2:] - pts[1:-1])
    return np.maximum(0, np.minimum(down, up))


def np_log_mel(x, n_fft=256, hop=128, n_mels=40):
    mel = np_htk_mel_filters(n_fft // 2 + 1, 0.0, SR / 2, n_mels, SR).T @ np_power_spectrogram(x, n_fft, hop)
    db = 10 * np.log10(np.maximum(mel, 1e-10))
    return np.maximum(db, db.max() - 80)


@pytest.mark.parametrize("workers", [1, 3])
def test_speech_front_end(speech, workers):
    data = MindDataset(speech, shuffle=False, num_parallel_workers=workers)
    data = data.map([audio.MelSpectrogram(sample_rate=SR, n_fft=256, hop_length=128, n_mels=40),
                     audio.AmplitudeToDB()], input_columns="audio", num_parallel_workers=workers)
    got = [(row["audio"], int(row["label"])) for row in data.create_dict_iterator(output_numpy=True, num_epochs=1)]
    assert len(got) == len(WAVES)
    for i, (feats, label) in enumerate(got):
        assert feats.dtype == np.float32 and feats.shape == (40, 1 + len(WAVES[i]) // 128)
        np.testing.assert_allclose(feats, np_log_mel(WAVES[i]), atol=2e-3, rtol=1e-4)
        assert label == i % 4


def test_spectrogram_of_long_waveforms_against_numpy():
    # Frames run through the DFT in blocks: a waveform of many blocks, both
    # padded ends, and every leading dimension.
    x = RNG.uniform(-1, 1, (2, 3, 10000))
    got = audio.Spectrogram(n_fft=256, hop_length=64, power=2.0)(x)
    assert got.shape == (2, 3, 129, 157) and got.dtype == np.float64
    for i in range(2):
        for j in range(3):
            np.testing.assert_allclose(got[i, j], np_power_spectrogram(x[i, j], 256, 64), rtol=1e-9, atol=1e-9)
    # Complex values, both sides, odd and even n_fft: numpy's DFT of the windowed frames.
    for n_fft in (9, 10):
        row = x[0, 0, :60]
        got_c = audio.Spectrogram(n_fft=n_fft, hop_length=7, power=0, onesided=False, center=False,
                                  window=audio.WindowType.HAMMING)(row)
        w = 0.54 - 0.46 * np.cos(2 * np.pi * np.arange(n_fft) / n_fft)
        frames = np.stack([row[j * 7:j * 7 + n_fft] * w for j in range(1 + (60 - n_fft) // 7)])
        want = np.fft.fft(frames, axis=1).T
        np.testing.assert_allclose(got_c[..., 0] + 1j * got_c[..., 1], want, rtol=1e-9, atol=1e-9)
    got32 = audio.Spectrogram(n_fft=256, hop_length=64)(x.astype(np.float32))
    assert got32.dtype == np.float32
    np.testing.assert_allclose(got32[1, 2], np_power_spectrogram(x[1, 2].astype(np.float32), 256, 64), rtol=2e-4,
                               atol=2e-3)


def masked_rows(features):
    """The number of all-zero rows and columns of a [freq, time] matrix."""
    return int((features == 0).all(axis=1).sum()), int((features == 0).all(axis=0).sum())


def test_spec_augment_masks_are_per_row_and_the_same_at_any_worker_count(speech):
    def run(workers):
        ds.config.set_seed(1234)
        data = MindDataset(speech, shuffle=False, num_parallel_workers=workers)
        data = data.map([audio.MelSpectrogram(sample_rate=SR, n_fft=256, hop_length=128, n_mels=40),
                         audio.FrequencyMasking(True, 10), audio.TimeMasking(True, 6)],
                        input_columns="audio", num_parallel_workers=workers)
        return [r["audio"] for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]

    one, four = run(1), run(4)
    for a, b in zip(one, four):
        np.testing.assert_array_equal(a, b)
    shapes = [masked_rows(a) for a in one]
    assert all(f <= 10 and t <= 6 for f, t in shapes)
    assert len(set(shapes)) > 1, "each row draws its own masks"
    # A mask with a fixed width and start (iid_masks=False) is MindSpore's.
    fixed = audio.TimeMasking(False, 3, 5, 0.0)(np.ones((2, 4, 12), np.float32))
    assert (fixed[..., 5:8] == 0).all() and (fixed[..., :5] == 1).all() and (fixed[..., 8:] == 1).all()


def test_batched_features_and_mfcc(speech):
    data = MindDataset(speech, shuffle=False, num_parallel_workers=2)
    mfcc = audio.MFCC(SR, n_mfcc=13, melkwargs={"n_fft": 256, "hop_length": 128, "n_mels": 40})
    data = data.map(mfcc, input_columns="audio").map(audio.ComputeDeltas(), input_columns="audio")
    data = data.batch(2, pad_info={"audio": ([13, 200], 0.0)})
    batches = list(data.create_tuple_iterator(output_numpy=True, num_epochs=1))
    assert len(batches) == 4
    deltas = audio.ComputeDeltas()
    for k, b in enumerate(batches):
        assert b[0].shape == (2, 13, 200) and b[0].dtype == np.float32
        for j in range(2):
            want = deltas(mfcc(WAVES[2 * k + j]))
            np.testing.assert_allclose(b[0][j, :, :want.shape[1]], want, rtol=1e-5, atol=1e-5)
            assert (b[0][j, :, want.shape[1]:] == 0).all()


def test_torch_adapter_takes_audio_ops(speech):
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    feats = MindRecordDataset(speech, columns=["audio", "label"], shuffle=False,
                              ops={"audio": [audio.MelSpectrogram(sample_rate=SR, n_fft=256, hop_length=128, n_mels=40),
                                             audio.AmplitudeToDB()]})
    loader = torch.utils.data.DataLoader(feats, batch_size=None, num_workers=2)
    rows = list(loader)
    assert len(rows) == len(WAVES)
    for i, row in enumerate(rows):
        assert row["audio"].dtype == torch.float32
        np.testing.assert_allclose(row["audio"].numpy(), np_log_mel(WAVES[i]), atol=2e-3, rtol=1e-4)


# ---- each op as MindSpore's tests expect it (tests/ut/python/dataset) -------------

W30 = np.array([1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5, 5], np.float64)


def close(got, want, tol=1e-4):
    np.testing.assert_allclose(np.asarray(got), np.asarray(want), rtol=tol, atol=tol)


def test_spectrogram_as_mindspore_tests_it():
    out = audio.Spectrogram(n_fft=8)(W30[None])
    assert out.shape == (1, 5, 8) and out.dtype == np.float64
    close(out[0, 0], [28.015, 121.00, 313.54, 169.00, 25.000, 10.843, 121.00, 331.50], 1e-3)
    close(out[0, 4], [0.5, 1.0, 0.085787, 1.0, 1.0, 0.5, 1.0, 0.62868])
    close(audio.Spectrogram(n_fft=8, center=False)(W30[None])[0, 0], [121.00, 313.54, 169.00, 25.000, 10.843, 121.00],
          1e-3)
    close(audio.Spectrogram(n_fft=8, center=False, normalized=True)(W30[None])[0, 0],
          [40.333, 104.51, 56.333, 8.3333, 3.6144, 40.333], 1e-3)
    complex_out = audio.Spectrogram(n_fft=8, power=0)(W30[None])
    assert complex_out.shape == (1, 5, 8, 2)
    close(complex_out[0, [0, 1, 2, 4], 0], [[5.2929, 0], [-1.7929, 0], [-1.0, 0], [0.70711, 0]])
    bartlett = audio.Spectrogram(n_fft=10, window=audio.WindowType.BARTLETT, pad_mode=audio.BorderType.EDGE)
    out = bartlett(W30[None])
    assert out.shape == (1, 6, 7)
    close(out[0, 0], [40.96, 262.44, 400.0, 77.44, 25.0, 262.44, 595.36])
    close(out[0, 5], [0.64, 0.36, 0.0, 2.56, 1.0, 0.36, 1.44])
    two_sided = audio.Spectrogram(n_fft=10, window=audio.WindowType.BARTLETT, pad_mode=audio.BorderType.EDGE,
                                  onesided=False)(W30[None])
    assert two_sided.shape == (1, 10, 7)
    close(two_sided[0, 6:], out[0, 4:0:-1])
    # Integer waveforms compute in float32.
    assert audio.Spectrogram(n_fft=8)(W30.astype(np.int16)[None]).dtype == np.float32


def test_mel_ops_as_mindspore_tests_them():
    fb = audio.melscale_fbanks(8, 2, 50, 4, 100)
    assert fb.shape == (8, 4) and fb.dtype == np.float32
    close(fb[1], [0.5502, 0, 0, 0])
    close(fb[2], [0.6898, 0.3102, 0, 0])
    close(fb[3], [0, 0.9366, 0.0634, 0])
    close(fb[6], [0, 0, 0, 0.7247])
    close(audio.melscale_fbanks(8, 2, 50, 4, 100, audio.NormType.NONE, audio.MelType.SLANEY)[1:3],
          [[0.5357, 0, 0, 0], [0.7202, 0.2798, 0, 0]])
    close(audio.melscale_fbanks(10, 0, 50, 5, 100, audio.NormType.SLANEY, audio.MelType.HTK)[1:3, :2],
          [[0.0843, 0], [0.0776, 0.0447]])
    close(audio.melscale_fbanks(8, 2, 50, 4, 100, audio.NormType.SLANEY, audio.MelType.SLANEY)[1:3, :2],
          [[0.0558, 0], [0.0750, 0.0291]])
    close(audio.create_dct(2, 4, audio.NormMode.NONE), [[2, 1.84775901], [2, 0.76536685], [2, -0.76536703],
                                                        [2, -1.84775925]])
    close(audio.create_dct(1, 3, audio.NormMode.ORTHO), [[0.57735026]] * 3)
    assert audio.utils.create_dct(1, 3, audio.utils.NormMode.ORTHO).shape == (3, 1)
    spec = np.array([[[-0.70104372, 1.11845696, -1.49368215], [0.46030220, -0.55651432, 0.86295372]]], np.float32)
    close(audio.MelScale(n_mels=2, sample_rate=10, f_min=-50, f_max=100, n_stft=2)(spec)[0],
          [[-0.27036190, 0.57920718, -0.67397606], [0.02962033, -0.01726446, 0.04324763]])
    mel = audio.MelSpectrogram(sample_rate=16000, n_fft=16, win_length=16, hop_length=8, f_min=0.0, f_max=10000.0,
                               pad=0, n_mels=8)(W30.astype(np.int64)[None])
    assert mel.shape == (1, 8, 4)
    close(mel[0, [0, 1, 2, 7]], [[0, 0, 0, 0], [1.6105, 28.416, 4.0224, 14.698], [18.027, 318.08, 45.026, 164.52],
                                 [2.6995, 2.0453, 2.6940, 3.5556]], 1e-3)
    mfcc = audio.MFCC(16000, n_mfcc=4, dct_type=2, norm=audio.NormMode.ORTHO, log_mels=True,
                      melkwargs={"n_fft": 16, "win_length": 16, "hop_length": 8, "f_min": 0.0, "f_max": 10000.0,
                                 "pad": 0, "n_mels": 5, "window": audio.WindowType.HANN, "power": 2.0,
                                 "normalized": False, "center": True, "pad_mode": audio.BorderType.REFLECT,
                                 "onesided": True, "norm": audio.NormType.NONE, "mel_scale": audio.MelType.HTK})
    close(mfcc(W30[None])[0], [[2.7625, 5.6919, 3.6229, 3.9756], [0.8142, 3.2698, 1.4946, 3.0683],
                               [-1.6855, -0.8312, -1.1395, 0.0481], [-2.1808, -2.5489, -2.3110, -3.1485]])


def test_scale_and_complex_ops_as_mindspore_tests_them():
    x = np.array([[[-0.2197528, 0.3821656]], [[0.57418776, 0.46741104]], [[-0.20381108, -0.9303914]],
                  [[1.259975, 0.4981323]]], np.float32)
    close(audio.AmplitudeToDB(top_db=80.0)(x[:, None])[:, 0, 0],
          [[-84.17748, -4.177484], [-2.4094608, -3.3030105], [-100, -100], [1.0036192, -3.0265532]])
    # Values a corrupt row may hold: NaN stays NaN (not a quiet -100 dB), infinity is the maximum.
    odd = audio.AmplitudeToDB()(np.array([[[np.nan, 1.0, 0.0, 100.0]]], np.float32))
    assert np.isnan(odd[0, 0, 0]) and odd[0, 0, 1:].tolist() == [0.0, -60.0, 20.0]
    assert audio.AmplitudeToDB(top_db=10.0)(np.array([[np.inf, 1.0]]))[0].tolist() == [np.inf, np.inf]
    close(audio.DBToAmplitude(2, 2)(np.arange(1, 7, dtype=np.float64)),
          [3.1698, 5.0238, 7.9621, 12.6191, 20.0, 31.6979])
    pairs = np.array([[1, 1], [2, 3], [4, 4]], np.float32)
    close(audio.ComplexNorm(2)(pairs), [2, 13, 32])
    close(audio.ComplexNorm()(pairs.astype(np.float64)), [1.4142135623730951, 3.605551275463989, 5.656854249492381])
    close(audio.Angle()(np.array([[73.04, -13.00], [57.49, 13.20], [-57.64, 6.51], [-52.25, 30.67]])),
          [-0.17614017, 0.22569334, 3.02912684, 2.6107975])
    mag, phase = audio.Magphase()(np.array([[3, -4], [-5, 12]], np.float64))
    close(mag, [5, 13])
    close(phase, [-0.927295, 1.965587])
    data = ds.NumpySlicesDataset({"z": np.array([[[3.0, -4.0], [-5.0, 12.0]]])}, shuffle=False)
    data = data.map(audio.Magphase(), input_columns="z", output_columns=["mag", "phase"])
    row = next(data.create_dict_iterator(output_numpy=True))
    close(row["mag"], [5, 13])
    close(row["phase"], [-0.927295, 1.965587])


def test_level_ops_as_mindspore_tests_them():
    enc = audio.MuLawEncoding()(np.array([[0.1, 0.2, 0.3, 0.4]], np.float32))
    assert enc.dtype == np.int32 and enc.tolist() == [[203, 218, 228, 234]]
    assert audio.MuLawEncoding(128)(np.array([[0.1, 0.2, 0.3, 0.4]], np.float32)).tolist() == [[98, 106, 111, 115]]
    close(audio.MuLawDecoding()(np.array([[10, 100, 70, 200]], np.float32)),
          [[-0.6459359526634216, -0.009046762250363827, -0.04388953000307083, 0.08788024634122849]])
    close(audio.Gain()(np.arange(1, 7, dtype=np.float64)),
          [1.1220184, 2.2440369, 3.3660554, 4.4880738, 5.6100923, 6.7321107])
    close(audio.Vol(0.2, audio.GainType.AMPLITUDE)(np.array([0.3667, 0.5295])), [0.0733, 0.1059])
    close(audio.Vol(-0.05, audio.GainType.DB)(np.array([-1.4782767, -0.5794799])), [-1.0, -0.5761538])
    close(audio.Vol(10, audio.GainType.POWER)(np.array([0.7012, 0.25, 0.0108])), [1.0, 0.7906, 0.0342])
    close(audio.DCShift(1.0, 0.04)(np.array([0.60, 0.97, -1.04, -1.26, 0.97])), [0.04, 0.04, -0.04, -0.26, 0.04])
    close(audio.DCShift(0.8, 0.03)(np.array([[1.14, -1.06, 0.94, 0.90], [-1.11, 1.40, -0.33, 1.43]])),
          [[0.23, -0.26, 0.23, 0.23], [-0.31, 0.23, 0.47, 0.23]])
    close(audio.Fade(5, 6, audio.FadeShape.EXPONENTIAL)(np.array([[1, 2, 3, 4, 5, 6], [5, 7, 3, 78, 8, 4]], np.float64)),
          [[0, 0.2071, 0.4823, 0.6657, 0.5743, 0], [0, 0.7247, 0.4823, 12.9820, 0.9190, 0]])
    close(audio.Fade(6, 6, audio.FadeShape.QUARTER_SINE)(np.arange(1, 7, dtype=np.float64)[None]),
          [[0, 0.5878, 1.4266, 1.9021, 1.4695, 0]])
    close(audio.ComputeDeltas()(np.array([[0.08746047, -0.33246294, 0.5240939, 0.6064913, -0.70366]])),
          [[0.0453, 0.1475, -0.0643, -0.1970, -0.3766]])
    # A window far longer than the row: the pads repeat as numpy's do.
    row = RNG.uniform(size=7)
    for mode, np_mode in [(audio.BorderType.REFLECT, "reflect"), (audio.BorderType.SYMMETRIC, "symmetric"),
                          (audio.BorderType.EDGE, "edge"), (audio.BorderType.CONSTANT, "constant")]:
        n = 30
        padded = np.pad(row, n, mode=np_mode)
        k = np.arange(-n, n + 1)
        want = [(k * padded[t:t + 2 * n + 1]).sum() / (n * (n + 1) * (2 * n + 1) / 3) for t in range(7)]
        close(audio.ComputeDeltas(2 * n + 1, mode)(row[None]), [want], 1e-12)


def test_filters_as_mindspore_tests_them():
    close(audio.Biquad(0.01, 0.02, 0.13, 1, 0.12, 0.3)(np.array([[1.0, 2, 3], [4, 5, 6]])),
          [[0.0100, 0.0388, 0.1923], [0.0400, 0.1252, 0.6530]])
    # The recursion keeps the unclamped output.
    close(audio.Biquad(1, 0.02, 0.13, 1, 0.12, 0.3)(np.array([3.2, 2.1, 1.3])), [1.0, 1.0, 0.5844])
    close(audio.LFilter([0.2, 0.2, 0.3], [0.5, 0.4, 0.2], True)(np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])),
          [[0.25, 0.45, 0.425], [1.0, 1.0, 0.35]])
    x = np.array([[1.0, 2, 3], [4, 5, 6]])
    for op, want in [(audio.AllpassBiquad(44100, 200.0, 0.707), [[0.96049707, 1, 1], [1, 1, 1]]),
                     (audio.BandBiquad(44100, 200.0, 0.707, False),
                      [[0.00137832, 0.00545664, 0.01350014], [0.00551329, 0.01769161, 0.03763063]]),
                     (audio.BandpassBiquad(44000, 200.0, 0.707, False),
                      [[0.01979545, 0.07838227, 0.17417782], [0.07918181, 0.25414270, 0.46156447]]),
                     (audio.BandrejectBiquad(44100, 200.0, 0.707), [[0.98024851, 1, 1], [1, 1, 1]]),
                     (audio.RiaaBiquad(44100), [[0.23806122, 0.70914434, 1], [0.95224489, 1, 1]]),
                     (audio.TrebleBiquad(44100, 200.0), [[1, -1, 1], [1, -1, 1]])]:
        close(op(x), want)
    small = np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]])
    close(audio.BassBiquad(44100, 50.0, 100.0, 0.707)(small),
          [[0.10409035, 0.21652136, 0.33761211], [0.41636141, 0.55381439, 0.70088436]])
    close(audio.DeemphBiquad(44100)(small), [[0.04603508, 0.11216372, 0.19070681], [0.18414031, 0.31054966, 0.42633607]])
    close(audio.DeemphBiquad(48000)(np.array([0.2, 0.2, 0.3])), [0.0895, 0.1279, 0.1972])
    row = np.array([0.8236, 0.2049, 0.3335])
    close(audio.LowpassBiquad(4000, 1000.0, 1)(row), [0.2745, 0.6174, 0.4308])
    close(audio.HighpassBiquad(4000, 1000.0, 1)(row), [0.2745, -0.4808, 0.1576])
    close(audio.EqualizerBiquad(4000, 1000.0, 5.5, 1)(row), [1.0, 0.2532, 0.1273])
    # Filtfilt: zero phase, so a symmetric pulse stays symmetric.
    pulse = np.zeros(41)
    pulse[20] = 1.0
    y = audio.Filtfilt([1.0, -0.5], [0.25, 0.25], clamp=False)(pulse)
    close(y, y[::-1], 1e-6)
    one_way = audio.LFilter([1.0, -0.5], [0.25, 0.25], clamp=False)(pulse)
    assert abs(one_way[19] - one_way[21]) > 0.1 and y.argmax() == 20


W20 = np.array([9.1553e-05, 6.1035e-05, 6.1035e-05, 6.1035e-05, 1.2207e-04, 1.2207e-04, 9.1553e-05, 9.1553e-05,
                9.1553e-05, 9.1553e-05, 9.1553e-05, 6.1035e-05, 1.2207e-04, 1.2207e-04, 1.2207e-04, 9.1553e-05,
                9.1553e-05, 9.1553e-05, 6.1035e-05, 9.1553e-05])


def test_resample_as_mindspore_tests_it():
    out = audio.Resample(orig_freq=48000, new_freq=16000)(W20.astype(np.float32)[None])
    assert out.shape == (1, 7) and out.dtype == np.float32
    close(out[0], [4.55755834991578e-05, 8.720954065211117e-05, 1.0670421761460602e-04, 8.14067243481986e-05,
                   1.065794640453532e-04, 1.0657223901944235e-04, 7.18398878234438e-05], 1e-7)
    data = ds.NumpySlicesDataset({"w": W20[None, None]}, shuffle=False)
    data = data.map(audio.Resample(orig_freq=48000, new_freq=32000), input_columns="w")
    row = next(data.create_dict_iterator(output_numpy=True))["w"]
    assert row.shape == (1, 14) and row.dtype == np.float64
    close(row[0], [7.217280358331832e-05, 6.147586845848083e-05, 6.933040265579067e-05, 1.266581382477944e-04,
                   9.608767868756453e-05, 8.877784053662024e-05, 9.627620117997594e-05, 7.354420105365433e-05,
                   1.083820430709723e-04, 1.270510740823957e-04, 9.667916684509936e-05, 8.675770241390953e-05,
                   8.107692367547760e-05, 4.530917665365263e-05], 1e-9)
    two = np.array([[4.1653e-05, 2.10535e-05, 7.1335e-05, 4.1065e-05, 7.2507e-04, 3.4207e-04, 5.4553e-05, 3.1556e-05,
                     9.1553e-05, 9.1553e-05],
                    [9.1553e-05, 6.1035e-05, 1.2207e-04, 1.2457e-04, 1.2347e-04, 9.1673e-05, 9.1263e-05, 4.18753e-05,
                     8.1345e-05, 9.1675e-05]])
    kaiser = audio.Resample(48000, 16000, resample_method=audio.ResampleMethod.KAISER_WINDOW, lowpass_filter_width=7,
                            rolloff=0.98)
    close(kaiser(two), [[-1.9667e-05, 2.7005e-04, 2.2237e-04, 1.4461e-05], [5.4877e-05, 1.2215e-04, 8.5062e-05,
                                                                            5.0822e-05]], 1e-8)
    # Rates without a large common divisor (2003 -> 1000: a kernel of 2 million weights, almost all zero)
    # compute each sample's taps: the closed form of the same kernel, in numpy.
    x = RNG.uniform(-1, 1, 300)
    o, d, lpw, base = 2003, 1000, 6, 1000 * 0.99
    j = np.arange(300)
    want = []
    for n in range(int(np.ceil(d * 300 / o))):
        t = np.clip(base * (j / o - n / d), -lpw, lpw)
        want.append((x * base / o * np.sinc(t) * np.cos(t * np.pi / lpw / 2) ** 2).sum())
    close(audio.Resample(2003, 1000)(x), want, 1e-9)
    same = RNG.uniform(size=(5, 30))
    assert (audio.Resample()(same) == same).all()
    # Upsampling a band-limited tone keeps it: 440 Hz at 8 kHz -> 16 kHz.
    t8, t16 = np.arange(800) / 8000, np.arange(1600) / 16000
    up = audio.Resample(8000, 16000)(np.sin(2 * np.pi * 440 * t8))
    assert up.shape == (1600,)
    np.testing.assert_allclose(up[100:-100], np.sin(2 * np.pi * 440 * t16)[100:-100], atol=2e-3)


def test_lfcc_centroid_and_cmn_as_mindspore_tests_them():
    spec = {"n_fft": 16, "win_length": 16, "hop_length": 8, "pad": 0, "window": audio.WindowType.HANN, "power": 2.0,
            "normalized": False, "center": True, "pad_mode": audio.BorderType.REFLECT, "onesided": True}
    args = dict(sample_rate=16000, n_filter=128, n_lfcc=4, f_min=0.0, f_max=10000.0, dct_type=2,
                norm=audio.NormMode.ORTHO, speckwargs=spec)
    data = ds.NumpySlicesDataset({"w": W30.astype(np.int64)[None, None]}, shuffle=False)
    data = data.map(audio.LFCC(log_lf=True, **args), input_columns="w")
    out = next(data.create_dict_iterator(output_numpy=True))["w"]
    assert out.shape == (1, 4, 4) and out.dtype == np.float32
    close(out[0], [[-137.9132, -137.0732, -137.2996, -140.0339], [4.1616, 5.3870, 4.2134, 4.9916],
                   [-3.4581, -4.1653, -3.9544, -0.3347], [2.0614, 2.7895, 2.7281, 0.7957]])
    out = audio.LFCC(log_lf=False, **args)(W30.astype(np.int64)[None, None])
    assert out.shape == (1, 1, 4, 4)
    close(out[0, 0], [[-550.05, -546.40, -547.39, -558.40], [16.892, 22.214, 17.117, 20.112],
                      [-12.942, -16.014, -15.098, -0.36112], [8.1695, 11.332, 11.065, 3.6742]], 1e-2)
    # float64 input computes in float64 (MindSpore's reads its buffer as float32).
    close(audio.LFCC(log_lf=True, **args)(W30[None])[0, 1], [4.1616, 5.3870, 4.2134, 4.9916])
    centroid = audio.SpectralCentroid(sample_rate=44100, n_fft=8)(W30.astype(np.int64)[None])
    assert centroid.shape == (1, 1, 8) and centroid.dtype == np.float32
    close(centroid[0, 0], [4436.1182, 3580.0718, 2902.4917, 3334.8962, 5199.8350, 6284.4814, 3580.0718, 2895.5659],
          1e-3)
    x = np.array([1.2, 1, 2, 2, 3, 3, 4, 4, 5, 5, 4, 4, 3, 3, 2, 2, 1, 1, 0, 0, 1, 1, 2, 2, 3, 3, 4, 4, 5.5, 6.5])
    close(audio.SpectralCentroid(sample_rate=48000, n_fft=8)(x[None])[0, 0],
          [5276.65022959, 3896.67543098, 3159.17400004, 3629.81957922, 5659.68456649, 6840.25126846, 3896.67543098,
           3316.97434286], 1e-6)
    feats = np.array([[[0, .1, .2], [.3, .4, .5]], [[.6, .7, .8], [.9, 1.0, 1.1]]])
    close(audio.SlidingWindowCmn(500, 200, False, False)(feats), [[[-.15] * 3, [.15] * 3]] * 2)
    normed = audio.SlidingWindowCmn(600, 100, False, True)(
        np.array([[0.0050, 0.0306, 0.6146, 0.7620, 0.6369], [0.9525, 0.0362, 0.6721, 0.6867, 0.8466]], np.float32))
    assert normed.dtype == np.float32
    close(normed, [[-1, -1, -1, 1, -1], [1, 1, 1, -1, 1]])
    close(audio.SlidingWindowCmn(600, 100, False, True)(np.array([[3.2, 2.1, 1.3], [6.2, 5.3, 6]])),
          [[-1, -1, -1], [1, 1, 1]])
    # One frame of a 2-D input comes back squeezed, as MindSpore's.
    assert audio.SlidingWindowCmn()(np.ones((1, 4))).shape == (4,)
    # Windows against a direct model: centred, and trailing with a minimum.
    long = RNG.uniform(size=(9, 2))
    for center, cw, mn in [(True, 3, 0), (False, 3, 0), (False, 2, 5)]:
        want = np.empty_like(long)
        for t in range(9):
            start, end = (t - cw // 2, t - cw // 2 + cw) if center else (t - cw, t + 1)
            if start < 0:
                end, start = end - start, 0
            if not center and end > t:
                end = max(t + 1, mn)
            if end > 9:
                start, end = max(0, start - (end - 9)), 9
            want[t] = long[t] - long[start:end].mean(axis=0)
        close(audio.SlidingWindowCmn(cw, mn, center)(long), want, 1e-12)


def test_time_stretch_as_mindspore_tests_it():
    x = np.array([[[[1.0402449369430542, 0.3807601034641266], [-1.120057225227356, -0.12819576263427734],
                    [1.4303032159805298, -0.08839055150747299]],
                   [[1.4198592901229858, 0.6900091767311096], [-1.8593409061431885, 0.16363371908664703],
                    [-2.3349387645721436, -1.4366451501846313]]],
                  [[[-0.7083967328071594, 0.9325454831123352], [-1.9133838415145874, 0.011225821450352669],
                    [1.477278232574463, -1.0551637411117554]],
                   [[-0.6668586134910583, -0.23143270611763], [-2.4390718936920166, 0.17638640105724335],
                    [-0.4795735776424408, 0.1345423310995102]]]])
    close(audio.TimeStretch(64, 2, 1.6)(x),
          [[[[1.0402449369430542, 0.3807601034641266], [-1.302264928817749, -0.1490504890680313]],
            [[1.4198592901229858, 0.6900091767311096], [-2.382312774658203, 0.2096325159072876]]],
           [[[-0.7083966732025146, 0.9325454831123352], [-1.8545820713043213, 0.010880803689360619]],
            [[-0.6668586134910583, -0.23143276572227478], [-1.2737033367156982, 0.09211209416389465]]]], 1e-3)
    assert audio.TimeStretch(512, 1025, 1.3)(np.zeros((2, 1025, 300, 2), np.float32)).shape == (2, 1025, 231, 2)
    close(audio.TimeStretch(1, 1, 0.5)(np.array([[[[1.0, 0], [0, 1]]]])), [[[[1, 0], [0, 1], [-1, 0], [0, 0.5]]]])
    assert (audio.TimeStretch(n_freq=2)(x) == x).all()  # rate 1: the input as it is
    # A spectrogram, stretched, keeps its tone: a 1 kHz sine at 8 kHz, slowed down 2x.
    tone = np.sin(2 * np.pi * 1000 * np.arange(4000) / 8000)
    spec = audio.Spectrogram(n_fft=256, hop_length=64, power=0)(tone)
    slow = audio.TimeStretch(64, 129, 0.5)(spec)
    assert slow.shape == (129, 2 * spec.shape[1], 2)
    assert (np.hypot(slow[..., 0], slow[..., 1])[:, 10:-10].argmax(axis=0) == 32).all()  # bin of 1 kHz
    with pytest.raises(ValueError):
        audio.TimeStretch(512, 1025, -1.3)
    with pytest.raises(ds.InvalidArgumentError, match="TimeStretch: n_freq is 201 but the input has 2 frequency bins"):
        audio.TimeStretch(fixed_rate=2.0)(x)


def test_inverse_spectrogram_and_pitch_shift():
    x = RNG.uniform(-1, 1, (2, 2000))
    for kwargs in [{}, {"win_length": 48, "pad": 3, "normalized": True}, {"window": audio.WindowType.HAMMING}]:
        spec = audio.Spectrogram(n_fft=64, hop_length=16, power=0, **kwargs)(x)
        back = audio.InverseSpectrogram(length=2000, n_fft=64, hop_length=16, **kwargs)(spec)
        assert back.shape == (2, 2000) and back.dtype == np.float64
        np.testing.assert_allclose(back, x, atol=1e-9)  # the STFT inverted
    spec = audio.Spectrogram(n_fft=64, hop_length=16, power=0)(x.astype(np.float32))
    assert audio.InverseSpectrogram(n_fft=64, hop_length=16)(spec).shape == (2, 2000)  # length from the frames
    # Past the last frame (sample 2032 on), zeros, as torch.istft pads.
    assert (audio.InverseSpectrogram(length=2100, n_fft=64, hop_length=16)(spec)[:, 2032:] == 0).all()
    with pytest.raises(ds.InvalidArgumentError, match="InverseSpectrogram: expected <..., 33 frequency bins"):
        audio.InverseSpectrogram(n_fft=64)(np.zeros((30, 5, 2)))
    # PitchShift: the values torchaudio 0.13's pitch_shift gives for this input (MindSpore's follows it).
    w = np.sin(2 * np.pi * 300 * np.arange(400) / 8000) * np.linspace(0.2, 1, 400)
    close(audio.PitchShift(8000, 3, n_fft=64)(w)[[50, 120, 200, 333]],
          [0.0899015007, 0.1412923065, -0.1583124801, -0.249783699], 1e-6)
    # An octave up doubles a tone's frequency and keeps the length.
    tone = np.sin(2 * np.pi * 250 * np.arange(8000) / 8000).astype(np.float32)
    up = audio.PitchShift(8000, 12)(tone)
    assert up.shape == (8000,) and up.dtype == np.float32
    assert np.abs(np.fft.rfft(up[1000:7000])).argmax() * 8000 / 6000 == pytest.approx(500, abs=2)
    rows = ds.NumpySlicesDataset({"w": np.stack([tone, tone])}, shuffle=False)
    shifted = [r["w"] for r in rows.map(audio.PitchShift(8000, -12), input_columns="w").create_dict_iterator(
        output_numpy=True, num_epochs=1)]
    assert all(np.abs(np.fft.rfft(r[1000:7000])).argmax() * 8000 / 6000 == pytest.approx(125, abs=2) for r in shifted)


def test_griffin_lim():
    w = np.sin(2 * np.pi * 300 * np.arange(400) / 8000) * np.linspace(0.2, 1, 400)
    power = audio.Spectrogram(n_fft=64, hop_length=16)(w)
    # Without random phases: the values torchaudio 0.13's GriffinLim gives.
    out = audio.GriffinLim(n_fft=64, hop_length=16, n_iter=8, rand_init=False)(power)
    assert out.shape == (400,) and out.dtype == np.float64
    # (torch's window is float32: the 8 rounds drift ~1e-5 from a float64 one)
    close(out[[40, 100, 250, 380]], [0.0476969443, 0.4789972252, 0.5996483628, 0.8554248172], 1e-4)
    magnitude = audio.Spectrogram(n_fft=64, hop_length=16, power=1.0)(w)
    out = audio.GriffinLim(n_fft=64, hop_length=16, n_iter=8, rand_init=False, length=400, momentum=0.5,
                           power=1.0)(magnitude)
    close(out[[10, 150, 399]], [-0.2171427553, -0.5000782654, -0.8294881923], 1e-4)
    # Random starts come from the row's seed: the same at any worker count, and converging.
    data = ds.NumpySlicesDataset({"s": np.stack([power, power * 4]).astype(np.float32)}, shuffle=False)
    op = audio.GriffinLim(n_fft=64, hop_length=16, n_iter=32)

    def run(workers):
        ds.config.set_seed(5)
        return [r["s"] for r in data.map(op, input_columns="s", num_parallel_workers=workers)
                .create_dict_iterator(output_numpy=True, num_epochs=1)]
    one, two = run(1), run(2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    rebuilt = audio.Spectrogram(n_fft=64, hop_length=16)(one[0])
    assert np.linalg.norm(np.sqrt(rebuilt) - np.sqrt(power)) / np.linalg.norm(np.sqrt(power)) < 0.2
    with pytest.raises(ds.InvalidArgumentError, match="GriffinLim: expected <..., 33 frequency bins"):
        audio.GriffinLim(n_fft=64)(np.ones((30, 5)))


def test_argument_errors():
    for make, error in [(lambda: audio.Spectrogram(n_fft=0), ValueError),
                        (lambda: audio.Spectrogram(n_fft=200, win_length=300), ValueError),
                        (lambda: audio.Spectrogram(window="hann"), TypeError),
                        (lambda: audio.AmplitudeToDB(stype="test"), TypeError),
                        (lambda: audio.AmplitudeToDB(top_db=-80), ValueError),
                        (lambda: audio.MelScale(f_min=1000, f_max=1000), ValueError),
                        (lambda: audio.MelScale(n_mels=-1), ValueError),
                        (lambda: audio.MFCC(dct_type=-1), ValueError),
                        (lambda: audio.MFCC(n_mfcc=50, melkwargs={"n_mels": 40}), ValueError),
                        (lambda: audio.MFCC(melkwargs={"n_fft": 16, "hop": 8}), ValueError),
                        (lambda: audio.ComplexNorm(-3.0), ValueError),
                        (lambda: audio.TimeMasking(False, 2, -10), ValueError),
                        (lambda: audio.MaskAlongAxis(0, 1, 2.0, 3), ValueError),
                        (lambda: audio.MaskAlongAxis(0, 1, 2.0, 1.0), TypeError),
                        (lambda: audio.Gain("1.0"), TypeError),
                        (lambda: audio.Vol(-1.5, audio.GainType.POWER), ValueError),
                        (lambda: audio.DCShift(2.5), ValueError),
                        (lambda: audio.Fade(-1, 0), ValueError),
                        (lambda: audio.ComputeDeltas(2), ValueError),
                        (lambda: audio.Biquad(1, 1, 1, 0, 1, 1), ValueError),
                        (lambda: audio.AllpassBiquad(44100.5, 200.0), TypeError),
                        (lambda: audio.AllpassBiquad(0, 200.0), ValueError),
                        (lambda: audio.AllpassBiquad(44100, 200.0, 1.707), ValueError),
                        (lambda: audio.DeemphBiquad(44000), ValueError),
                        (lambda: audio.RiaaBiquad(22050), ValueError),
                        (lambda: audio.LFilter([1.0, 0.5], [1.0]), ValueError),
                        (lambda: audio.create_dct(0, 4), ValueError),
                        (lambda: audio.melscale_fbanks(10.5, 0, 50, 4, 100), TypeError),
                        (lambda: audio.Resample(1, 0), ValueError),
                        (lambda: audio.Resample(rolloff=1), TypeError),
                        (lambda: audio.Resample(resample_method="aaaa"), TypeError),
                        (lambda: audio.LFCC(n_filter=-1), ValueError),
                        (lambda: audio.LFCC(f_min=10000), ValueError),
                        (lambda: audio.LFCC(f_min=2, f_max=1), ValueError),
                        (lambda: audio.LFCC(speckwargs={"n_fft": 16}), ValueError),
                        (lambda: audio.LFCC(speckwargs={"n_fft": 40, "win_length": 41}), ValueError),
                        (lambda: audio.SpectralCentroid(44100, n_fft=200, win_length=300), ValueError),
                        (lambda: audio.SlidingWindowCmn("600"), TypeError),
                        (lambda: audio.SlidingWindowCmn(441324343243242342345300), ValueError),
                        (lambda: audio.SlidingWindowCmn(center="False"), TypeError),
                        (lambda: audio.PitchShift(8000, 1.5), TypeError),
                        (lambda: audio.PitchShift(8000, 2, bins_per_octave=0), ValueError),
                        (lambda: audio.InverseSpectrogram(length=-1), ValueError),
                        (lambda: audio.Resample(48000, 16000, beta=1e8), ValueError),
                        (lambda: audio.GriffinLim(n_iter=0), ValueError),
                        (lambda: audio.GriffinLim(momentum=-1.0), ValueError),
                        (lambda: audio.GriffinLim(rand_init=1), TypeError)]:
        with pytest.raises(error):
            make()
    with pytest.raises(TypeError, match="numpy array"):
        audio.Gain()([1.0, 2.0])
    with pytest.raises(AttributeError):
        audio.NoSuchTransform  # noqa: B018


def test_input_errors_name_the_op(speech):
    with pytest.raises(ds.InvalidArgumentError, match="TimeMasking: the mask \\[100, 102\\) lies past"):
        audio.TimeMasking(False, 2, 100)(np.zeros((2, 20, 30), np.float32))
    with pytest.raises(ds.InvalidArgumentError, match="TimeMasking: the mask's width 200"):
        audio.TimeMasking(True, 200)(np.zeros((2, 20, 30), np.float32))
    with pytest.raises(ds.InvalidArgumentError, match="MelScale: expected 201 frequency bins"):
        audio.MelScale()(np.zeros((10, 5), np.float32))
    with pytest.raises(ds.InvalidArgumentError, match="AmplitudeToDB: expected an array of shape <..., freq, time>"):
        audio.AmplitudeToDB()(np.zeros(5, np.float32))
    # In a pipeline: the row's error stops it, naming the op.
    data = MindDataset(speech, shuffle=False).map(audio.Spectrogram(n_fft=4096, center=False), input_columns="audio")
    with pytest.raises(ds.InvalidArgumentError, match="Spectrogram: n_fft 4096 is more than the 1600 samples"):
        list(data)
    words = ds.NumpySlicesDataset({"t": np.array([["a", "b"]])}, shuffle=False).map(audio.Gain(), input_columns="t")
    with pytest.raises(ds.InvalidArgumentError, match="Gain does not take an array of strings"):
        list(words)
    word = ds.NumpySlicesDataset({"t": np.array(["a", "b"])}, shuffle=False).map(audio.Vol(0.5), input_columns="t")
    with pytest.raises(ds.InvalidArgumentError, match="Vol: expected a numeric array <..., time>, got Tensor<string>"):
        list(word)
