"""MindSpore's audio datasets over the same pipeline as MindDataset:
YesNoDataset, SpeechCommandsDataset, LJSpeechDataset, CMUArcticDataset,
GTZANDataset, LibriTTSDataset, TedliumDataset (MindSpore 2.x arguments,
columns and row order).

Each is a MindDataset whose execution tree starts at an "audio" leaf (the C++
AudioSource, pipeline/nodes/audio_source.h): the folder is listed when the
dataset is made, and each row's sound file is decoded (libsndfile) by the
pipeline's worker threads. map (with mindrecord.audio's transforms), batch,
the combinators, samplers, sharding, state_dict() resume and mindrecord.torch
work as on MindDataset.

Columns: "waveform" float32 of shape (channels, frames) (MindSpore: (1, N),
the same for the mono files these datasets hold; MindSpore reads a stereo
file as one interleaved channel), "sample_rate" int32, then the dataset's
own. 16-bit samples are divided by 32767, as MindSpore's reader does; 8-,
24-, 32-bit and float WAV files decode correctly (MindSpore's reader
assumes 16-bit). MindSpore's uint32 columns are int32 (same values).
Differences from MindSpore, where its result is wrong or depends on the
filesystem: folders are read in sorted order where MindSpore takes the
directory's listing order (YesNo, GTZAN "all", LibriTTS); TedliumDataset
returns the segment's samples (MindSpore's are all zeros); a truncated or
malformed sound file is an error naming it (MindSpore zero-fills or reads
garbage); get_dataset_size() counts the usage's rows (MindSpore's
SpeechCommandsDataset counts all).

Thread safety: as MindDataset.
"""
from mindrecord.raw_datasets import _RawDataset

__all__ = ["YesNoDataset", "SpeechCommandsDataset", "LJSpeechDataset", "CMUArcticDataset", "GTZANDataset",
           "LibriTTSDataset", "TedliumDataset"]

_CMU_ARCTIC_NAMES = ["aew", "ahw", "aup", "awb", "axb", "bdl", "clb", "eey", "fem", "gka", "jmk", "ksp", "ljm", "lnh",
                     "rms", "rxr", "slp", "slt"]
_LIBRITTS_USAGES = ["dev-clean", "dev-other", "test-clean", "test-other", "train-clean-100", "train-clean-360",
                    "train-other-500", "all"]


def _choice(name, value, valid):
    """MindSpore's check_valid_str: TypeError for a non-str, ValueError
    outside `valid`."""
    if not isinstance(value, str):
        raise TypeError("Argument %s with value %r is not of type [<class 'str'>], but got %s." %
                        (name, value, type(value)))
    if value not in valid:
        raise ValueError("Input %s is not within the valid set of %s." % (name, str(valid)))
    return value


class _AudioDataset(_RawDataset):
    def _init_audio(self, name, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache,
                    seed):
        leaf = dict(leaf, node="audio")
        self._init_raw(name, leaf, num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache,
                       seed)


class YesNoDataset(_AudioDataset):
    """mindspore.dataset.YesNoDataset: the .wav files of `dataset_dir` (sorted
    by name), columns [waveform, sample_rate, label]; `label` int32 [8], the
    numbers of the file name (0_1_0_0_1_0_1_1.wav)."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        self._init_audio("YesNoDataset", {"format": "yesno", "dataset_dir": dataset_dir}, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class SpeechCommandsDataset(_AudioDataset):
    """mindspore.dataset.SpeechCommandsDataset: LABEL/SPEAKER_nohash_N.wav
    (sorted by path; _background_noise_ left out), columns [waveform,
    sample_rate, label, speaker_id, utterance_number]. `usage`: "test" the
    files testing_list.txt names, "valid" validation_list.txt's, "train" the
    others, "all" (None) every one."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("usage", "all" if usage is None else usage, ["train", "test", "valid", "all"])
        self._init_audio("SpeechCommandsDataset", {"format": "speechcommands", "dataset_dir": dataset_dir,
                                                   "usage": usage},
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class LJSpeechDataset(_AudioDataset):
    """mindspore.dataset.LJSpeechDataset: metadata.csv's lines
    ID|transcription|normalized transcription, in order, the audio
    wavs/ID.wav; columns [waveform, sample_rate, transcription,
    normalized_transcription]."""

    def __init__(self, dataset_dir, num_samples=None, num_parallel_workers=None, shuffle=None, sampler=None,
                 num_shards=None, shard_id=None, cache=None, *, seed=None):
        self._init_audio("LJSpeechDataset", {"format": "ljspeech", "dataset_dir": dataset_dir}, num_samples,
                         num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class CMUArcticDataset(_AudioDataset):
    """mindspore.dataset.CMUArcticDataset: speaker `name` (default "aew"):
    cmu_us_NAME_arctic/etc/txt.done.data's prompts in order, the audio
    cmu_us_NAME_arctic/wav/ID.wav (16 kHz); columns [waveform, sample_rate,
    transcript, utterance_id]."""

    def __init__(self, dataset_dir, name=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        name = _choice("name", "aew" if name is None else name, _CMU_ARCTIC_NAMES)
        self._init_audio("CMUArcticDataset", {"format": "cmuarctic", "dataset_dir": dataset_dir, "name": name},
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class GTZANDataset(_AudioDataset):
    """mindspore.dataset.GTZANDataset: GENRE/GENRE.NNNNN.wav (22.05 kHz),
    columns [waveform, sample_rate, label]. `usage` "train", "valid", "test":
    the filtered splits (443 / 197 / 290 tracks; those present), "all" (None):
    every file of the ten genre folders."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("usage", "all" if usage is None else usage, ["train", "valid", "test", "all"])
        self._init_audio("GTZANDataset", {"format": "gtzan", "dataset_dir": dataset_dir, "usage": usage},
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class LibriTTSDataset(_AudioDataset):
    """mindspore.dataset.LibriTTSDataset: the subset `usage` (None: "all",
    the seven in order): SPEAKER/CHAPTER/*.trans.tsv's lines in order, the
    audio SPEAKER/CHAPTER/ID.wav (24 kHz); columns [waveform, sample_rate,
    original_text, normalized_text, speaker_id, chapter_id, utterance_id]."""

    def __init__(self, dataset_dir, usage=None, num_samples=None, num_parallel_workers=None, shuffle=None,
                 sampler=None, num_shards=None, shard_id=None, cache=None, *, seed=None):
        usage = _choice("usage", "all" if usage is None else usage, _LIBRITTS_USAGES)
        self._init_audio("LibriTTSDataset", {"format": "libritts", "dataset_dir": dataset_dir, "usage": usage},
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)


class TedliumDataset(_AudioDataset):
    """mindspore.dataset.TedliumDataset: `release` "release1" / "release2"
    (USAGE/stm, USAGE/sph; `usage` "train", "test", "dev" or "all") or
    "release3" (data/stm, data/sph; usage "all"); one row per STM segment,
    its samples cut from the talk's .sph file; columns [waveform,
    sample_rate, transcript, talk_id, speaker_id, identifier]. Row order is
    MindSpore's: by the segment's line index (as a string), talk, usage."""

    def __init__(self, dataset_dir, release, usage=None, extensions=None, num_samples=None,
                 num_parallel_workers=None, shuffle=None, sampler=None, num_shards=None, shard_id=None, cache=None, *,
                 seed=None):
        release = _choice("release", release, ["release1", "release2", "release3"])
        valid = ["all"] if release == "release3" else ["train", "test", "dev", "all"]
        usage = _choice("usage", "all" if usage is None else usage, valid)
        extensions = ".sph" if extensions is None else extensions
        if extensions != ".sph":
            raise ValueError("TedliumDataset: extension %r is not supported; only '.sph'" % (extensions,))
        self._init_audio("TedliumDataset", {"format": "tedlium", "dataset_dir": dataset_dir, "release": release,
                                            "usage": usage, "extensions": extensions},
                         num_samples, num_parallel_workers, shuffle, sampler, num_shards, shard_id, cache, seed)
