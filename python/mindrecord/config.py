"""MindSpore's process-wide settings (mindspore.dataset.config) with its API
names: the dataset defaults scripts set (set_seed, set_num_parallel_workers,
set_prefetch_size and their getters) and MindSpore 2.3+'s MindRecord
encryption and integrity settings (set_enc_key, set_enc_mode, set_dec_mode,
set_hash_mode).

Dataset defaults apply to datasets created after the call: set_seed(s) is
the seed of every MindDataset built without one (its shuffles and random
ops; also random.seed and numpy.random.seed, as MindSpore does);
set_num_parallel_workers(n) its default num_parallel_workers;
set_prefetch_size(n) its batches prepared ahead (the pipeline's queue_depth;
16 by default, as in MindSpore, which counts rows per connector where we
count batches; the pipeline's queue_bytes caps what they hold).

As in MindSpore the settings are process-wide. FileWriter.commit() applies
them to every file it wrote (shards and .db indexes): with a hash mode, the
file's digest is appended (digest, its length as 4 bytes big-endian,
"HASH"); then, with a key, the file is encrypted with AES-GCM in blocks of
64 MiB of plaintext, laid out as MindSpore lays it out (mindrecord/FORMAT.md,
"Encrypted and hashed files"). Readers (FileReader, MindPage, MindDataset,
the torch adapter) read such files in place: blocks are authenticated the
first time they are touched and rows are decrypted by range, so no plaintext
copy is written to disk (MindSpore decrypts each file into a
.decrypt_mindrecord folder beside it). A file read while no key is set, with
a wrong key or with another mode fails with MindSpore's messages, naming the
file.

Differences from MindSpore: callable (user-defined) encryption, decryption
and hash functions raise NotImplementedError when set (they run in Python
over whole files, which the C++ readers do not call back into); a hashed file
read while no hash mode is set is read without the check (MindSpore refuses
it), and a hash mode set while reading a file without a digest is an error,
as in MindSpore. The digest is checked when a reader opens the file (reading
the whole file once, as MindSpore does).

Thread safety: the setters are process-wide and meant for set-up; readers and
writers take the settings when they open files.
"""
from enum import Enum
import os
import random

import numpy as np

from mindrecord import _core

__all__ = ["set_enc_key", "set_enc_mode", "set_dec_mode", "set_hash_mode", "set_seed", "get_seed",
           "set_num_parallel_workers", "get_num_parallel_workers", "set_prefetch_size", "get_prefetch_size",
           "set_multiprocessing_start_method", "get_multiprocessing_start_method",
           "set_enable_autotune", "get_enable_autotune", "set_autotune_interval", "get_autotune_interval",
           "set_enable_shared_mem", "get_enable_shared_mem", "ErrorSamplesMode", "set_error_samples_mode",
           "get_error_samples_mode", "set_numa_enable", "get_numa_enable", "set_auto_offload", "get_auto_offload",
           "set_debug_mode", "get_debug_mode", "set_fast_recovery", "get_fast_recovery", "set_auto_num_workers",
           "get_auto_num_workers", "set_multiprocessing_timeout_interval", "get_multiprocessing_timeout_interval"]

_UINT32_MAX = 2 ** 32 - 1
_INT32_MAX = 2 ** 31 - 1
_defaults = {"seed": None, "num_parallel_workers": None, "prefetch_size": None}
_autotune = {"enabled": False, "interval": 0, "auto_num_workers": False}
_shared_mem = {"enabled": True}


def _int_in(name, value, low, high):
    if not isinstance(value, int) or isinstance(value, bool):
        raise TypeError("%s must be of type int, got %r" % (name, value))
    if not low <= value <= high:
        raise ValueError("%s must be within [%d, %d], got %d" % (name, low, high, value))
    return value


def set_seed(seed: int) -> None:
    """The seed of datasets created from now on without their own (their
    shuffles and random ops: the same seed gives the same sequence). Also
    seeds Python's random and numpy's global generator, as MindSpore does.
    `seed` in [0, 2**32 - 1]."""
    _defaults["seed"] = _int_in("seed", seed, 0, _UINT32_MAX)
    random.seed(seed)
    np.random.seed(seed)


# What get_seed() gives while no seed is set: MindSpore's, std::mt19937's
# default seed (datasets then draw a random seed each, as MindSpore's do).
DEFAULT_SEED = 5489


def get_seed() -> int:
    """The seed set by set_seed, else DEFAULT_SEED (5489, as MindSpore);
    datasets made while none is set draw a random seed each."""
    return DEFAULT_SEED if _defaults["seed"] is None else _defaults["seed"]


def _seed_set():
    """The seed set by set_seed, or None."""
    return _defaults["seed"]


def set_num_parallel_workers(num: int) -> None:
    """The default num_parallel_workers (pipeline worker threads) of
    datasets created from now on; in [1, cpu count]."""
    _defaults["num_parallel_workers"] = _int_in("num_parallel_workers", num, 1, os.cpu_count() or 1)


def get_num_parallel_workers() -> int:
    """set_num_parallel_workers's value, else the default datasets take:
    min(4, cpu count). An int, as MindSpore's."""
    return _defaults["num_parallel_workers"] or min(4, os.cpu_count() or 1)


def set_prefetch_size(size: int) -> None:
    """Batches prepared ahead of the consumer (the plan's queue_depth) for
    datasets created from now on; in [1, 1024]. Memory stays bounded by
    bytes too (queue_bytes)."""
    _defaults["prefetch_size"] = _int_in("size", size, 1, 1024)


DEFAULT_PREFETCH_SIZE = 16  # MindSpore's default


def get_prefetch_size() -> int:
    """set_prefetch_size's value, or MindSpore's default, 16."""
    return _defaults["prefetch_size"] or DEFAULT_PREFETCH_SIZE


def set_multiprocessing_start_method(start_method: str = "fork") -> None:
    """How python_multiprocessing workers start. MindSpore's default is
    "fork"; mindrecord starts them with "spawn" only (the pipeline's threads
    make fork unsafe; see mindrecord._mp_pool): "spawn" is taken, "fork"
    raises NotImplementedError."""
    if not isinstance(start_method, str):
        raise TypeError("start_method must be a str, got %r" % (start_method,))
    if start_method not in ("fork", "spawn"):
        raise ValueError("start_method must be 'fork' or 'spawn', got %r" % (start_method,))
    if start_method == "fork":
        raise NotImplementedError("set_multiprocessing_start_method('fork') is not supported by mindrecord: its "
                                  "python_multiprocessing workers are spawned (the pipeline's threads make fork "
                                  "unsafe); only 'spawn'")


def get_multiprocessing_start_method() -> str:
    """"spawn": how mindrecord's python_multiprocessing workers start."""
    return "spawn"


_mp_timeout = {"interval": 300}


def set_multiprocessing_timeout_interval(interval: int) -> None:
    """Seconds a pipeline thread waits for a python_multiprocessing worker
    process's result before it logs a warning (logger "mindrecord") naming
    the process, the callable and how long it has waited; then again after
    each further interval (MindSpore's default, 300). The wait goes on: a
    slow callable is not an error, a worker process that died is."""
    if not isinstance(interval, int) or isinstance(interval, bool):
        raise TypeError("interval must be of type int, got %r" % (interval,))
    if interval <= 0 or interval > _INT32_MAX:
        raise ValueError("interval should be within (0, %d], got %d" % (_INT32_MAX, interval))
    _mp_timeout["interval"] = interval


def get_multiprocessing_timeout_interval() -> int:
    """set_multiprocessing_timeout_interval's value (default 300 seconds)."""
    return int(_mp_timeout["interval"])


def set_enable_shared_mem(enable: bool) -> None:
    """Whether python_multiprocessing workers of maps made from now on pass
    rows through shared memory (True, the default) or pickle them through
    their pipes (False: nothing in /dev/shm, for machines where it is
    small; max_rowsize then bounds nothing)."""
    if not isinstance(enable, bool):
        raise TypeError("enable must be a bool, got %r" % (enable,))
    _shared_mem["enabled"] = enable


def get_enable_shared_mem() -> bool:
    """set_enable_shared_mem's value (default True)."""
    return _shared_mem["enabled"]


class ErrorSamplesMode(Enum):
    """MindSpore's ErrorSamplesMode: what an iteration does with a row that
    fails (a map's op or callable raised, or the row could not be read)."""
    RETURN = 0   # the error is raised (the default)
    REPLACE = 1  # MindSpore: another row in its place (not supported here)
    SKIP = 2     # the row is dropped; the iterator's stats() count and name it


_error_samples = {"mode": ErrorSamplesMode.RETURN}


def set_error_samples_mode(error_samples_mode: ErrorSamplesMode) -> None:
    """What iterations started from now on do with a row that fails:
    ErrorSamplesMode.RETURN raises (default), SKIP drops the row and goes on
    (batches stay full; the iterator's stats() give rows_skipped and the first
    errors). Unlike MindSpore's, SKIP also drops rows the reader cannot read
    (a damaged page drops its rows), not only rows a map fails on. REPLACE
    raises NotImplementedError."""
    if not isinstance(error_samples_mode, ErrorSamplesMode):
        raise TypeError("error_samples_mode must be an ErrorSamplesMode, got %r" % (error_samples_mode,))
    if error_samples_mode is ErrorSamplesMode.REPLACE:
        raise NotImplementedError("ErrorSamplesMode.REPLACE is not supported by mindrecord (a failed row is not "
                                  "replaced by another); use SKIP to drop it or RETURN to raise")
    _error_samples["mode"] = error_samples_mode


def get_error_samples_mode() -> ErrorSamplesMode:
    """set_error_samples_mode's value (default ErrorSamplesMode.RETURN)."""
    return _error_samples["mode"]


def _on_error() -> str:
    """The pipeline plan's on_error for the current mode."""
    return "skip" if _error_samples["mode"] is ErrorSamplesMode.SKIP else "fail"


def _off_only(name, value, why):
    """A MindSpore switch this package has only in its off state: False is
    taken (nothing changes), True raises NotImplementedError saying why."""
    if not isinstance(value, bool):
        raise TypeError("%s must be a bool, got %r" % (name, value))
    if value:
        raise NotImplementedError("%s(True) is not supported by mindrecord: %s" % (name, why))


def set_numa_enable(numa_enable: bool) -> None:
    """MindSpore's NUMA binding of the pipeline's threads: off (False) only."""
    _off_only("set_numa_enable", numa_enable, "the pipeline's threads are not bound to NUMA nodes")


def get_numa_enable() -> bool:
    return False


def set_auto_offload(offload: bool) -> None:
    """MindSpore's offload of map ops to the device: off (False) only, as
    map(offload=...)."""
    _off_only("set_auto_offload", offload, "no op runs on the device")


def get_auto_offload() -> bool:
    return False


def set_debug_mode(debug_mode_flag: bool, debug_hook_list: list | None = None) -> None:
    """MindSpore's debug mode (one thread, hooks around each op): off (False)
    only; debug_hook_list must then be None."""
    _off_only("set_debug_mode", debug_mode_flag, "there are no debug hooks (the pipeline's order and "
              "values do not depend on its threads)")
    if debug_hook_list is not None:
        raise NotImplementedError("set_debug_mode(debug_hook_list=...) is not supported by mindrecord")


def get_debug_mode() -> bool:
    return False


_fast_recovery = {"enabled": True}


def set_fast_recovery(fast_recovery: bool) -> None:
    """MindSpore's choice, when a training resumes, between skipping the
    ops of the rows before the resume point (True, fast, other random
    augmentations) and replaying them (False, the same augmentations). Here
    both hold at once: load_state_dict() resumes without replaying, and
    random ops draw from each row's position, so the augmentations are
    those of the run that stopped (on the same number of ranks). Both
    values are taken."""
    if not isinstance(fast_recovery, bool):
        raise TypeError("fast_recovery must be a bool, got %r" % (fast_recovery,))
    _fast_recovery["enabled"] = fast_recovery


def get_fast_recovery() -> bool:
    return _fast_recovery["enabled"]


def set_enable_autotune(enable: bool, filepath_prefix: str | None = None) -> None:
    """Autotune for MindDatasets created from now on (off by default, as in
    MindSpore): their pipeline picks and adjusts its worker threads
    (starting at num_parallel_workers, adding up to the cores of the
    process's CPU affinity mask) and its queue depth while it runs, from its own statistics; rows,
    order and state_dict() are the same as without it. The iterator's
    stats()["autotune"] lists its decisions; with GLOG_v=1 (MindSpore's INFO
    verbosity) each is also logged to stderr. MindSpore's `filepath_prefix`
    (saving the tuned settings as a JSON file) raises NotImplementedError."""
    if not isinstance(enable, bool):
        raise TypeError("enable must be of type bool, got %r" % (enable,))
    if filepath_prefix is not None:
        raise NotImplementedError("set_enable_autotune(filepath_prefix=...) is not supported by mindrecord (no "
                                  "tuned-settings file); the settings autotune chose are in the iterator's "
                                  "stats()['autotune']")
    _autotune["enabled"] = enable


def get_enable_autotune() -> bool:
    """Whether set_enable_autotune turned autotune on (default False)."""
    return bool(_autotune["enabled"])


def set_autotune_interval(interval: int) -> None:
    """Batches (MindSpore's steps) between autotune's decisions, in [0,
    2**31 - 1]. 0 (the default) differs from MindSpore (once per epoch): a
    window of at least 50 ms and 4 batches, so that one epoch is tuned."""
    _autotune["interval"] = _int_in("interval", interval, 0, _INT32_MAX)


def get_autotune_interval() -> int:
    """set_autotune_interval's value (default 0)."""
    return int(_autotune["interval"])


def set_auto_num_workers(enable: bool) -> None:
    """MindSpore's automatic num_parallel_workers (off by default): datasets
    created from now on pick their worker threads while they run, possibly
    overriding num_parallel_workers, as MindSpore's may. Here that is the
    pipeline's autotune (set_enable_autotune), which starts at
    num_parallel_workers, adds threads up to the cores of the process's CPU
    affinity mask while they pay, and also sets how many batches are
    prepared ahead; rows, order and state_dict() are unchanged. Its
    decisions are in the iterator's stats()["autotune"]."""
    if not isinstance(enable, bool):
        raise TypeError("enable must be of type bool, got %r" % (enable,))
    _autotune["auto_num_workers"] = enable


def get_auto_num_workers() -> bool:
    """set_auto_num_workers's value (default False)."""
    return bool(_autotune["auto_num_workers"])


def _autotune_plan() -> dict:
    """The plan keys of the autotune settings (none while it is off)."""
    if not _autotune["enabled"] and not _autotune["auto_num_workers"]:
        return {}
    return {"autotune": {"enabled": True, "interval": int(_autotune["interval"])}}

_ENC_MODES = ("AES-GCM", "AES-CBC", "SM4-CBC")
_HASH_MODES = ("sha256", "sha384", "sha512", "sha3_256", "sha3_384", "sha3_512", "sha224", "sha3_224")

_state = {"enc_key": None, "enc_mode": "AES-GCM", "dec_mode": None, "hash_mode": None}


def _push():
    """Hands the settings to the C++ readers and writers."""
    dec = _state["dec_mode"] if _state["dec_mode"] is not None else _state["enc_mode"]
    key = _state["enc_key"]
    _core.set_crypto_config(None if key is None else key.encode("utf-8"), _state["enc_mode"], dec,
                            _state["hash_mode"] or "")


def set_enc_key(enc_key: str | None) -> None:
    """The key (a str of 16, 24 or 32 characters) that FileWriter encrypts
    with and readers decrypt with; None turns encryption off. ValueError for
    anything else, with MindSpore's message."""
    if enc_key is not None:
        if not isinstance(enc_key, str):
            raise ValueError("The input enc_key is not str.")
        if len(enc_key) not in (16, 24, 32) or len(enc_key.encode("utf-8")) != len(enc_key):
            raise ValueError("The length of input enc_key is not 16, 24, 32.")
    _state["enc_key"] = enc_key
    _push()


def _check_mode(mode, name):
    if callable(mode):
        raise NotImplementedError("a user-defined %s function is not supported by mindrecord (only %s)"
                                  % (name, ", ".join(_ENC_MODES)))
    if not isinstance(mode, str):
        raise ValueError("The input %s is not str." % name)
    if mode not in _ENC_MODES:
        raise ValueError("The input %s is invalid." % name)
    return mode


def set_enc_mode(enc_mode: str = "AES-GCM") -> None:
    """The cipher FileWriter encrypts with: "AES-GCM" (MindSpore's default),
    "AES-CBC" (AES-128/192/256 by the key's length) or "SM4-CBC" (16-character
    keys), laid out as MindSpore lays them out. Callables raise
    NotImplementedError; other values ValueError."""
    _state["enc_mode"] = _check_mode(enc_mode, "enc_mode")
    _push()


def set_dec_mode(dec_mode: str | None = "AES-GCM") -> None:
    """The cipher readers decrypt with; None: the encryption mode."""
    _state["dec_mode"] = None if dec_mode is None else _check_mode(dec_mode, "dec_mode")
    _push()


def set_hash_mode(hash_mode: str | None) -> None:
    """The digest FileWriter appends and readers check: "sha256", "sha384",
    "sha512", "sha3_256", "sha3_384", "sha3_512" (and MindSpore 2.3's
    "sha224", "sha3_224"); None turns the check off. ValueError for other
    values; callables raise NotImplementedError."""
    if hash_mode is not None:
        if callable(hash_mode):
            raise NotImplementedError("a user-defined hash function is not supported by mindrecord (only %s)"
                                      % ", ".join(_HASH_MODES))
        if not isinstance(hash_mode, str):
            raise ValueError("The input hash_mode is not str.")
        if hash_mode not in _HASH_MODES:
            raise ValueError("The input hash_mode is invalid.")
    _state["hash_mode"] = hash_mode
    _push()


def _get_enc_key():
    return _state["enc_key"]


def _get_hash_mode():
    return _state["hash_mode"]


def _protects():
    """A key or a hash mode is set: what writers write is hashed and encrypted."""
    return _state["enc_key"] is not None or _state["hash_mode"] is not None
