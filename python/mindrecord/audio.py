"""Audio transforms (MindSpore's mindspore.dataset.audio): spectrograms, mel
scales and their inverse, MFCCs and LFCCs, decibels, SpecAugment masks,
gains and fades, dither, mu-law coding, IIR filters, SoX's effects,
resampling, time stretching, pitch shifting and detection, voice activity
detection and Griffin-Lim, run by the C++ pipeline on its worker threads
like the vision ops.

    from mindrecord import audio                   # for mindspore.dataset.audio
    ds = ds.map([audio.MelSpectrogram(sample_rate=16000, n_mels=80),
                 audio.AmplitudeToDB(), audio.FrequencyMasking(True, 27)], input_columns="audio")

Ops take numeric arrays: waveforms <..., time> or spectrograms <..., freq,
time>, each row of the leading dimensions on its own. Integer input
computes in float32 and float64 stays float64 (MFCC gives float32 and
MuLawEncoding int32, as MindSpore's). Calling an op by hand takes a numpy
array (`audio.Spectrogram(n_fft=512)(waveform)`).

Where this differs from MindSpore on purpose (python/README.md, "Audio
transforms", lists each): random draws come from each row's seed, so
results are the same at any worker count; results MindSpore's kernels get
wrong (two-sided complex spectrograms, DCShift's negative peaks, float64
LFCC, TimeStretch on another frequency count) are computed as the formulas
say.

Thread safety: op objects are immutable values; the utils are pure.
"""
from enum import Enum
import json
import numbers
from types import SimpleNamespace

import numpy as np

from mindrecord import _core
from mindrecord._ops_base import TensorOperation, check_int, float_json

__all__ = ["AllpassBiquad", "AmplitudeToDB", "Angle", "BandBiquad", "BandpassBiquad", "BandrejectBiquad",
           "BassBiquad", "Biquad", "BorderType", "ComplexNorm", "ComputeDeltas", "DBToAmplitude", "DCShift",
           "DeemphBiquad", "EqualizerBiquad", "Fade", "FadeShape", "Filtfilt", "FrequencyMasking", "Gain",
           "GainType", "HighpassBiquad", "LFilter", "LowpassBiquad", "Magphase", "MaskAlongAxis",
           "MaskAlongAxisIID", "MelScale", "MelSpectrogram", "MelType", "MFCC", "MuLawDecoding", "MuLawEncoding",
           "NormMode", "NormType", "LFCC", "Resample", "ResampleMethod", "RiaaBiquad", "ScaleType",
           "SlidingWindowCmn", "SpectralCentroid", "Spectrogram", "TimeStretch", "InverseSpectrogram", "PitchShift", "GriffinLim", "TimeMasking", "TrebleBiquad", "Vol",
           "WindowType", "create_dct", "linear_fbanks", "melscale_fbanks", "Contrast", "DensityFunction",
           "DetectPitchFrequency", "Dither", "Flanger", "Interpolation", "Modulation", "Overdrive", "PhaseVocoder",
           "Phaser", "Vad", "InverseMelScale"]

_INT32_MAX = 2 ** 31 - 1
_FLOAT32_MAX = 16777216  # MindSpore's bound on float parameters


class BorderType(str, Enum):
    """How a row is padded past its ends."""
    CONSTANT = "constant"
    EDGE = "edge"
    REFLECT = "reflect"
    SYMMETRIC = "symmetric"


class WindowType(str, Enum):
    """Spectrogram windows (periodic)."""
    BARTLETT = "bartlett"
    BLACKMAN = "blackman"
    HAMMING = "hamming"
    HANN = "hann"
    KAISER = "kaiser"


class ScaleType(str, Enum):
    """AmplitudeToDB's input: power (|X|^2) or magnitude (|X|)."""
    MAGNITUDE = "mag"
    POWER = "power"


class NormType(str, Enum):
    """Mel filter normalization: none, or Slaney's unit area."""
    SLANEY = "slaney"
    NONE = "none"


class NormMode(str, Enum):
    """DCT normalization."""
    ORTHO = "ortho"
    NONE = "none"


class MelType(str, Enum):
    """Mel scales: HTK's or Slaney's."""
    HTK = "htk"
    SLANEY = "slaney"


class FadeShape(str, Enum):
    """Fade curves."""
    QUARTER_SINE = "quarter_sine"
    HALF_SINE = "half_sine"
    LINEAR = "linear"
    LOGARITHMIC = "logarithmic"
    EXPONENTIAL = "exponential"


class ResampleMethod(str, Enum):
    """Resample's window: Hann-like (cos^2) or Kaiser."""
    SINC_INTERPOLATION = "sinc_interpolation"
    KAISER_WINDOW = "kaiser_window"


class GainType(str, Enum):
    """Vol's gain: an amplitude ratio, a power ratio or decibels."""
    AMPLITUDE = "amplitude"
    POWER = "power"
    DB = "db"


class DensityFunction(str, Enum):
    """Dither's noise: triangular, rectangular or Gaussian."""
    TPDF = "TPDF"
    RPDF = "RPDF"
    GPDF = "GPDF"


class Modulation(str, Enum):
    """Flanger's sweep."""
    SINUSOIDAL = "sinusoidal"
    TRIANGULAR = "triangular"


class Interpolation(str, Enum):
    """How Flanger reads between delay-line samples."""
    LINEAR = "linear"
    QUADRATIC = "quadratic"


# ---- argument checks (MindSpore's rules: TypeError for a type, ValueError
# for a range, each naming the op and argument) ----------------------------

def _enum(value, cls, op, name):
    if not isinstance(value, cls):
        raise TypeError("%s: %s must be an audio.%s, got %r" % (op, name, cls.__name__, value))
    return value.value


def _bool(value, op, name):
    if not isinstance(value, bool):
        raise TypeError("%s: %s must be a bool, got %r" % (op, name, value))
    return value


def _num(value, op, name, lo=-_FLOAT32_MAX, hi=_FLOAT32_MAX, lo_open=False, nonzero=False):
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("%s: %s must be an int or float, got %r" % (op, name, value))
    value = float(value)
    if not (lo < value if lo_open else lo <= value) or value > hi or (nonzero and value == 0):
        raise ValueError("%s: %s must be in %s%s, %s]%s, got %r" % (op, name, "(" if lo_open else "[", lo, hi,
                                                                   " and not 0" if nonzero else "", value))
    return value


def _pos_int(value, op, name):
    return check_int(value, op, name, 1, _INT32_MAX)


def _nonneg_int(value, op, name):
    return check_int(value, op, name, 0, _INT32_MAX)


class _AudioOp(TensorOperation):
    def __call__(self, *values, seed=None):
        for v in values:
            if not isinstance(v, np.ndarray):
                raise TypeError("%s: the input must be a numpy array, got %s" % (self._spec["op"], type(v).__name__))
        return super().__call__(*values, seed=seed)


def _stft_spec(op, n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode, onesided,
               power_lo_open):
    n_fft = _pos_int(n_fft, op, "n_fft")
    win_length = n_fft if win_length is None else _pos_int(win_length, op, "win_length")
    if win_length > n_fft:
        raise ValueError("%s: win_length must be at most n_fft (%d), got %d" % (op, n_fft, win_length))
    hop_length = max(win_length // 2, 1) if hop_length is None else _pos_int(hop_length, op, "hop_length")
    return {"n_fft": n_fft, "win_length": win_length, "hop_length": hop_length,
            "pad": _nonneg_int(pad, op, "pad"), "window": _enum(window, WindowType, op, "window"),
            "power": _num(power, op, "power", 0, lo_open=power_lo_open),
            "normalized": _bool(normalized, op, "normalized"), "center": _bool(center, op, "center"),
            "pad_mode": _enum(pad_mode, BorderType, op, "pad_mode"), "onesided": _bool(onesided, op, "onesided")}


def _mel_spec(op, n_mels, sample_rate, f_min, f_max, norm, mel_type):
    sample_rate = _pos_int(sample_rate, op, "sample_rate")
    f_min = _num(f_min, op, "f_min")
    f_max = float(sample_rate // 2) if f_max is None else _num(f_max, op, "f_max", 0, lo_open=True)
    if f_min >= f_max:
        raise ValueError("%s: f_max (%r) must be more than f_min (%r)" % (op, f_max, f_min))
    return {"n_mels": _pos_int(n_mels, op, "n_mels"), "sample_rate": sample_rate, "f_min": f_min, "f_max": f_max,
            "norm": _enum(norm, NormType, op, "norm"), "mel_type": _enum(mel_type, MelType, op, "mel_type")}


# ---- spectral ----------------------------------------------------------------

class Spectrogram(_AudioOp):
    """<..., time> -> <..., n_fft // 2 + 1, frames>: |STFT|^power of each
    row (power 0: complex values as a last dimension of 2)."""

    def __init__(self, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN, power=2.0,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True) -> None:
        super().__init__("Spectrogram", **_stft_spec("Spectrogram", n_fft, win_length, hop_length, pad, window,
                                                     power, normalized, center, pad_mode, onesided, False))


class MelScale(_AudioOp):
    """<..., n_stft, time> -> <..., n_mels, time> through triangular mel
    filters (melscale_fbanks)."""

    def __init__(self, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, n_stft=201, norm=NormType.NONE,
                 mel_type=MelType.HTK) -> None:
        super().__init__("MelScale", n_stft=_pos_int(n_stft, "MelScale", "n_stft"),
                         **_mel_spec("MelScale", n_mels, sample_rate, f_min, f_max, norm, mel_type))


class MelSpectrogram(_AudioOp):
    """<..., time> -> <..., n_mels, frames>: Spectrogram, then MelScale."""

    def __init__(self, sample_rate=16000, n_fft=400, win_length=None, hop_length=None, f_min=0.0, f_max=None, pad=0,
                 n_mels=128, window=WindowType.HANN, power=2.0, normalized=False, center=True,
                 pad_mode=BorderType.REFLECT, onesided=True, norm=NormType.NONE, mel_scale=MelType.HTK) -> None:
        op = "MelSpectrogram"
        spec = _stft_spec(op, n_fft, win_length, hop_length, pad, window, power, normalized, center, pad_mode,
                          onesided, True)
        spec.update(_mel_spec(op, n_mels, sample_rate, f_min, f_max, norm, mel_scale))
        super().__init__(op, **spec)


_MELKWARGS = {"n_fft": 400, "win_length": None, "hop_length": None, "f_min": 0.0, "f_max": None, "pad": 0,
              "n_mels": 128, "window": WindowType.HANN, "power": 2.0, "normalized": False, "center": True,
              "pad_mode": BorderType.REFLECT, "onesided": True, "norm": NormType.NONE, "mel_scale": MelType.HTK}


class MFCC(_AudioOp):
    """<..., time> -> <..., n_mfcc, frames> (float32): the DCT of the mel
    spectrogram in decibels (log_mels: its natural log). melkwargs holds
    MelSpectrogram's arguments (those left out take their defaults)."""

    def __init__(self, sample_rate=16000, n_mfcc=40, dct_type=2, norm=NormMode.ORTHO, log_mels=False,
                 melkwargs=None) -> None:
        op = "MFCC"
        sample_rate = _pos_int(sample_rate, op, "sample_rate")
        n_mfcc = _pos_int(n_mfcc, op, "n_mfcc")
        if check_int(dct_type, op, "dct_type") != 2:
            raise ValueError("%s: dct_type must be 2, got %r" % (op, dct_type))
        if melkwargs is None:
            melkwargs = {}
        if not isinstance(melkwargs, dict):
            raise TypeError("%s: melkwargs must be a dict, got %r" % (op, melkwargs))
        unknown = sorted(set(melkwargs) - set(_MELKWARGS))
        if unknown:
            raise ValueError("%s: melkwargs has keys MelSpectrogram does not take: %s" % (op, ", ".join(unknown)))
        kw = dict(_MELKWARGS, **melkwargs)
        mel = _stft_spec(op, kw["n_fft"], kw["win_length"], kw["hop_length"], kw["pad"], kw["window"], kw["power"],
                         kw["normalized"], kw["center"], kw["pad_mode"], kw["onesided"], True)
        mel.update(_mel_spec(op, kw["n_mels"], sample_rate, kw["f_min"], kw["f_max"], kw["norm"], kw["mel_scale"]))
        del mel["sample_rate"]
        if mel["n_mels"] < n_mfcc:
            raise ValueError("%s: n_mels (%d) must be at least n_mfcc (%d)" % (op, mel["n_mels"], n_mfcc))
        super().__init__(op, sample_rate=sample_rate, n_mfcc=n_mfcc, norm=_enum(norm, NormMode, op, "norm"),
                         log_mels=_bool(log_mels, op, "log_mels"), mel=mel)


_SPECKWARGS = {"n_fft": 400, "win_length": None, "hop_length": None, "pad": 0, "window": WindowType.HANN,
               "power": 2.0, "normalized": False, "center": True, "pad_mode": BorderType.REFLECT, "onesided": True}


class LFCC(_AudioOp):
    """<..., time> -> <..., n_lfcc, frames> (float32): the DCT of the
    spectrogram through n_filter linear triangular filters, in decibels
    (log_lf: its natural log). speckwargs holds Spectrogram's arguments
    (those left out take their defaults)."""

    def __init__(self, sample_rate=16000, n_filter=128, n_lfcc=40, f_min=0.0, f_max=None, dct_type=2,
                 norm=NormMode.ORTHO, log_lf=False, speckwargs=None) -> None:
        op = "LFCC"
        sample_rate = _pos_int(sample_rate, op, "sample_rate")
        n_filter, n_lfcc = _pos_int(n_filter, op, "n_filter"), _pos_int(n_lfcc, op, "n_lfcc")
        f_min = _num(f_min, op, "f_min", 0)
        if f_max is None:
            if f_min >= sample_rate // 2:
                raise ValueError("%s: f_min (%r) must be below sample_rate // 2 when f_max is None" % (op, f_min))
            f_max = float(sample_rate // 2)
        f_max = _num(f_max, op, "f_max", 0)
        if f_min > f_max:
            raise ValueError("%s: f_max (%r) must be at least f_min (%r)" % (op, f_max, f_min))
        if check_int(dct_type, op, "dct_type") != 2:
            raise ValueError("%s: dct_type must be 2, got %r" % (op, dct_type))
        if speckwargs is None:
            speckwargs = {}
        if not isinstance(speckwargs, dict):
            raise TypeError("%s: speckwargs must be a dict, got %r" % (op, speckwargs))
        unknown = sorted(set(speckwargs) - set(_SPECKWARGS))
        if unknown:
            raise ValueError("%s: speckwargs has keys Spectrogram does not take: %s" % (op, ", ".join(unknown)))
        kw = dict(_SPECKWARGS, **speckwargs)
        spec = _stft_spec(op, kw["n_fft"], kw["win_length"], kw["hop_length"], kw["pad"], kw["window"], kw["power"],
                          kw["normalized"], kw["center"], kw["pad_mode"], kw["onesided"], True)
        if spec["n_fft"] < n_lfcc:
            raise ValueError("%s: n_fft (%d) must be at least n_lfcc (%d)" % (op, spec["n_fft"], n_lfcc))
        super().__init__(op, sample_rate=sample_rate, n_filter=n_filter, n_lfcc=n_lfcc, f_min=f_min, f_max=f_max,
                         norm=_enum(norm, NormMode, op, "norm"), log_lf=_bool(log_lf, op, "log_lf"), spec=spec)


class SpectralCentroid(_AudioOp):
    """<..., time> -> <..., 1, frames>: each frame's magnitude-weighted mean frequency."""

    def __init__(self, sample_rate, n_fft=400, win_length=None, hop_length=None, pad=0,
                 window=WindowType.HANN) -> None:
        op = "SpectralCentroid"
        spec = _stft_spec(op, n_fft, win_length, hop_length, pad, window, 1.0, False, True, BorderType.REFLECT, True,
                          True)
        super().__init__(op, sample_rate=_pos_int(sample_rate, op, "sample_rate"),
                         **{k: spec[k] for k in ("n_fft", "win_length", "hop_length", "pad", "window")})


class Resample(_AudioOp):
    """<..., time> at orig_freq -> at new_freq: band-limited sinc interpolation
    (torchaudio's and MindSpore's), ceil(length * new / orig) samples."""

    def __init__(self, orig_freq=16000, new_freq=16000, resample_method=ResampleMethod.SINC_INTERPOLATION,
                 lowpass_filter_width=6, rolloff=0.99, beta=None) -> None:
        op = "Resample"
        if isinstance(rolloff, bool) or not isinstance(rolloff, float):
            raise TypeError("%s: rolloff must be a float, got %r" % (op, rolloff))
        super().__init__(op, orig_freq=_num(orig_freq, op, "orig_freq", 0, lo_open=True),
                         new_freq=_num(new_freq, op, "new_freq", 0, lo_open=True),
                         resample_method=_enum(resample_method, ResampleMethod, op, "resample_method"),
                         lowpass_filter_width=_pos_int(lowpass_filter_width, op, "lowpass_filter_width"),
                         rolloff=_num(rolloff, op, "rolloff", 0, 1, lo_open=True),
                         beta=14.769656459379492 if beta is None else _num(beta, op, "beta", -500, 500))


class SlidingWindowCmn(_AudioOp):
    """Sliding-window cepstral mean (and variance) normalization of
    features <..., time, freq> (Kaldi's, as MindSpore's kernel reads them)."""

    def __init__(self, cmn_window=600, min_cmn_window=100, center=False, norm_vars=False) -> None:
        op = "SlidingWindowCmn"
        super().__init__(op, cmn_window=_nonneg_int(cmn_window, op, "cmn_window"),
                         min_cmn_window=_nonneg_int(min_cmn_window, op, "min_cmn_window"),
                         center=_bool(center, op, "center"), norm_vars=_bool(norm_vars, op, "norm_vars"))


class TimeStretch(_AudioOp):
    """A complex spectrogram <..., n_freq, time, 2> sped up by fixed_rate
    (phase vocoder): ceil(time / fixed_rate) frames; hop_length (default
    n_freq - 1) is the STFT's hop the phases advance by."""

    def __init__(self, hop_length=None, n_freq=201, fixed_rate=None) -> None:
        op = "TimeStretch"
        n_freq = _pos_int(n_freq, op, "n_freq")
        hop_length = n_freq - 1 if hop_length is None else _pos_int(hop_length, op, "hop_length")
        if hop_length == 0:
            raise ValueError("%s: hop_length must be given when n_freq is 1" % op)
        fixed_rate = 1.0 if fixed_rate is None else _num(fixed_rate, op, "fixed_rate", 0, lo_open=True)
        super().__init__(op, hop_length=hop_length, n_freq=n_freq, fixed_rate=fixed_rate)


class InverseSpectrogram(_AudioOp):
    """A complex spectrogram <..., freq, time, 2> back to a waveform
    <..., samples> (inverse STFT, overlap-add); `length` cuts or zero-pads
    to that many samples."""

    def __init__(self, length=None, n_fft=400, win_length=None, hop_length=None, pad=0, window=WindowType.HANN,
                 normalized=False, center=True, pad_mode=BorderType.REFLECT, onesided=True) -> None:
        op = "InverseSpectrogram"
        spec = _stft_spec(op, n_fft, win_length, hop_length, pad, window, 0, normalized, center, pad_mode, onesided,
                          False)
        del spec["power"]
        super().__init__(op, length=-1 if length is None else _nonneg_int(length, op, "length"), **spec)


class GriffinLim(_AudioOp):
    """A magnitude (power) spectrogram <..., freq, time> back to a waveform
    by fast Griffin-Lim phase recovery (n_iter rounds of inverse STFT and
    STFT with momentum); rand_init draws the starting phases from the row's
    seed."""

    def __init__(self, n_fft=400, n_iter=32, win_length=None, hop_length=None, window_type=WindowType.HANN,
                 power=2.0, momentum=0.99, length=None, rand_init=True) -> None:
        op = "GriffinLim"
        win_length = win_length or None
        hop_length = hop_length or None
        spec = _stft_spec(op, n_fft, win_length, hop_length, 0, window_type, power, False, True, BorderType.REFLECT,
                          True, True)
        super().__init__(op, n_fft=spec["n_fft"], n_iter=check_int(n_iter, op, "n_iter", 1, 1 << 16),
                         win_length=spec["win_length"], hop_length=spec["hop_length"], window=spec["window"],
                         power=spec["power"], momentum=_num(momentum, op, "momentum", 0),
                         length=-1 if not length else _nonneg_int(length, op, "length"),
                         rand_init=_bool(rand_init, op, "rand_init"))


class PitchShift(_AudioOp):
    """Moves the pitch of waveforms <..., time> by n_steps / bins_per_octave
    octaves, keeping their length (phase vocoder, then resampling)."""

    def __init__(self, sample_rate, n_steps, bins_per_octave=12, n_fft=512, win_length=None, hop_length=None,
                 window=WindowType.HANN) -> None:
        op = "PitchShift"
        if check_int(bins_per_octave, op, "bins_per_octave", -_INT32_MAX - 1, _INT32_MAX) == 0:
            raise ValueError("%s: bins_per_octave must not be 0" % op)
        win_length = win_length if win_length is not None else n_fft
        hop_length = hop_length if hop_length is not None else win_length // 4
        spec = _stft_spec(op, n_fft, win_length, hop_length, 0, window, 2.0, False, True, BorderType.REFLECT, True,
                          False)
        super().__init__(op, sample_rate=_pos_int(sample_rate, op, "sample_rate"),
                         n_steps=check_int(n_steps, op, "n_steps", -_INT32_MAX - 1, _INT32_MAX),
                         bins_per_octave=bins_per_octave,
                         **{k: spec[k] for k in ("n_fft", "win_length", "hop_length", "window")})


# ---- scales and complex values -------------------------------------------------

class AmplitudeToDB(_AudioOp):
    """Power (or magnitude) to decibels, at most top_db below each
    spectrogram's maximum."""

    def __init__(self, stype=ScaleType.POWER, ref_value=1.0, amin=1e-10, top_db=80.0) -> None:
        op = "AmplitudeToDB"
        stype = "magnitude" if _enum(stype, ScaleType, op, "stype") == "mag" else "power"
        super().__init__(op, stype=stype, ref_value=_num(ref_value, op, "ref_value", 0, lo_open=True),
                         amin=_num(amin, op, "amin", 0, lo_open=True),
                         top_db=_num(top_db, op, "top_db", 0, lo_open=True))


class DBToAmplitude(_AudioOp):
    """Decibels back to power (power=1) or amplitude (power=0.5): ref * 10^(x / 10 * power)."""

    def __init__(self, ref, power) -> None:
        super().__init__("DBToAmplitude", ref=_num(ref, "DBToAmplitude", "ref"),
                         power=_num(power, "DBToAmplitude", "power"))


class ComplexNorm(_AudioOp):
    """<..., 2> ([re, im]) -> |z|^power."""

    def __init__(self, power=1.0) -> None:
        super().__init__("ComplexNorm", power=_num(power, "ComplexNorm", "power", 0))


class Angle(_AudioOp):
    """<..., 2> ([re, im]) -> the angle atan2(im, re)."""

    def __init__(self) -> None:
        super().__init__("Angle")


class Magphase(_AudioOp):
    """<..., 2> ([re, im]) -> two columns: |z|^power and the angle."""
    _gives = 2

    def __init__(self, power=1.0) -> None:
        super().__init__("Magphase", power=_num(power, "Magphase", "power", 0))


# ---- masks ---------------------------------------------------------------------

def _masking(op, iid_masks, param_name, mask_param, mask_start, mask_value):
    return {"iid_masks": _bool(iid_masks, op, "iid_masks"),
            param_name: check_int(mask_param, op, param_name, 0, _FLOAT32_MAX),
            "mask_start": check_int(mask_start, op, "mask_start", 0, _FLOAT32_MAX),
            "mask_value": _num(mask_value, op, "mask_value", 0)}


class TimeMasking(_AudioOp):
    """Sets time steps [mask_start, mask_start + time_mask_param) of
    <..., freq, time> to mask_value; iid_masks: a width drawn from
    [0, time_mask_param] at a start drawn per row."""

    def __init__(self, iid_masks=False, time_mask_param=0, mask_start=0, mask_value=0.0) -> None:
        super().__init__("TimeMasking", **_masking("TimeMasking", iid_masks, "time_mask_param", time_mask_param,
                                                   mask_start, mask_value))


class FrequencyMasking(_AudioOp):
    """As TimeMasking, along the frequency axis."""

    def __init__(self, iid_masks=False, freq_mask_param=0, mask_start=0, mask_value=0.0) -> None:
        super().__init__("FrequencyMasking", **_masking("FrequencyMasking", iid_masks, "freq_mask_param",
                                                        freq_mask_param, mask_start, mask_value))


def _axis(axis, op):
    return check_int(axis, op, "axis", 1, 2)


class MaskAlongAxis(_AudioOp):
    """Sets [mask_start, mask_start + mask_width) along axis 1 (frequency)
    or 2 (time) of <..., freq, time> to mask_value."""

    def __init__(self, mask_start, mask_width, mask_value, axis) -> None:
        op = "MaskAlongAxis"
        super().__init__(op, mask_start=_nonneg_int(mask_start, op, "mask_start"),
                         mask_width=_pos_int(mask_width, op, "mask_width"),
                         mask_value=_num(mask_value, op, "mask_value"), axis=_axis(axis, op))


class MaskAlongAxisIID(_AudioOp):
    """A mask of a width drawn from [0, mask_param] at a random start along
    axis 1 (frequency) or 2 (time)."""

    def __init__(self, mask_param, mask_value, axis) -> None:
        op = "MaskAlongAxisIID"
        super().__init__(op, mask_param=_nonneg_int(mask_param, op, "mask_param"),
                         mask_value=_num(mask_value, op, "mask_value"), axis=_axis(axis, op))


# ---- levels --------------------------------------------------------------------

class Gain(_AudioOp):
    """Amplifies by gain_db decibels (no clamping)."""

    def __init__(self, gain_db=1.0) -> None:
        super().__init__("Gain", gain_db=_num(gain_db, "Gain", "gain_db"))


class Vol(_AudioOp):
    """Scales by an amplitude ratio, a power ratio or decibels, clamped to [-1, 1]."""

    def __init__(self, gain, gain_type=GainType.AMPLITUDE) -> None:
        op = "Vol"
        gain_type = _enum(gain_type, GainType, op, "gain_type")
        if gain_type == "amplitude":
            gain = _num(gain, op, "gain", 0)
        elif gain_type == "power":
            gain = _num(gain, op, "gain", 0, lo_open=True)
        else:
            gain = _num(gain, op, "gain")
        super().__init__(op, gain=gain, gain_type=gain_type)


class DCShift(_AudioOp):
    """Adds `shift` (in [-2, 2]), clamped to [-1, 1]; limiter_gain (other
    than shift) compresses the peaks it pushes past the threshold instead."""

    def __init__(self, shift, limiter_gain=None) -> None:
        op = "DCShift"
        shift = _num(shift, op, "shift", -2.0, 2.0)
        limiter_gain = shift if limiter_gain is None else _num(limiter_gain, op, "limiter_gain")
        super().__init__(op, shift=shift, limiter_gain=limiter_gain or shift)


class Fade(_AudioOp):
    """Fades each row in over its first fade_in_len samples and out over its last fade_out_len."""

    def __init__(self, fade_in_len=0, fade_out_len=0, fade_shape=FadeShape.LINEAR) -> None:
        op = "Fade"
        super().__init__(op, fade_in_len=_nonneg_int(fade_in_len, op, "fade_in_len"),
                         fade_out_len=_nonneg_int(fade_out_len, op, "fade_out_len"),
                         fade_shape=_enum(fade_shape, FadeShape, op, "fade_shape"))


class MuLawEncoding(_AudioOp):
    """Waveform in [-1, 1] -> mu-law codes in [0, quantization_channels) (int32)."""

    def __init__(self, quantization_channels=256) -> None:
        super().__init__("MuLawEncoding",
                         quantization_channels=_pos_int(quantization_channels, "MuLawEncoding", "quantization_channels"))


class MuLawDecoding(_AudioOp):
    """Mu-law codes -> waveform in [-1, 1]."""

    def __init__(self, quantization_channels=256) -> None:
        super().__init__("MuLawDecoding",
                         quantization_channels=_pos_int(quantization_channels, "MuLawDecoding", "quantization_channels"))


class ComputeDeltas(_AudioOp):
    """The delta (local slope over win_length steps) of each row of <..., freq, time>."""

    def __init__(self, win_length=5, pad_mode=BorderType.EDGE) -> None:
        op = "ComputeDeltas"
        super().__init__(op, win_length=check_int(win_length, op, "win_length", 3, _INT32_MAX),
                         pad_mode=_enum(pad_mode, BorderType, op, "pad_mode"))


# ---- filters -------------------------------------------------------------------

def _coeffs(values, op, name):
    if not isinstance(values, (list, tuple)):
        raise TypeError("%s: %s must be a list or tuple of numbers, got %r" % (op, name, values))
    return [_num(v, op, "%s[%d]" % (name, i)) for i, v in enumerate(values)]


class LFilter(_AudioOp):
    """The IIR filter b / a over each row (zero initial state); clamp: the
    output clamped to [-1, 1]."""

    def __init__(self, a_coeffs, b_coeffs, clamp=True) -> None:
        op = type(self).__name__
        a, b = _coeffs(a_coeffs, op, "a_coeffs"), _coeffs(b_coeffs, op, "b_coeffs")
        if len(a) != len(b) or not a:
            raise ValueError("%s: a_coeffs and b_coeffs must be of one non-zero length, got %d and %d"
                             % (op, len(a), len(b)))
        if a[0] == 0:
            raise ValueError("%s: a_coeffs[0] must not be 0" % op)
        super().__init__(op, a_coeffs=a, b_coeffs=b, clamp=_bool(clamp, op, "clamp"))


class Filtfilt(LFilter):
    """LFilter forwards, then backwards (zero phase)."""


class Biquad(_AudioOp):
    """The biquad b0..b2 / a0..a2 over each row, clamped to [-1, 1]."""

    def __init__(self, b0, b1, b2, a0, a1, a2) -> None:
        op = "Biquad"
        super().__init__(op, b0=_num(b0, op, "b0"), b1=_num(b1, op, "b1"), b2=_num(b2, op, "b2"),
                         a0=_num(a0, op, "a0", nonzero=True), a1=_num(a1, op, "a1"), a2=_num(a2, op, "a2"))


def _rate(sample_rate, op):
    if isinstance(sample_rate, bool) or not isinstance(sample_rate, numbers.Integral):
        raise TypeError("%s: sample_rate must be an int, got %r" % (op, sample_rate))
    if sample_rate == 0 or not -2 ** 31 <= sample_rate <= _INT32_MAX:
        raise ValueError("%s: sample_rate must be a non-zero int32, got %r" % (op, sample_rate))
    return int(sample_rate)


def _q(value, op):
    return _num(value, op, "Q", 0, 1, lo_open=True)


class _FreqBiquad(_AudioOp):
    _freq = "central_freq"

    def __init__(self, sample_rate, freq, Q, **extra):  # noqa: N803 (MindSpore's name)
        op = type(self).__name__
        super().__init__(op, sample_rate=_rate(sample_rate, op), Q=_q(Q, op), **{self._freq: _num(freq, op, self._freq)},
                         **extra)


class AllpassBiquad(_FreqBiquad):
    """Two-pole all-pass filter (SoX's allpass)."""

    def __init__(self, sample_rate, central_freq, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q)


class BandBiquad(_FreqBiquad):
    """Two-pole band-pass filter (SoX's band); noise: the mode for unpitched audio."""

    def __init__(self, sample_rate, central_freq, Q=0.707, noise=False) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, noise=_bool(noise, "BandBiquad", "noise"))


class BandpassBiquad(_FreqBiquad):
    """Two-pole Butterworth band-pass filter; const_skirt_gain: peak gain Q."""

    def __init__(self, sample_rate, central_freq, Q=0.707, const_skirt_gain=False) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q,
                         const_skirt_gain=_bool(const_skirt_gain, "BandpassBiquad", "const_skirt_gain"))


class BandrejectBiquad(_FreqBiquad):
    """Two-pole Butterworth band-reject filter."""

    def __init__(self, sample_rate, central_freq, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q)


class LowpassBiquad(_FreqBiquad):
    """Two-pole low-pass filter."""
    _freq = "cutoff_freq"

    def __init__(self, sample_rate, cutoff_freq, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, cutoff_freq, Q)


class HighpassBiquad(_FreqBiquad):
    """Two-pole high-pass filter."""
    _freq = "cutoff_freq"

    def __init__(self, sample_rate, cutoff_freq, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, cutoff_freq, Q)


class EqualizerBiquad(_FreqBiquad):
    """Two-pole peaking equalizer: `gain` dB at center_freq."""
    _freq = "center_freq"

    def __init__(self, sample_rate, center_freq, gain, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, center_freq, Q, gain=_num(gain, "EqualizerBiquad", "gain"))


class BassBiquad(_FreqBiquad):
    """Bass tone control (low shelf): `gain` dB below central_freq."""

    def __init__(self, sample_rate, gain, central_freq=100.0, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, gain=_num(gain, "BassBiquad", "gain"))


class TrebleBiquad(_FreqBiquad):
    """Treble tone control (high shelf): `gain` dB above central_freq."""

    def __init__(self, sample_rate, gain, central_freq=3000.0, Q=0.707) -> None:  # noqa: N803
        super().__init__(sample_rate, central_freq, Q, gain=_num(gain, "TrebleBiquad", "gain"))


class DeemphBiquad(_AudioOp):
    """CD de-emphasis (SoX's deemph) at 44100 or 48000 Hz."""

    def __init__(self, sample_rate) -> None:
        if _rate(sample_rate, "DeemphBiquad") not in (44100, 48000):
            raise ValueError("DeemphBiquad: sample_rate must be 44100 or 48000, got %r" % (sample_rate,))
        super().__init__("DeemphBiquad", sample_rate=sample_rate)


class RiaaBiquad(_AudioOp):
    """RIAA vinyl playback equalization at 44100, 48000, 88200 or 96000 Hz."""

    def __init__(self, sample_rate) -> None:
        if _rate(sample_rate, "RiaaBiquad") not in (44100, 48000, 88200, 96000):
            raise ValueError("RiaaBiquad: sample_rate must be one of 44100, 48000, 88200, 96000, got %r"
                             % (sample_rate,))
        super().__init__("RiaaBiquad", sample_rate=sample_rate)


# ---- SoX effects, dither, pitch --------------------------------------------

def _effect_rate(sample_rate, op):
    rate = _rate(sample_rate, op)
    if not 1 <= rate <= 2 ** 24:
        raise ValueError("%s: sample_rate must be in [1, 16777216], got %r" % (op, sample_rate))
    return rate


class Contrast(_AudioOp):
    """sin(t + a sin 4t) with t = x pi/2 and a = enhancement_amount / 750:
    louder-sounding audio, as SoX's contrast."""

    def __init__(self, enhancement_amount=75.0) -> None:
        super().__init__("Contrast", enhancement_amount=_num(enhancement_amount, "Contrast", "enhancement_amount", 0,
                                                             100))


class Overdrive(_AudioOp):
    """SoX's overdrive: a soft clipper on the input raised by `gain` dB,
    `color` adding even harmonics; clamped to [-1, 1]."""

    def __init__(self, gain=20.0, color=20.0) -> None:
        super().__init__("Overdrive", gain=_num(gain, "Overdrive", "gain", 0, 100),
                         color=_num(color, "Overdrive", "color", 0, 100))


class Phaser(_AudioOp):
    """SoX's phaser: a feedback delay line whose tap a sine (or triangle) at
    mod_speed Hz sweeps over delay_ms; clamped to [-1, 1]."""

    def __init__(self, sample_rate, gain_in=0.4, gain_out=0.74, delay_ms=3.0, decay=0.4, mod_speed=0.5,
                 sinusoidal=True) -> None:
        op = "Phaser"
        super().__init__(op, sample_rate=_effect_rate(sample_rate, op), gain_in=_num(gain_in, op, "gain_in", 0, 1),
                         gain_out=_num(gain_out, op, "gain_out", 0, 1e9),
                         delay_ms=_num(delay_ms, op, "delay_ms", 0, 5.0), decay=_num(decay, op, "decay", 0, 0.99),
                         mod_speed=_num(mod_speed, op, "mod_speed", 0.1, 2),
                         sinusoidal=_bool(sinusoidal, op, "sinusoidal"))


class Flanger(_AudioOp):
    """SoX's flanger over <..., channel (at most 4), time>: a swept delay of
    delay to delay + depth ms mixed in by `width` percent, `regen` percent
    fed back; the input's type comes back (integers: -1, 0 or 1, as
    MindSpore's)."""

    def __init__(self, sample_rate, delay=0.0, depth=2.0, regen=0.0, width=71.0, speed=0.5, phase=25.0,
                 modulation=Modulation.SINUSOIDAL, interpolation=Interpolation.LINEAR) -> None:
        op = "Flanger"
        super().__init__(op, sample_rate=_effect_rate(sample_rate, op), delay=_num(delay, op, "delay", 0, 30),
                         depth=_num(depth, op, "depth", 0, 10), regen=_num(regen, op, "regen", -95, 95),
                         width=_num(width, op, "width", 0, 100), speed=_num(speed, op, "speed", 0.1, 10),
                         phase=_num(phase, op, "phase", 0, 100),
                         modulation=_enum(modulation, Modulation, op, "modulation"),
                         interpolation=_enum(interpolation, Interpolation, op, "interpolation"))


class Dither(_AudioOp):
    """Quantizes to 16 bits with dither noise: TPDF is MindSpore's
    (a Bartlett window over the row, the same values); RPDF (uniform) and
    GPDF (normal) draw per-sample noise from the row's seed. noise_shaping
    feeds each sample's error into the next."""

    def __init__(self, density_function=DensityFunction.TPDF, noise_shaping=False) -> None:
        op = "Dither"
        super().__init__(op, density_function=_enum(density_function, DensityFunction, op, "density_function"),
                         noise_shaping=_bool(noise_shaping, op, "noise_shaping"))


class PhaseVocoder(_AudioOp):
    """A complex spectrogram <..., freq, time, 2> sped up by `rate` with
    each bin's expected phase advance per frame given: phase_advance, a
    numpy array of shape (freq, 1)."""

    def __init__(self, rate, phase_advance) -> None:
        op = "PhaseVocoder"
        rate = _num(rate, op, "rate", 0, lo_open=True)
        if not isinstance(phase_advance, np.ndarray):
            raise TypeError("%s: phase_advance must be a numpy array of shape (freq, 1), got %r"
                            % (op, type(phase_advance).__name__))
        if phase_advance.ndim != 2 or phase_advance.shape[1] != 1 or phase_advance.shape[0] == 0:
            raise ValueError("%s: phase_advance must be of shape (freq, 1), got %s" % (op, phase_advance.shape))
        if not np.issubdtype(phase_advance.dtype, np.number) or not np.all(np.isfinite(phase_advance)):
            raise ValueError("%s: phase_advance must hold finite numbers" % op)
        super().__init__(op, rate=rate, phase_advance=[float(v) for v in phase_advance[:, 0]])


class DetectPitchFrequency(_AudioOp):
    """The pitch of each frame_time-second frame of <..., time> in Hz
    (normalized cross-correlation between freq_low and freq_high, a median
    over win_length frames), float32 <..., frames'>."""

    def __init__(self, sample_rate, frame_time=0.01, win_length=30, freq_low=85, freq_high=3400) -> None:
        op = "DetectPitchFrequency"
        rate = _rate(sample_rate, op)
        if rate < 1:
            raise ValueError("%s: sample_rate must be > 0, got %r" % (op, sample_rate))
        super().__init__(op, sample_rate=rate, frame_time=_num(frame_time, op, "frame_time", 0, lo_open=True),
                         win_length=_pos_int(win_length, op, "win_length"),
                         freq_low=check_int(freq_low, op, "freq_low", 1, _FLOAT32_MAX),
                         freq_high=check_int(freq_high, op, "freq_high", 1, _FLOAT32_MAX))


class InverseMelScale(_AudioOp):
    """A mel spectrogram <..., n_mels, time> back to a linear one
    <..., n_stft, time> by gradient descent from a random start (the row's
    seed) on the squared error through MelScale's filters; sgdargs:
    {"sgd_lr": 0.1, "sgd_momentum": 0.9}."""

    def __init__(self, n_stft, n_mels=128, sample_rate=16000, f_min=0.0, f_max=None, max_iter=100000,
                 tolerance_loss=1e-5, tolerance_change=1e-8, sgdargs=None, norm=NormType.NONE,
                 mel_type=MelType.HTK) -> None:
        op = "InverseMelScale"
        mel = _mel_spec(op, n_mels, sample_rate, f_min, f_max, norm, mel_type)
        n_stft = _pos_int(n_stft, op, "n_stft")
        if n_stft == 1:
            raise ValueError("%s: n_stft must be at least 2, got 1" % op)
        sgdargs = {"sgd_lr": 0.1, "sgd_momentum": 0.9} if sgdargs is None else sgdargs
        if not isinstance(sgdargs, dict):
            raise TypeError("%s: sgdargs must be a dict, got %r" % (op, sgdargs))
        unknown = sorted(set(sgdargs) - {"sgd_lr", "sgd_momentum"})
        if unknown:
            raise ValueError("%s: sgdargs takes 'sgd_lr' and 'sgd_momentum', got %r" % (op, unknown))
        for key in ("sgd_lr", "sgd_momentum"):
            if key not in sgdargs:
                raise KeyError(key)
        super().__init__(op, n_stft=n_stft, max_iter=_pos_int(max_iter, op, "max_iter"),
                         tolerance_loss=_num(tolerance_loss, op, "tolerance_loss", 0, lo_open=True),
                         tolerance_change=_num(tolerance_change, op, "tolerance_change", 0, lo_open=True),
                         sgd_lr=_num(sgdargs["sgd_lr"], op, "sgd_lr", 0),
                         sgd_momentum=_num(sgdargs["sgd_momentum"], op, "sgd_momentum", 0), **mel)


class Vad(_AudioOp):
    """Voice activity detection (SoX's vad): trims the silence and quiet
    background before speech from the front of <..., time>, all rows at the
    earliest trigger. Trim the end by reversing, Vad, reversing back."""

    def __init__(self, sample_rate, trigger_level=7.0, trigger_time=0.25, search_time=1.0, allowed_gap=0.25,
                 pre_trigger_time=0.0, boot_time=0.35, noise_up_time=0.1, noise_down_time=0.01,
                 noise_reduction_amount=1.35, measure_freq=20.0, measure_duration=None, measure_smooth_time=0.4,
                 hp_filter_freq=50.0, lp_filter_freq=6000.0, hp_lifter_freq=150.0, lp_lifter_freq=2000.0) -> None:
        op = "Vad"
        rate = _pos_int(sample_rate, op, "sample_rate")
        spec = {"trigger_level": _num(trigger_level, op, "trigger_level")}
        for name, value in (("trigger_time", trigger_time), ("search_time", search_time),
                            ("allowed_gap", allowed_gap), ("pre_trigger_time", pre_trigger_time),
                            ("boot_time", boot_time), ("noise_up_time", noise_up_time),
                            ("noise_down_time", noise_down_time), ("noise_reduction_amount", noise_reduction_amount),
                            ("measure_smooth_time", measure_smooth_time)):
            spec[name] = _num(value, op, name, 0)
        if spec["noise_up_time"] < spec["noise_down_time"]:
            raise ValueError("%s: noise_up_time must be at least noise_down_time, got %r and %r"
                             % (op, noise_up_time, noise_down_time))
        for name, value in (("measure_freq", measure_freq), ("hp_filter_freq", hp_filter_freq),
                            ("lp_filter_freq", lp_filter_freq), ("hp_lifter_freq", hp_lifter_freq),
                            ("lp_lifter_freq", lp_lifter_freq)):
            spec[name] = _num(value, op, name, 0, lo_open=True)
        # MindSpore's: None or 0 is twice the measurement period.
        spec["measure_duration"] = (_num(measure_duration, op, "measure_duration", 0) if measure_duration else
                                    2.0 / spec["measure_freq"])
        super().__init__(op, sample_rate=rate, **spec)


# ---- utils -----------------------------------------------------------------------

def _fbank_args(op, n_freqs, f_min, f_max, n, n_name, sample_rate):
    n_freqs = _nonneg_int(n_freqs, op, "n_freqs")
    f_min = _num(f_min, op, "f_min", 0)
    f_max = _num(f_max, op, "f_max", 0, lo_open=True)
    if f_min > f_max:
        raise ValueError("%s: f_min (%r) must be at most f_max (%r)" % (op, f_min, f_max))
    return {"n_freqs": n_freqs, "f_min": float_json(f_min), "f_max": float_json(f_max),
            n_name: _pos_int(n, op, n_name), "sample_rate": _pos_int(sample_rate, op, "sample_rate")}


def melscale_fbanks(n_freqs, f_min, f_max, n_mels, sample_rate, norm=NormType.NONE, mel_type=MelType.HTK):
    """The triangular mel filters MelScale applies: float32 [n_freqs, n_mels]."""
    op = "melscale_fbanks"
    request = _fbank_args(op, n_freqs, f_min, f_max, n_mels, "n_mels", sample_rate)
    request.update(matrix=op, norm=_enum(norm, NormType, op, "norm"), mel_type=_enum(mel_type, MelType, op, "mel_type"))
    return _core.audio_matrix(json.dumps(request))


def linear_fbanks(n_freqs, f_min, f_max, n_filter, sample_rate):
    """Triangular filters evenly spaced in Hz: float32 [n_freqs, n_filter]."""
    request = _fbank_args("linear_fbanks", n_freqs, f_min, f_max, n_filter, "n_filter", sample_rate)
    request["matrix"] = "linear_fbanks"
    return _core.audio_matrix(json.dumps(request))


def create_dct(n_mfcc, n_mels, norm=NormMode.NONE):
    """The DCT-II matrix MFCC applies: float32 [n_mels, n_mfcc]."""
    op = "create_dct"
    if isinstance(n_mfcc, bool) or not isinstance(n_mfcc, numbers.Integral):
        raise TypeError("%s: n_mfcc must be an int, got %r" % (op, n_mfcc))
    if isinstance(n_mels, bool) or not isinstance(n_mels, numbers.Integral):
        raise TypeError("%s: n_mels must be an int, got %r" % (op, n_mels))
    request = {"matrix": op, "n_mfcc": check_int(n_mfcc, op, "n_mfcc", 1, _INT32_MAX),
               "n_mels": check_int(n_mels, op, "n_mels", 1, _INT32_MAX), "norm": _enum(norm, NormMode, op, "norm")}
    return _core.audio_matrix(json.dumps(request))


# MindSpore's mindspore.dataset.audio.utils names (audio.utils.ScaleType.POWER in some scripts).
utils = SimpleNamespace(BorderType=BorderType, FadeShape=FadeShape, GainType=GainType, MelType=MelType,
                        NormMode=NormMode, NormType=NormType, ResampleMethod=ResampleMethod, ScaleType=ScaleType,
                        WindowType=WindowType,
                        create_dct=create_dct, linear_fbanks=linear_fbanks, melscale_fbanks=melscale_fbanks)
