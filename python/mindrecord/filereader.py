"""FileReader: MindSpore's mindrecord.FileReader over the C++ ShardReader."""
from collections.abc import Iterator
import itertools
import json
from typing import Literal
import warnings


from mindrecord import _core
from mindrecord._checks import check_file_names, check_num_consumer
from mindrecord._remote import remote_json
from mindrecord.exceptions import ParamTypeError, StateError


def warn_reader(reader, stacklevel=3):
    """Issues the reader's warnings (a shard whose .db index is missing: rows
    still read, field queries need the index) as RuntimeWarning."""
    for message in reader.warnings:
        warnings.warn(message, RuntimeWarning, stacklevel=stacklevel)


def _open_reader(file_name, columns, remote=None):
    """A _core.Reader: one path and its siblings, or exactly the listed
    files (MindSpore's file lists), read through a mapping when the dataset
    fits in memory (copies are then made once, from the page cache, and
    views are possible). `remote`: the remote= keyword (datasets named by
    URL)."""
    paths = check_file_names(file_name)
    listed = isinstance(file_name, (list, tuple))
    reader = _core.Reader(paths[0], list(columns or []), "auto", paths if listed else [], True,
                          remote_json(remote))
    warn_reader(reader, 4)
    return reader


class FileReader:
    """Reads every row of a MindRecord dataset in row order (shard 0 first).

    `file_name` is any one shard (its siblings are found through the header)
    or a list of files, read exactly as listed, in that order (a subset of a
    dataset's shards, or shards of several datasets with the same schema),
    as in MindSpore. Values are MindSpore's FileReader's: int, float, str,
    bytes, numpy arrays. `columns` selects fields (default: all);
    unselected blob fields are not read. Each chunk of rows is read without
    the GIL by up to `num_consumer` threads, one per 4 MiB of stored row
    data (a chunk of small rows is read faster by one thread than handed to
    several).

    get_next() reads ahead one chunk of rows: at most 1,024 rows and at most
    `read_ahead_bytes` bytes of row data, both as stored and as read (default
    64 MiB; a row larger than that is read alone; compressed rows count
    decompressed), so memory stays bounded whatever the row size.

    close() ends every get_next() loop: a loop in progress stops after the
    row it is on, and get_next() after close() yields nothing (MindSpore's
    behaviour).

    `do_copy=False` (as MindSpore's iterators name it) reads a dataset that
    fits in memory through a read-only mapping of its files and hands out
    bytes fields as read-only `memoryview`s and array fields as read-only
    numpy arrays over the mapped pages, without copying them (page checksums
    are still verified before a row is handed out); each view keeps the
    mapping alive, also after close(). Fields the reader had to decompress or
    unpack, and datasets read with direct I/O, come as copies. It pays off
    for large values: a view costs more to make than a copy of ~1 KiB (see
    benchmarks/README.md). The default, `do_copy=True`, gives `bytes` and
    writable arrays, copied from the same mapping (a dataset larger than the
    available memory is read with pread(2)). As for any mmap reader, do not
    truncate or rewrite the files while a FileReader reads them (a mapped
    page that disappears is a SIGBUS).

    Thread safety: one FileReader per thread; a generator from get_next() is
    not shared between threads, apart from close(), which may be called from
    another thread.
    """

    _CHUNK = 1024
    READ_AHEAD_BYTES = 64 << 20

    def __init__(self, file_name: str | list[str], num_consumer: int = 4, columns: list[str] | None = None,
                 operator: object = None, read_ahead_bytes: int = READ_AHEAD_BYTES, do_copy: bool = True, *,
                 remote: dict[str, object] | None = None) -> None:
        if operator is not None:
            raise NotImplementedError("FileReader(operator=...) is not supported by mindrecord (MindSpore's "
                                      "reserved argument, without effect there); only None")
        check_num_consumer(num_consumer)
        if not isinstance(do_copy, bool):
            raise TypeError("do_copy must be a bool, got %r" % (do_copy,))
        self._zero_copy = not do_copy
        if not isinstance(read_ahead_bytes, int) or isinstance(read_ahead_bytes, bool) or read_ahead_bytes < 1:
            raise ValueError("read_ahead_bytes must be an int >= 1, got %r" % (read_ahead_bytes,))
        self._read_ahead = read_ahead_bytes
        if columns is not None and (not isinstance(columns, (list, tuple)) or not columns):
            raise ParamTypeError("columns", "list")
        if columns is not None and not all(isinstance(c, str) for c in columns):
            raise ParamTypeError("columns item", "str")
        # Mapped when the dataset fits in memory, copies too: each row is then
        # copied once, from the page cache (pread(2) copied it into a buffer
        # first), and a later reader of the same file shares the mapping.
        self._reader = _open_reader(file_name, columns, remote=remote)
        self._threads = num_consumer
        self._columns = list(columns) if columns else None
        self._chunk: list = []  # the chunk get_next() hands out now; close() empties it

    def get_next(self) -> Iterator[dict[str, object]]:
        """Iterates the rows as dicts: int, float, str, bytes (memoryview
        with do_copy=False), numpy arrays.
        Rows come a chunk (a list) at a time through itertools.chain, so no
        Python frame runs per row."""
        if self._reader is None:
            return iter(())
        return itertools.chain.from_iterable(self._chunks())

    def _chunks(self) -> Iterator[list[dict[str, object]]]:
        begin = 0
        while (reader := self._reader) is not None and begin < reader.num_rows:
            # Cut at the cap on stored bytes, and short where the rows read
            # hold more than the cap (compressed rows inflate). Dropped before
            # the next read, which then reuses the memory. close() empties
            # it, ending the loop.
            self._chunk = reader.read_chunk(begin, self._CHUNK, self._read_ahead, self._threads, self._zero_copy)
            begin += len(self._chunk)
            yield self._chunk
            self._chunk = []

    def read(self, begin: int, end: int) -> list[dict[str, object]]:
        """Rows [begin, end) as a list of dicts."""
        return self._live().read_range(begin, end, self._threads, 0, self._zero_copy)

    def len(self) -> int:
        """Number of rows (MindSpore's name)."""
        return self._live().num_rows

    def __len__(self) -> int:
        return self._live().num_rows

    def schema(self) -> dict[str, dict]:
        """The schema as {"field": {"type": ..., "shape": [...]}}."""
        return json.loads(self._live().schema_json)

    def description(self) -> str:
        return self._live().desc

    @property
    def index_fields(self) -> list[str]:
        return list(self._live().index_fields)

    @property
    def blob_fields(self) -> list[str]:
        return list(self._live().blob_fields)

    @property
    def shard_paths(self) -> list[str]:
        return list(self._live().shard_paths)

    @property
    def version(self) -> str:
        return self._live().version

    def compression(self) -> dict[str, object] | None:
        """The dataset's compression: {"codec": "none" | "lz4" | "zstd:3" |
        "zstd:3+dict" (+ "+raw" when raw parts are compressed too), and when
        compressed "dict_id", "raw_bytes", "stored_bytes" (bytes of the
        compressed parts before / after, all shards)}."""
        return json.loads(self._live().compression_json)

    def close(self) -> None:
        """Releases the files and ends get_next() loops (see the class).
        Other calls after it raise StateError (a ValueError)."""
        self._reader = None
        self._chunk.clear()  # a list iterator stops at its list's (new) end

    def __enter__(self) -> "FileReader":
        return self

    def __exit__(self, exc_type: object, exc: object, tb: object) -> Literal[False]:
        self.close()
        return False

    def _live(self):
        if self._reader is None:
            raise StateError("this FileReader is closed")
        return self._reader
