"""MindSpore's audio datasets (mindrecord.YesNoDataset, ...): folders laid out
as MindSpore's test data (tests/ut/data/dataset/test*Data), written here with
known samples, read through the Python API: MindSpore's columns, row order,
usages, sample values (int16 / 32767 as MindSpore's reader), the pipeline
around them (map with an audio transform, workers, shards), and errors naming
the file for hostile folders."""
import os
import struct
import wave

import numpy as np
import pytest

import mindrecord
from mindrecord import audio


def samples(seed, n):
    return np.random.default_rng(seed).integers(-32768, 32768, n, dtype=np.int16)


def write_wav(path, data, rate=16000, width=2, channels=1):
    """A PCM WAV of `data` (int array, frames x channels interleaved)."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    if width == 1:
        raw = (np.asarray(data, np.int16) + 128).astype(np.uint8).tobytes()
    elif width == 3:
        raw = b"".join(struct.pack("<i", int(v))[:3] for v in np.asarray(data).ravel())
    else:
        raw = np.asarray(data, {2: "<i2", 4: "<i4"}[width]).tobytes()
    with wave.open(str(path), "wb") as f:
        f.setnchannels(channels)
        f.setsampwidth(width)
        f.setframerate(rate)
        f.writeframes(raw)


def mindspore_values(data):
    """What MindSpore's ReadWaveFile gives for 16-bit samples."""
    return np.asarray(data, np.int16).astype(np.float32) / np.float32(32767)


def rows(ds):
    return list(ds.create_dict_iterator(output_numpy=True, num_epochs=1))


def write_nist(path, data, rate=16000):
    """A NIST SPHERE file as TED-LIUM's: 1024-byte header, big-endian int16."""
    os.makedirs(os.path.dirname(path), exist_ok=True)
    head = ("NIST_1A\n   1024\nsample_count -i %d\nsample_n_bytes -i 2\nchannel_count -i 1\n"
            "sample_byte_format -s2 10\nsample_rate -i %d\nsample_coding -s3 pcm\nend_head\n" % (len(data), rate))
    with open(path, "wb") as f:
        f.write(head.encode().ljust(1024, b"\0") + np.asarray(data, ">i2").tobytes())


# --- YesNo -----------------------------------------------------------------

YESNO = {"1_2_3_4_5_6_7_1.wav": 1, "5_1_1_1_1_1_1_1.wav": 2, "8_1_1_1_1_1_1_1.wav": 3}


@pytest.fixture
def yesno(tmp_path):
    d = tmp_path / "testYesNoData"
    for name, seed in YESNO.items():
        write_wav(d / name, samples(seed, 1600))
    (d / "README.txt").write_text("not audio")
    return str(d)


def test_yesno_columns_labels_and_mindspore_sample_values(yesno):
    ds = mindrecord.YesNoDataset(yesno, shuffle=False)
    assert ds.get_dataset_size() == 3
    assert ds.get_col_names() == ["waveform", "sample_rate", "label"]
    got = rows(ds)
    assert [r["label"].tolist() for r in got] == [[1, 2, 3, 4, 5, 6, 7, 1], [5, 1, 1, 1, 1, 1, 1, 1],
                                                  [8, 1, 1, 1, 1, 1, 1, 1]]
    for r, (name, seed) in zip(got, sorted(YESNO.items())):
        assert r["waveform"].dtype == np.float32 and r["waveform"].shape == (1, 1600)
        np.testing.assert_array_equal(r["waveform"][0], mindspore_values(samples(seed, 1600)))
        assert r["sample_rate"].dtype == np.int32 and int(r["sample_rate"]) == 16000
        assert r["label"].dtype == np.int32
    assert len(rows(mindrecord.YesNoDataset(yesno, num_samples=2))) == 2
    assert len(rows(mindrecord.YesNoDataset(yesno, num_samples=2).repeat(5))) == 10


def test_yesno_feeds_audio_transforms_on_workers(yesno):
    """The decoded rows go through map (MindSpore's audio transforms) on the
    pipeline's workers: the same values at 1 and 3 workers as the transform
    applied to each row alone."""
    spec = audio.Spectrogram(n_fft=64)
    want = [spec(r["waveform"]) for r in rows(mindrecord.YesNoDataset(yesno, shuffle=False))]
    for workers in (1, 3):
        ds = mindrecord.YesNoDataset(yesno, shuffle=False, num_parallel_workers=workers)
        ds = ds.map(operations=audio.Spectrogram(n_fft=64), input_columns="waveform", num_parallel_workers=workers)
        got = [r["waveform"] for r in rows(ds)]
        assert len(got) == 3
        for g, w in zip(got, want):
            np.testing.assert_allclose(g, w, rtol=1e-6)


def test_yesno_shuffle_is_a_seeded_permutation(yesno):
    a = [r["label"][0] for r in rows(mindrecord.YesNoDataset(yesno, shuffle=True, seed=5))]
    b = [r["label"][0] for r in rows(mindrecord.YesNoDataset(yesno, shuffle=True, seed=5))]
    assert a == b and sorted(a) == [1, 5, 8]


# --- SpeechCommands --------------------------------------------------------

@pytest.fixture
def speech_commands(tmp_path):
    d = tmp_path / "testSpeechCommandsData"
    write_wav(d / "_background_noise_" / "eating_lunch.wav", samples(1, 160))
    write_wav(d / "backpack" / "eeee2222_nohash_3.wav", samples(2, 160))
    write_wav(d / "bob" / "qwer2222_nohash_2.wav", samples(3, 160))
    write_wav(d / "bob" / "qwer3333_nohash_3.wav", samples(4, 160))
    (d / "testing_list.txt").write_text("backpack/eeee2222_nohash_3.wav\n")
    (d / "validation_list.txt").write_bytes(b"bob/qwer2222_nohash_2.wav\r\n")  # CRLF lines read too
    return str(d)


def test_speech_commands_usages_and_columns(speech_commands):
    ds = mindrecord.SpeechCommandsDataset(speech_commands, shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "label", "speaker_id", "utterance_number"]
    got = [(str(r["label"]), str(r["speaker_id"]), int(r["utterance_number"])) for r in rows(ds)]
    assert got == [("backpack", "eeee2222", 3), ("bob", "qwer2222", 2), ("bob", "qwer3333", 3)]
    r = rows(ds)[1]
    np.testing.assert_array_equal(r["waveform"][0], mindspore_values(samples(3, 160)))
    assert r["utterance_number"].dtype == np.int32
    for usage, want in (("test", ["eeee2222"]), ("valid", ["qwer2222"]), ("train", ["qwer3333"])):
        ds = mindrecord.SpeechCommandsDataset(speech_commands, usage=usage, shuffle=False)
        assert ds.get_dataset_size() == len(want)
        assert [str(r["speaker_id"]) for r in rows(ds)] == want
    with pytest.raises(ValueError, match=r"usage is not within the valid set of \['train', 'test', 'valid', 'all'\]"):
        mindrecord.SpeechCommandsDataset(speech_commands, usage="eval")


def test_speech_commands_list_leaving_the_folder_is_refused(speech_commands):
    with open(os.path.join(speech_commands, "testing_list.txt"), "a") as f:
        f.write("../../etc/passwd\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"testing_list.txt: line 2: .* not a path inside"):
        mindrecord.SpeechCommandsDataset(speech_commands, usage="test")


# --- LJSpeech --------------------------------------------------------------

@pytest.fixture
def ljspeech(tmp_path):
    d = tmp_path / "testLJSpeechData"
    for i, n in enumerate((2205, 2227, 2249), 1):
        write_wav(d / "wavs" / ("my_wave_%d.wav" % i), samples(10 + i, n), rate=22050)
    (d / "metadata.csv").write_text("".join("my_wave_%d|this is my_wave_%d|this is my_wave_%d\n" % (i, i, i)
                                            for i in (1, 2, 3)))
    return str(d)


def test_ljspeech_rows_in_metadata_order(ljspeech):
    ds = mindrecord.LJSpeechDataset(ljspeech, shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "transcription", "normalized_transcription"]
    got = rows(ds)
    assert [str(r["transcription"]) for r in got] == ["this is my_wave_%d" % i for i in (1, 2, 3)]
    assert [r["waveform"].shape for r in got] == [(1, 2205), (1, 2227), (1, 2249)]
    assert [int(r["sample_rate"]) for r in got] == [22050] * 3
    np.testing.assert_array_equal(got[2]["waveform"][0], mindspore_values(samples(13, 2249)))
    assert len(rows(mindrecord.LJSpeechDataset(ljspeech, num_samples=3).repeat(5))) == 15


def test_ljspeech_bad_metadata_names_file_and_line(ljspeech):
    meta = os.path.join(ljspeech, "metadata.csv")
    with open(meta, "a") as f:
        f.write("my_wave_4|only two fields\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"metadata.csv: line 4: 2 '\|'-separated fields"):
        mindrecord.LJSpeechDataset(ljspeech)
    with open(meta, "w") as f:
        f.write("../../secret|a|b\n")
    with pytest.raises(mindrecord.CorruptionError, match=r"metadata.csv: line 1: '../../secret' is not a file id"):
        mindrecord.LJSpeechDataset(ljspeech)


def test_ljspeech_missing_wav_is_an_error_naming_it(ljspeech):
    os.remove(os.path.join(ljspeech, "wavs", "my_wave_2.wav"))
    with pytest.raises(mindrecord.NotFoundError, match=r"my_wave_2.wav"):
        rows(mindrecord.LJSpeechDataset(ljspeech, shuffle=False))


# --- CMUArctic -------------------------------------------------------------

@pytest.fixture
def cmu_arctic(tmp_path):
    d = tmp_path / "testCMUArcticData"
    speaker = d / "cmu_us_aew_arctic"
    for i in (1, 2, 3):
        write_wav(speaker / "wav" / ("arctic_a000%d.wav" % i), samples(20 + i, 1600))
    os.makedirs(speaker / "etc")
    (speaker / "etc" / "txt.done.data").write_text('( arctic_a0001 "Dog." )\n( arctic_a0002 "Cat." )\n'
                                                   '( arctic_a0003 "Dog." )\n')
    return str(d)


def test_cmu_arctic_prompts_and_fixed_rate(cmu_arctic):
    ds = mindrecord.CMUArcticDataset(cmu_arctic, shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "transcript", "utterance_id"]
    got = rows(ds)
    assert [str(r["transcript"]) for r in got] == ["Dog.", "Cat.", "Dog."]
    assert [str(r["utterance_id"]) for r in got] == ["a0001", "a0002", "a0003"]
    assert [int(r["sample_rate"]) for r in got] == [16000] * 3
    assert len(rows(mindrecord.CMUArcticDataset(cmu_arctic, num_shards=3, shard_id=0))) == 1
    with pytest.raises(ValueError, match=r"Input name is not within the valid set of \['aew', 'ahw'"):
        mindrecord.CMUArcticDataset(cmu_arctic, name="xyz")
    # MindSpore's CMUArctic files are 16 kHz; another rate is an error naming the file.
    write_wav(os.path.join(cmu_arctic, "cmu_us_aew_arctic", "wav", "arctic_a0002.wav"), samples(0, 100), rate=8000)
    with pytest.raises(mindrecord.CorruptionError, match=r"arctic_a0002.wav: 8000 Hz; CMUArcticDataset files are "
                                                         r"16000 Hz"):
        rows(mindrecord.CMUArcticDataset(cmu_arctic, shuffle=False))


# --- GTZAN -----------------------------------------------------------------

def test_gtzan_usages_follow_the_filtered_splits(tmp_path):
    d = tmp_path / "testGTZANData"
    for i in range(3):
        write_wav(d / "blues" / ("blues.0000%d.wav" % i), samples(30 + i, 2205 + 22 * i), rate=22050)
    write_wav(d / "jazz" / "jazz.00073.wav", samples(40, 100), rate=22050)  # in the test split
    write_wav(d / "jazz" / "notes.wav", samples(41, 100), rate=22050)  # not GENRE.NNNNN.wav
    ds = mindrecord.GTZANDataset(str(d), shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "label"]
    assert [str(r["label"]) for r in rows(ds)] == ["blues", "blues", "blues", "jazz"]
    valid = mindrecord.GTZANDataset(str(d), usage="valid", shuffle=False)
    assert valid.get_dataset_size() == 3  # blues.00000-00002 are in the valid split
    assert [r["waveform"].shape[1] for r in rows(valid)] == [2205, 2227, 2249]
    assert mindrecord.GTZANDataset(str(d), usage="test").get_dataset_size() == 1
    with pytest.raises(mindrecord.NotFoundError, match=r"no GTZANDataset rows for usage 'train'"):
        mindrecord.GTZANDataset(str(d), usage="train")
    with pytest.raises(TypeError, match=r"Argument usage with value \['list'\] is not of type"):
        mindrecord.GTZANDataset(str(d), usage=["list"])


# --- LibriTTS --------------------------------------------------------------

def test_libritts_matches_mindsporess_expected_rows(tmp_path):
    d = tmp_path / "testLibriTTSData"
    chapter = d / "train-clean-100" / "2506" / "11267"
    ids = ["2506_11267_000001_000000", "2506_11267_000002_000000", "2506_11267_000003_000001"]
    for k, i in enumerate(ids):
        write_wav(chapter / (i + ".wav"), samples(50 + k, 2400), rate=24000)
    (chapter / "2506_11267.trans.tsv").write_text(
        "2506_11267_000001_000000\tgood morning\tGood morning\n"
        "2506_11267_000002_000000\tgood afternoon\tGood afternoon\n"
        "2506_11267_000003_000001\tgood evening\tGood evening\n")
    ds = mindrecord.LibriTTSDataset(str(d), usage="train-clean-100", shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "original_text", "normalized_text", "speaker_id",
                                  "chapter_id", "utterance_id"]
    flat = []
    for r in rows(ds)[:2]:
        flat += [int(r["sample_rate"]), str(r["original_text"]), str(r["normalized_text"]), int(r["speaker_id"]),
                 int(r["chapter_id"]), str(r["utterance_id"])]
    # MindSpore's test_libri_tts_basic expectation, literally.
    assert flat == [24000, 'good morning', 'Good morning', 2506, 11267, '2506_11267_000001_000000',
                    24000, 'good afternoon', 'Good afternoon', 2506, 11267, '2506_11267_000002_000000']
    assert mindrecord.LibriTTSDataset(str(d)).get_dataset_size() == 3
    assert len(rows(mindrecord.LibriTTSDataset(str(d), num_shards=3, shard_id=0))) == 1
    np.testing.assert_array_equal(rows(ds)[2]["waveform"][0], mindspore_values(samples(52, 2400)))


# --- TED-LIUM --------------------------------------------------------------

STM = "{talk} 1 {talk} {start} {end} <o,f0,female> this is record {n} of {talk}.\n"


def tedlium_tree(root, layout):
    """layout: {usage: {talk: [(start, end), ...]}}; every talk's audio is
    samples(60, 1600) at 16 kHz."""
    for usage, talks in layout.items():
        for talk, segs in talks.items():
            os.makedirs(root / usage / "stm", exist_ok=True)
            (root / usage / "stm" / (talk + ".stm")).write_text(
                "".join(STM.format(talk=talk, start=s, end=e, n=n + 1) for n, (s, e) in enumerate(segs)))
            write_nist(root / usage / "sph" / (talk + ".sph"), samples(60, 1600))


def test_tedlium_release1_order_and_real_segment_samples(tmp_path):
    root = tmp_path / "TEDLIUM_release1"
    tedlium_tree(root, {"dev": {"test1": [("0.00", "0.03")]},
                        "test": {"test2": [("0.00", "0.02"), ("0.02", "0.09")]},
                        "train": {"test1": [("0.00", "0.03")], "test2": [("0.00", "0.02"), ("0.02", "0.09")]}})
    ds = mindrecord.TedliumDataset(str(root), "release1", shuffle=False)
    assert ds.get_col_names() == ["waveform", "sample_rate", "transcript", "talk_id", "speaker_id", "identifier"]
    got = rows(ds)
    # MindSpore's order: (line index as a string, talk, usage).
    assert [(str(r["talk_id"]), r["waveform"].shape[1]) for r in got] == [
        ("test1", 480), ("test1", 480), ("test2", 320), ("test2", 320), ("test2", 1120), ("test2", 1120)]
    first = got[0]
    assert str(first["transcript"]) == "this is record 1 of test1."
    assert str(first["speaker_id"]) == "test1" and str(first["identifier"]) == "<o,f0,female>"
    assert int(first["sample_rate"]) == 16000 and first["sample_rate"].dtype == np.int32
    # The segment's samples (MindSpore's reader returns zeros): 0.02 s to 0.09 s
    # at 16 kHz is samples 320 to 1440, truncated as MindSpore's int casts.
    want = mindspore_values(samples(60, 1600))
    np.testing.assert_array_equal(got[4]["waveform"][0], want[320:1440])
    np.testing.assert_array_equal(got[0]["waveform"][0], want[:480])
    for usage, n in (("dev", 1), ("test", 2), ("train", 3), ("all", 6)):
        assert mindrecord.TedliumDataset(str(root), "release1", usage=usage).get_dataset_size() == n
    with pytest.raises(TypeError, match=r"Argument release with value None is not of type"):
        mindrecord.TedliumDataset(str(root), None)
    with pytest.raises(ValueError, match=r"extension '.wav' is not supported"):
        mindrecord.TedliumDataset(str(root), "release1", extensions=".wav")


def test_tedlium_release3_string_sorted_line_order(tmp_path):
    root = tmp_path / "TEDLIUM_release3"
    segs3 = [("0.00", "0.01"), ("0.02", "0.07"), ("0.07", "0.09")]
    segs4 = [("0.00", "0.01"), ("0.02", "0.03"), ("0.05", "0.07"), ("0.07", "0.09")]
    tedlium_tree(root, {"data": {"test3": segs3, "test4": segs4}})
    ds = mindrecord.TedliumDataset(str(root), "release3", shuffle=False)
    got = [(str(r["talk_id"]), r["waveform"].shape[1]) for r in rows(ds)]
    assert got == [("test3", 160), ("test4", 160), ("test3", 800), ("test4", 160), ("test3", 320), ("test4", 320),
                   ("test4", 320)]
    with pytest.raises(ValueError, match=r"Input usage is not within the valid set of \['all'\]"):
        mindrecord.TedliumDataset(str(root), "release3", usage="train")


def test_tedlium_segment_past_the_recording_is_an_error(tmp_path):
    root = tmp_path / "TEDLIUM_release3"
    tedlium_tree(root, {"data": {"talk": [("0.00", "0.5")]}})  # 8000 samples; the file holds 1600
    with pytest.raises(mindrecord.CorruptionError, match=r"talk.sph: the segment .* ends at frame 8000, past the "
                                                         r"file's 1600"):
        rows(mindrecord.TedliumDataset(str(root), "release3"))


# --- Sound files -----------------------------------------------------------

def test_wav_encodings_and_channels(tmp_path):
    """8-, 16-, 24- and 32-bit PCM, stereo as (channels, frames)."""
    d = tmp_path / "yesno"
    stereo = np.array([[1000, -1000], [2000, -2000], [3000, -3000]], np.int16)
    write_wav(d / "0_0_0_0_0_0_0_0.wav", stereo.ravel(), channels=2)
    write_wav(d / "1_1_1_1_1_1_1_1.wav", [-128, 0, 64, 127], width=1)
    write_wav(d / "2_2_2_2_2_2_2_2.wav", [-(1 << 23), 0, 1 << 22], width=3)
    write_wav(d / "3_3_3_3_3_3_3_3.wav", [-(1 << 31), 1 << 30], width=4)
    got = rows(mindrecord.YesNoDataset(str(d), shuffle=False))
    np.testing.assert_array_equal(got[0]["waveform"], mindspore_values(stereo.T))
    np.testing.assert_array_equal(got[1]["waveform"], [[-1.0, 0.0, 0.5, 127 / 128]])
    np.testing.assert_array_equal(got[2]["waveform"], [[-1.0, 0.0, 0.5]])
    np.testing.assert_array_equal(got[3]["waveform"], [[-1.0, 0.5]])


def test_float_and_big_endian_wav(tmp_path):
    d = tmp_path / "yesno"
    os.makedirs(d)
    data = np.array([0.25, -0.5, 1.0], "<f4").tobytes()
    fmt = struct.pack("<HHIIHH", 3, 1, 16000, 64000, 4, 32)  # WAVE_FORMAT_IEEE_FLOAT
    body = b"WAVE" + b"fmt " + struct.pack("<I", len(fmt)) + fmt + b"data" + struct.pack("<I", len(data)) + data
    (d / "0_0_0_0_0_0_0_0.wav").write_bytes(b"RIFF" + struct.pack("<I", len(body)) + body)
    data = np.array([16384, -32768], ">i2").tobytes()
    fmt = struct.pack(">HHIIHH", 1, 1, 8000, 16000, 2, 16)
    body = b"WAVE" + b"fmt " + struct.pack(">I", len(fmt)) + fmt + b"data" + struct.pack(">I", len(data)) + data
    (d / "1_1_1_1_1_1_1_1.wav").write_bytes(b"RIFX" + struct.pack(">I", len(body)) + body)
    got = rows(mindrecord.YesNoDataset(str(d), shuffle=False))
    np.testing.assert_array_equal(got[0]["waveform"], [[0.25, -0.5, 1.0]])
    np.testing.assert_array_equal(got[1]["waveform"], mindspore_values([[16384, -32768]]))
    assert int(got[1]["sample_rate"]) == 8000


@pytest.mark.parametrize("mangle,message", [
    (lambda b: b[:1000], r"truncated: the data chunk holds 956 of its 3200 bytes"),
    (lambda b: b"FORM" + b[4:], r"not a WAV or NIST SPHERE file"),
    (lambda b: b[:4] + b[4:8] + b"WAVE" + b"junk" * 3, r"not a readable WAV file"),
    (lambda b: b"", r"not a WAV or NIST SPHERE file"),
])
def test_hostile_wav_is_a_corruption_error_naming_the_file(tmp_path, mangle, message):
    d = tmp_path / "yesno"
    write_wav(d / "0_0_0_0_0_0_0_0.wav", samples(70, 1600))
    good = (d / "0_0_0_0_0_0_0_0.wav").read_bytes()
    (d / "0_0_0_0_0_0_0_0.wav").write_bytes(mangle(good))
    with pytest.raises(mindrecord.CorruptionError, match=r"0_0_0_0_0_0_0_0.wav: " + message):
        rows(mindrecord.YesNoDataset(str(d)))


def test_unsupported_keywords_and_bad_folders(tmp_path, yesno):
    with pytest.raises(NotImplementedError, match=r"cache"):
        mindrecord.YesNoDataset(yesno, cache=object())
    with pytest.raises(ValueError, match=r"is not a folder"):
        mindrecord.LJSpeechDataset(str(tmp_path / "missing"))
    with pytest.raises(ValueError, match=r"is not a folder"):
        mindrecord.LJSpeechDataset("")
    with pytest.raises(TypeError, match=r"dataset_dir must be a str"):  # MindSpore's check_dir
        mindrecord.GTZANDataset(tmp_path)
    with pytest.raises(mindrecord.NotFoundError, match=r"metadata.csv"):
        mindrecord.LJSpeechDataset(str(tmp_path))
    with pytest.raises(mindrecord.NotFoundError, match=r"no YesNoDataset rows"):
        mindrecord.YesNoDataset(str(tmp_path))


def test_truncated_sphere_file_is_an_error_naming_it(tmp_path):
    """libsndfile sizes a SPHERE file by its bytes; the header's sample_count
    says what it should hold."""
    root = tmp_path / "TEDLIUM_release3"
    tedlium_tree(root, {"data": {"talk": [("0.00", "0.01")]}})
    sph = root / "data" / "sph" / "talk.sph"
    sph.write_bytes(sph.read_bytes()[:1024 + 2 * 1000])
    with pytest.raises(mindrecord.CorruptionError, match=r"talk.sph: truncated: the header's sample_count is 1600, "
                                                         r"the file holds 1000 samples"):
        rows(mindrecord.TedliumDataset(str(root), "release3"))


def test_mindspore_import_paths(yesno):
    """`mindspore.dataset.YesNoDataset` becomes `mindrecord.dataset.YesNoDataset`."""
    from mindrecord import dataset as ds_module
    for name in ("YesNoDataset", "SpeechCommandsDataset", "LJSpeechDataset", "CMUArcticDataset", "GTZANDataset",
                 "LibriTTSDataset", "TedliumDataset"):
        assert getattr(ds_module, name) is getattr(mindrecord, name)
    assert ds_module.YesNoDataset(yesno).get_dataset_size() == 3


def test_torch_adapter_reads_audio_rows(yesno):
    """mindrecord.torch over an audio dataset, in DataLoader worker processes."""
    torch = pytest.importorskip("torch")
    from mindrecord.torch import MindRecordDataset
    ds = mindrecord.YesNoDataset(yesno, shuffle=False).project(["waveform", "label"])
    tds = MindRecordDataset(ds, batch_size=3)
    batches = list(torch.utils.data.DataLoader(tds, batch_size=None, num_workers=1))
    assert len(batches) == 1
    got = batches[0]
    assert got["waveform"].shape == (3, 1, 1600) and got["waveform"].dtype == torch.float32
    assert got["label"][:, 0].tolist() == [1, 5, 8]
    np.testing.assert_array_equal(got["waveform"][1, 0].numpy(), mindspore_values(samples(2, 1600)))
