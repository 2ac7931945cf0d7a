"""The remote= keyword shared by MindDataset, FileReader, MindPage and the
torch adapter: how datasets named by URL (https://, http://, s3://BUCKET/KEY)
are read. A dict of the plan's "remote" keys (readers/remote_options.h):
endpoint, cache_dir, cache_bytes, memory_bytes, block_bytes, parallel,
read_ahead_bytes, retries, backoff_ms, timeout_s; each optional. The C++
reader checks the keys and values (an unknown key is a ValueError naming it).

Thread safety: pure functions.
"""
import json
import os

_SCHEMES = ("http://", "https://", "s3://")


def is_remote(path):
    """Whether `path` names a dataset by URL."""
    return isinstance(path, str) and path[:8].lower().startswith(_SCHEMES)


def source_path(path):
    """A local path made absolute; a URL as it is."""
    return path if is_remote(path) else os.path.abspath(path)


def remote_dict(remote):
    """The remote= keyword checked: None, or a dict with str keys."""
    if remote is None:
        return None
    if not isinstance(remote, dict) or not all(isinstance(k, str) for k in remote):
        raise TypeError("remote must be a dict of remote read options (endpoint, cache_dir, cache_bytes, ...) or "
                        "None, got %r" % (remote,))
    return dict(remote)


def remote_json(remote):
    """The keyword as _core.Reader takes it: JSON text, "" for None."""
    remote = remote_dict(remote)
    return "" if remote is None else json.dumps(remote)
