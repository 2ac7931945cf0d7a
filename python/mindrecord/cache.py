"""MindSpore's DatasetCache: `cache=DatasetCache(session_id=..., size=...)` on
MindDataset(...) and map(...) stores the rows made so far (read, or read and
transformed by the map's deterministic ops) in shared memory, so that later
epochs, later jobs and the other processes of the machine (DataLoader
workers, ranks of one host) neither read nor transform them again.

There is no cache server: the cache is a folder of checksummed entries under
/dev/shm/mindrecord-cache (or $MINDRECORD_CACHE_DIR, or `dir`), one per
session_id, kept until `mindrecord cache drop SESSION` (or a reboot); see
pipeline/README.md "Dataset cache".

Thread safety: a DatasetCache is an immutable value; many datasets and
processes may use one.
"""
import os

_SERVER_ARGS = ("hostname", "port", "num_connections", "prefetch_size")


class DatasetCache:
    """MindSpore 2.x's DatasetCache(session_id, size=0, spilling=False,
    hostname=None, port=None, num_connections=None, prefetch_size=None).

    `session_id`: names the cache (an int, as MindSpore's cache_admin gives,
    or a name of [0-9A-Za-z_.-]); `size`: the most megabytes (MiB) its
    entries take, 0 = half of the free space of the cache's file system;
    rows past it are read and transformed as usual. `dir` (mindrecord's
    own): the folder that holds the caches (default $MINDRECORD_CACHE_DIR or
    /dev/shm/mindrecord-cache; a disk folder makes a cache that outlives a
    reboot). `spilling=True` and the cache server's connection arguments
    (hostname, port, num_connections, prefetch_size) are not supported
    (there is no cache server): they raise NotImplementedError naming them."""

    def __init__(self, session_id, size=0, spilling=False, hostname=None, port=None, num_connections=None,
                 prefetch_size=None, *, dir=None):  # noqa: A002 (the folder, as in the plan)
        if isinstance(session_id, bool) or not isinstance(session_id, (int, str)):
            raise TypeError("session_id must be an int or a str, got %r" % (session_id,))
        if isinstance(session_id, int) and session_id < 0:
            raise ValueError("session_id must be >= 0, got %d" % session_id)
        if isinstance(size, bool) or not isinstance(size, int) or size < 0:
            raise ValueError("size must be an int >= 0 (megabytes; 0: no limit of its own), got %r" % (size,))
        if not isinstance(spilling, bool):
            raise TypeError("spilling must be a bool, got %r" % (spilling,))
        if spilling:
            raise NotImplementedError("DatasetCache(spilling=True) is not supported by mindrecord: the cache lives "
                                      "in one folder (shared memory by default); give dir= a disk folder instead")
        given = {"hostname": hostname, "port": port, "num_connections": num_connections,
                 "prefetch_size": prefetch_size}
        for name in _SERVER_ARGS:
            if given[name] is not None:
                raise NotImplementedError("DatasetCache(%s=%r) is not supported by mindrecord (there is no cache "
                                          "server: the cache is shared memory on this machine); only None"
                                          % (name, given[name]))
        if dir is not None and not isinstance(dir, (str, os.PathLike)):
            raise TypeError("dir must be a folder path, got %r" % (dir,))
        self.session_id = session_id
        self.size = size
        self.spilling = spilling
        self.dir = os.fspath(dir) if dir is not None else None

    def __repr__(self):
        return "DatasetCache(session_id=%r, size=%d%s)" % (self.session_id, self.size,
                                                            ", dir=%r" % self.dir if self.dir else "")

    def _node(self, tree):
        """The plan's cache node over `tree`."""
        return {"node": "cache", "input": tree, "session_id": str(self.session_id), "size_bytes": self.size << 20,
                "dir": self.dir or ""}


def check_cache(cache: object, where: str) -> "DatasetCache":
    """`cache` as a DatasetCache, or TypeError naming `where`."""
    if not isinstance(cache, DatasetCache):
        raise TypeError("%s(cache=...) takes a mindrecord.DatasetCache or None, got %r" % (where, cache))
    return cache
