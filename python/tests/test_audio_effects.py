"""mindrecord.audio's SoX effects, dither, phase vocoder and pitch detection
(MindSpore's Contrast, Overdrive, Phaser, Flanger, Dither, PhaseVocoder,
DetectPitchFrequency): each against the literal values MindSpore's own unit
tests expect (tests/ut/python/dataset/test_<op>.py), eagerly and in a
pipeline at several worker counts; properties the vectors do not pin down
(a phaser's delayed copy, quadratic interpolation, dither's seeded noise,
a tone's pitch); argument errors."""
import numpy as np
import pytest

import mindrecord as ds
from mindrecord import audio


def close(got, want, tol=1e-4):
    """MindSpore's count_unequal_element(rtol=tol, atol=tol) on small arrays."""
    got, want = np.asarray(got), np.asarray(want)
    assert got.shape == want.shape, (got.shape, want.shape)
    assert np.all(np.abs(got - want) <= tol + tol * np.abs(want)), (got, want)


def pipeline_rows(rows, op, workers=2, seed=None):
    """`op` over the rows in a NumpySlicesDataset pipeline."""
    if seed is not None:
        ds.config.set_seed(seed)
    data = ds.NumpySlicesDataset(rows, column_names=["audio"], shuffle=False)
    data = data.map(operations=op, input_columns=["audio"], num_parallel_workers=workers)
    return [r["audio"] for r in data.create_dict_iterator(output_numpy=True, num_epochs=1)]


def test_contrast_mindspore_vectors():
    close(audio.Contrast(75.0)(np.array([[1, 2], [3, 4]], np.float32)), [[1., -8.742277e-08], [-1., 1.748455e-07]])
    rows = np.array([[0.4941969, 0.53911686, 0.4846254], [0.10841596, 0.029320478, 0.52353495],
                     [0.23657, 0.087965, 0.43579]], np.float64)
    want = [[7.032282948493957520e-01, 7.328570485115051270e-01, 6.967759728431701660e-01],
            [2.311619222164154053e-01, 6.433061510324478149e-02, 7.226532697677612305e-01],
            [4.539981484413146973e-01, 1.895205676555633545e-01, 6.622338891029357910e-01]]
    for workers in (1, 3):
        got = pipeline_rows(rows, audio.Contrast(), workers)
        assert all(g.dtype == np.float64 for g in got)
        close(np.stack(got), want)
    with pytest.raises(ValueError, match="enhancement_amount"):
        audio.Contrast(101)
    with pytest.raises(TypeError, match="enhancement_amount"):
        audio.Contrast("75.0")


def test_overdrive_mindspore_vectors():
    close(audio.Overdrive()(np.array([[1.47, 4.722, 5.863], [0.492, 0.235, 0.56]], np.float32)),
          [[1., 1., 1.], [0.74600005, 0.615, 0.77501255]])
    got = pipeline_rows(np.array([[0.1, 0.2], [0.4, 2.6]], np.float32), audio.Overdrive(10.0, 5.0))
    close(np.stack(got), [[0.29598799, 0.52081579], [0.7, 1.]])
    # More rows than samples (MindSpore's state vectors overflow there): each row keeps its own state.
    x = np.random.default_rng(0).uniform(-0.5, 0.5, (5, 3)).astype(np.float32)
    close(audio.Overdrive()(x), np.stack([audio.Overdrive()(r) for r in x]), 1e-7)
    with pytest.raises(ValueError, match="gain"):
        audio.Overdrive(gain=100.23)


def test_phaser_mindspore_vectors_and_delay():
    close(audio.Phaser(sample_rate=44100)(np.array([[1, 2, 3], [4, 5, 6]], np.float32)),
          [[0.296, 0.71040004, 1.], [1., 1., 1.]])
    got = pipeline_rows(np.array([[0.1, 1.2, 5.3], [0.4, 5.5, 1.6]], np.float32), audio.Phaser(44100))
    close(np.stack(got), [[0.0296, 0.36704, 1.], [0.11840001, 1., 1.]])
    # An impulse comes back through the delay line, decay-scaled, within delay_ms.
    x = np.zeros(400, np.float64)
    x[0] = 1.0
    y = audio.Phaser(8000, gain_in=1.0, gain_out=1.0, delay_ms=5.0, decay=0.5)(x)
    assert y[0] == 1.0
    echo = np.flatnonzero(np.abs(y[1:]) > 1e-12) + 1
    assert len(echo) > 0 and echo[0] <= 40 and abs(y[echo[0]] - 0.5) < 1e-12
    with pytest.raises(ValueError, match="mod_speed"):
        audio.Phaser(44100, mod_speed=0.003)
    with pytest.raises(ds.InvalidArgumentError, match="delay_ms.*gives no delay"):
        audio.Phaser(8000, delay_ms=0.0)(x)


def test_flanger_mindspore_vectors():
    f = audio.Flanger(44100, 0.0, 2.0, 0.0, 71.0, 0.5, 25.0, audio.Modulation.SINUSOIDAL, audio.Interpolation.LINEAR)
    close(f(np.array([[0.1, 0.2, 0.3], [0.4, 0.5, 0.6]], np.float64)),
          [[0.10000000000, 0.19999999536, 0.29999998145], [0.23391812865, 0.29239766081, 0.35087719298]])
    tri = audio.Flanger(44100, 0.0, 2.0, 0.0, 71.0, 0.5, 25.0, audio.Modulation.TRIANGULAR,
                        audio.Interpolation.LINEAR)
    close(tri(np.array([[-1.2, 2, -3.6], [1, 2.4, 3.7]], np.float32)), [[-1.0, 1.0, -1.0], [0.58479529619, 1.0, 1.0]])
    ints = tri(np.array([[-2, -3, 0], [2, 2, 3]], np.int32))
    assert ints.dtype == np.int32 and ints.tolist() == [[-1, -1, 0], [1, 1, 1]]
    default = audio.Flanger(44100)
    close(default(np.array([[[1], [1.1]], [[0.9], [0.6]]], np.float64)),
          [[[1.00000000], [0.64327485]], [[0.90000000], [0.35087719]]])
    close(default(np.array([[[[[0.44]], [[0.55]]]]], np.float64)), [[[[[0.44]], [[0.55]]]]])
    got = pipeline_rows(np.array([[[1.1, 1.2, 1.3], [1.4, 1.5, 1.6]]], np.float64), default)
    close(got[0], [[1.0, 1.0, 1.0], [0.81871345029, 0.87719298245, 0.93567251461]])
    with pytest.raises(ds.InvalidArgumentError, match="at most 4 channels"):
        default(np.zeros((5, 10), np.float32))
    with pytest.raises(TypeError, match="modulation"):
        audio.Flanger(44100, modulation="test")


def test_flanger_quadratic_and_feedback():
    """No MindSpore vector covers these: a constant input's delayed copy is
    the constant (any interpolation), and feedback adds regen of it back."""
    x = np.full((1, 200), 0.1, np.float64)
    for interp in (audio.Interpolation.LINEAR, audio.Interpolation.QUADRATIC):
        y = audio.Flanger(8000, width=100.0, interpolation=interp)(x)
        np.testing.assert_allclose(y[0, 100:], 0.1, rtol=1e-12)  # dry / 2 + wet / 2 of the same 0.1
    y = audio.Flanger(8000, width=100.0, regen=50.0)(x)
    # in_gain 1/2, wet gain (1/2)(1 - 0.5); the loop settles at 0.1 / (1 - 0.5) = 0.2 in the line.
    np.testing.assert_allclose(y[0, 150:], 0.05 + 0.2 * 0.25, rtol=1e-9)


def test_dither_tpdf_mindspore_vectors():
    close(audio.Dither(audio.DensityFunction.TPDF, False)(np.array([[1, 2, 3], [4, 5, 6]], np.float64)),
          [[0.99993896, 1.99990845, 2.99984741], [3.99975586, 4.99972534, 5.99966431]])
    shaped = audio.Dither(audio.DensityFunction.TPDF, True)(np.arange(1, 10, dtype=np.float64).reshape(3, 3))
    np.testing.assert_array_equal(shaped.ravel(), [0.99993896484375, 1.999847412109375, 2.999755859375,
                                                   3.999755859375, 4.999481201171875, 5.9993896484375,
                                                   6.99957275390625, 7.999114990234375, 8.9990234375])
    rows = np.array([[0.4941969, 0.53911686, 0.4846254], [0.10841596, 0.029320478, 0.52353495],
                     [0.23657, 0.087965, 0.43579]], np.float64)
    got = pipeline_rows(rows, audio.Dither())
    close(np.stack(got), [[0.49417114, 0.53909302, 0.48461914], [0.10839844, 0.02932739, 0.52352905],
                          [0.23654175, 0.08798218, 0.43579102]])
    with pytest.raises(TypeError, match="density_function"):
        audio.Dither("TPDF")


def test_dither_random_noise_is_seeded_per_row():
    x = np.random.default_rng(1).uniform(-0.9, 0.9, (4, 2000))
    for density in (audio.DensityFunction.RPDF, audio.DensityFunction.GPDF):
        a = np.stack(pipeline_rows(x, audio.Dither(density), workers=1, seed=3))
        b = np.stack(pipeline_rows(x, audio.Dither(density), workers=3, seed=3))
        np.testing.assert_array_equal(a, b)  # the same at any worker count
        lsb = np.round(a * 32768) - x * 32766
        assert np.all(np.abs(a * 32768 - np.round(a * 32768)) < 1e-6)  # on the 16-bit grid
        assert 0.2 < np.std(lsb) < 1.5  # noise of about a bit, not MindSpore's one sample value for all
        assert not np.all(lsb == lsb[0, 0])


def test_phase_vocoder_mindspore_vector():
    spec = np.array([[[[0.43189, 2.3049924], [-0.01202229, 0.9176453], [-0.6258611, 0.66475236],
                       [0.13541847, 1.2829605], [0.9725325, 1.1669061]],
                      [[-0.35001752, -1.0989336], [-1.4930767, 0.86829656], [0.3355314, -0.41216415],
                       [-1.1828239, 1.0075365], [-0.19343425, 0.38364533]]]])
    want = [[[[0.43189007, 2.3049924], [-0.01196056, 0.9129374], [1.1385509, 1.00558]],
             [[-0.35001755, -1.0989336], [-0.4594292, 0.26718047], [0.404371, -0.14520557]]]]
    for dtype in (np.float32, np.float64):
        op = audio.PhaseVocoder(rate=2.0, phase_advance=np.array([[0.0], [3.9270]], dtype))
        got = op(spec.astype(dtype))
        assert got.dtype == dtype
        close(got, want)
    # TimeStretch is the same with torchaudio's advances.
    x = np.random.default_rng(2).normal(size=(3, 201, 20, 2)).astype(np.float32)
    advance = np.linspace(0, np.pi * 100, 201)[:, None]
    np.testing.assert_array_equal(audio.PhaseVocoder(1.3, advance)(x), audio.TimeStretch(100, 201, 1.3)(x))
    assert audio.PhaseVocoder(0.8, advance)(x).shape == (3, 201, 25, 2)
    with pytest.raises(ds.InvalidArgumentError, match="phase_advance holds 201 advances but the input has 2"):
        audio.PhaseVocoder(1.3, advance)(spec.astype(np.float32))
    with pytest.raises(ValueError, match=r"shape \(freq, 1\)"):
        audio.PhaseVocoder(1.3, np.zeros(4))
    with pytest.raises(ValueError, match="rate"):
        audio.PhaseVocoder(0, advance)


def test_detect_pitch_frequency_mindspore_vectors_and_a_tone():
    x = np.array([[2.716064453125e-03, 6.34765625e-03, 9.246826171875e-03, 1.0894775390625e-02,
                   1.1383056640625e-02, 1.1566162109375e-02, 1.3946533203125e-02, 1.55029296875e-02,
                   1.6143798828125e-02, 1.8402099609375e-02],
                  [1.7181396484375e-02, 1.59912109375e-02, 1.64794921875e-02, 1.5106201171875e-02,
                   1.385498046875e-02, 1.3458251953125e-02, 1.4190673828125e-02, 1.2847900390625e-02,
                   1.0528564453125e-02, 9.368896484375e-03]])
    op = audio.DetectPitchFrequency(30, 0.1, 3, 5, 25)
    got = op(x)
    assert got.dtype == np.float32
    close(got, [[10., 10., 10.], [5., 5., 10.]])
    rows = np.array([[0.716064453125e-03, 5.34765625e-03, 6.246826171875e-03, 2.0894775390625e-02,
                      7.1383056640625e-02],
                     [4.1566162109375e-02, 1.3946533203125e-02, 3.55029296875e-02, 0.6143798828125e-02,
                      3.8402099609375e-02]])
    got = pipeline_rows(rows, audio.DetectPitchFrequency(30, 0.1, 3, 5, 25))
    close(np.stack(got), [[10.0], [7.5]])
    # A 200 Hz tone at 8 kHz: a lag of 40 samples.
    t = np.arange(8000) / 8000.0
    pitch = audio.DetectPitchFrequency(8000, win_length=5)(np.sin(2 * np.pi * 200 * t).astype(np.float32))
    np.testing.assert_allclose(pitch[2:-2], 200.0, rtol=1e-6)
    assert audio.DetectPitchFrequency(44100)(np.zeros((2, 10000), np.float32)).shape == (2, 8)
    with pytest.raises(ValueError, match="freq_high"):
        audio.DetectPitchFrequency(8000, freq_low=400, freq_high=300)(np.zeros(8000, np.float32))
    with pytest.raises(ds.InvalidArgumentError, match="fewer than win_length"):
        audio.DetectPitchFrequency(8000)(np.zeros(100, np.float32))


def voice(sr=16000):
    """A second of faint noise, then two seconds of a 200 Hz sawtooth (a voiced sound's harmonics)."""
    t = np.arange(2 * sr) / sr
    noise = np.random.default_rng(0).normal(0, 0.001, sr)
    return np.concatenate([noise, ((t * 200) % 1.0 - 0.5) * 0.5]).astype(np.float32)


def test_vad_trims_before_the_voice_as_torchaudio():
    """The detector triggers at the voice; the lengths kept are torchaudio
    0.13's vad on the same input (MindSpore's kernel never triggers: its
    measure is always 0)."""
    sig = voice()
    y = audio.Vad(16000)(sig)
    assert y.shape == (33600,)  # torchaudio: 33600
    np.testing.assert_array_equal(y, sig[-33600:])
    assert audio.Vad(16000, pre_trigger_time=0.2)(sig).shape == (36800,)  # torchaudio: 36800
    assert audio.Vad(16000, measure_duration=0.05, measure_freq=40.0)(sig).shape == (32800,)  # torchaudio: 32800
    # Rows are cut together, at the earliest trigger (the second row's voice starts 0.25 s sooner).
    both = audio.Vad(16000)(np.stack([sig, np.roll(sig, -4000)]))
    assert both.shape == (2, 37600)  # torchaudio: (2, 37600)
    got = pipeline_rows(np.stack([sig, sig]), audio.Vad(16000), workers=2)
    assert [g.shape for g in got] == [(33600,), (33600,)]


def test_vad_without_a_trigger_keeps_mindsporess_trailing_samples():
    """Noise does not trigger: the result is the slice MindSpore's tests expect
    (pre-trigger + search + measure samples from the end, Python's slicing
    of a negative start for shorter rows)."""
    rng = np.random.default_rng(4)
    one = rng.normal(0, 1, 1000).astype(np.float32)
    np.testing.assert_array_equal(audio.Vad(600)(one), one[340:])
    two = rng.normal(0, 1, (2, 1000)).astype(np.float32)
    np.testing.assert_array_equal(audio.Vad(1600)(two), two[:, 240:])
    assert audio.Vad(1600)(rng.normal(0, 1, (3, 1000))).shape == (3, 760)
    assert audio.Vad(700, trigger_level=14.0, trigger_time=1.0)(one[None]).shape == (1, 770)
    assert audio.Vad(800, trigger_level=14.0, trigger_time=1.0, search_time=2.0, measure_freq=40.0,
                     measure_duration=0.05, measure_smooth_time=1.0)(one).shape == (640,)
    with pytest.raises(ValueError, match="noise_up_time must be at least noise_down_time"):
        audio.Vad(16000, noise_up_time=1, noise_down_time=3)
    with pytest.raises(ValueError, match="sample_rate"):
        audio.Vad(-10)
    with pytest.raises(ds.InvalidArgumentError, match="search_time"):
        audio.Vad(16000, search_time=0.0)(one)
    with pytest.raises(ds.InvalidArgumentError, match="hp_lifter_freq"):
        audio.Vad(16000, hp_lifter_freq=3000.0)(one)


def test_inverse_mel_scale_recovers_a_linear_spectrogram():
    """MindSpore's tests check InverseMelScale only statistically; here the
    mel spectrogram of the result must match the input (the fit's goal) and
    the result be non-negative, at any worker count with one seed."""
    rng = np.random.default_rng(5)
    linear = rng.uniform(0, 1, (2, 40, 30)).astype(np.float32)
    mel = audio.MelScale(n_mels=8, sample_rate=8000, n_stft=40)(linear)
    op = audio.InverseMelScale(n_stft=40, n_mels=8, sample_rate=8000, max_iter=4000,
                               sgdargs={"sgd_lr": 0.5, "sgd_momentum": 0.9})
    got = op(mel)
    assert got.shape == (2, 40, 30) and got.dtype == np.float32 and got.min() >= 0
    back = audio.MelScale(n_mels=8, sample_rate=8000, n_stft=40)(got)
    assert np.abs(back - mel).mean() < 0.02 * np.abs(mel).mean()
    ds.config.set_seed(9)
    one = pipeline_rows(mel, op, workers=1)
    ds.config.set_seed(9)
    two = pipeline_rows(mel, op, workers=2)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)
    # sgd_momentum is applied (MindSpore's kernel drops it): from one start, 5 steps with and
    # without it differ, and with it the fit is closer.
    def fit(momentum):
        return audio.InverseMelScale(n_stft=40, n_mels=8, sample_rate=8000, max_iter=5,
                                     sgdargs={"sgd_lr": 0.5, "sgd_momentum": momentum})(mel, seed=3)

    def error(s):
        return np.abs(audio.MelScale(n_mels=8, sample_rate=8000, n_stft=40)(s) - mel).mean()
    assert error(fit(0.9)) < error(fit(0.0))
    with pytest.raises(ValueError, match="n_stft must be at least 2"):
        audio.InverseMelScale(n_stft=1)
    with pytest.raises(KeyError, match="sgd_momentum"):
        audio.InverseMelScale(n_stft=40, sgdargs={"sgd_lr": 0.1})
    with pytest.raises(ValueError, match="sgdargs takes"):
        audio.InverseMelScale(n_stft=40, sgdargs={"sgd_lr": 0.1, "sgd_momentum": 0.9, "nesterov": True})
    with pytest.raises(ds.InvalidArgumentError, match="n_mels is 8 but the input has 4 mel bins"):
        op(np.zeros((4, 10), np.float32))
