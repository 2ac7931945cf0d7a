"""FileWriter: MindSpore's mindrecord.FileWriter over the C++ ShardWriter."""
import json
import os
from typing import Any

from mindrecord import _core, config
from mindrecord._checks import check_filename
from mindrecord.exceptions import (AlreadyExistsError, InvalidArgumentError, MRMDefineIndexError, MRMGetMetaError,
                                   MRMInvalidHeaderSizeError, MRMInvalidPageSizeError, MRMInvalidSchemaError,
                                   MRMValidateDataError, ParamTypeError, ParamValueError, StateError)

SUCCESS = 0

_HEADER_RANGE = (_core.MIN_HEADER_SIZE, _core.MAX_HEADER_SIZE)
_PAGE_RANGE = (_core.MIN_PAGE_SIZE, _core.MAX_PAGE_SIZE)


def _shard_names(file_name: str, shard_num: int) -> list[str]:
    if shard_num == 1:
        return [file_name]
    width = len(str(shard_num - 1))
    return [file_name + str(i).rjust(width, "0") for i in range(shard_num)]


class FileWriter:
    """Writes a MindRecord dataset of `shard_num` shard files.

    With shard_num 1 the file is `file_name`; with N the files are
    file_name0..file_name{N-1}. Each shard gets a SQLite index `<shard>.db`.
    Call add_schema (once), optionally add_index / set_header_size /
    set_page_size, then write_raw_data (any number of times) and commit().
    Nothing appears under the final names until commit() succeeds.

    Every row is checked against the schema before anything is written: a row
    that does not match raises MRMValidateDataError (a ValueError and a
    RuntimeError) naming the row and the field; no row is dropped silently
    (MindSpore drops such rows with a log line). Fields of a row that the
    schema does not have are not stored, as in MindSpore.

    Errors are MindSpore's classes (ParamValueError, MRMInvalidSchemaError,
    ...), which also derive from the built-in our API raised before
    (ValueError, FileExistsError): see mindrecord.exceptions.

    Extensions (keyword-only): `checksums` (default True) adds our XXH3
    page/header checksums and per-64 KiB piece tables (a row's first read
    checks one piece, not its page), which MindSpore ignores; False writes
    output identical to MindSpore's. `version` "3.0" (default) or "2.0" (no
    integer-array packing, to reproduce old files). `write_mode` "auto"
    (default) or "buffered": pages written through the page cache and
    flushed in the background every 32 MiB, so commit's fsync finds little
    left to write; "direct": pages written with O_DIRECT by background I/O
    threads where the file system takes it, as the CLI's --write-mode; the
    files are byte-identical either way.

    Compression (our extension, keyword-only or set_compression()):
    `compression` None/"none" (default: plain MindSpore output), "lz4" or
    "zstd"; `compression_level` zstd level 1..22 (default 3); `dictionary`
    True trains a zstd dictionary from the first rows and stores it in the
    header; `compress_raw` True compresses each row's non-blob part (scalars,
    strings) too. Each row's blob fields are compressed alone (random access
    stays O(1)); already-compressed values (JPEG, PNG, ...) are stored as
    they are.
    Compressed datasets carry version "3.0+mr-lz4" / "3.0+mr-zstd", which
    MindSpore refuses; our readers read them transparently.

    Thread safety: not thread-safe; drive one writer from one thread.
    """

    _writer: Any  # _core.Writer once opened, else None
    _schema: str | None
    _index: list[str] | None
    _checksums: bool | None  # None: an append keeps the dataset's
    _version: str | None
    _header_size: int | None
    _page_size: int | None

    def __init__(self, file_name: str, shard_num: int = 1, overwrite: bool = False, *, checksums: bool = True,
                 version: str = "3.0", compression: str | None = None, compression_level: int | None = None,
                 dictionary: bool = False, compress_raw: bool = False, write_mode: str = "auto") -> None:
        check_filename(file_name)
        if shard_num is None:
            raise ParamValueError("Parameter shard_num is None.")
        if not isinstance(shard_num, int) or isinstance(shard_num, bool):
            raise ParamValueError("Parameter shard_num's type is not int.")
        if not 1 <= shard_num <= 1000:
            raise ParamValueError("Parameter shard_num's value: {} should between 1 and 1000.".format(shard_num))
        if not isinstance(overwrite, bool):
            raise ParamValueError("Parameter overwrite's type is not bool.")
        self._file_name = file_name
        self._shard_num = shard_num
        self._overwrite = overwrite
        if version not in ("3.0", "2.0"):
            raise ParamValueError("version must be \"3.0\" or \"2.0\", got %r" % (version,))
        self._checksums = bool(checksums)
        self._version = version
        if write_mode not in ("auto", "direct", "buffered"):
            raise ParamValueError("write_mode must be \"auto\", \"direct\" or \"buffered\", got %r" % (write_mode,))
        self._direct_writes = write_mode == "direct"
        if not self._overwrite:
            for p in _shard_names(file_name, shard_num):
                for q in (p, p + ".db"):
                    if os.path.exists(q):
                        raise AlreadyExistsError("Invalid file, mindrecord files already exist. Please check file "
                                                 "path: %s (pass overwrite=True to replace it)" % q)
        self._schema = None
        self._desc = ""
        self._index = None
        self._header_size = _core.DEFAULT_HEADER_SIZE
        self._page_size = _core.DEFAULT_PAGE_SIZE
        self._writer = None
        self._rows = 0
        self._done = False
        self._compression = "none"
        self.set_compression(compression, compression_level, dictionary, compress_raw)

    @classmethod
    def open_for_append(cls, file_name: str) -> "FileWriter":
        """Opens an existing dataset (any of its shard files) to add rows, as
        MindSpore's FileWriter.open_for_append: then write_raw_data() and
        commit(). Row ids continue; the dataset keeps its schema, index
        fields, sizes, version, checksums and compression. Until commit() the
        dataset reads as before (readers opening it meanwhile get an OSError
        saying an append is in progress); abandon() or a crash leaves it as it
        was."""
        check_filename(file_name)
        protection = _core.protection_of(file_name)
        if protection:
            raise NotImplementedError("%s: appending to an encrypted or hashed dataset is not supported by "
                                      "mindrecord (this one is %s); write a new dataset" % (file_name, protection))
        self = cls.__new__(cls)
        self._writer = _core.Writer.open_for_append(file_name)
        self._file_name = file_name
        self._shard_num = len(self._writer.shard_paths)
        self._overwrite = False
        self._checksums = None
        self._version = None
        self._schema = self._writer.schema_json
        self._desc = ""
        self._index = None
        self._header_size = None
        self._page_size = None
        self._rows = self._writer.rows_written
        self._done = False
        self._compression = self._writer.compression
        return self

    def add_schema(self, content: dict[str, dict], desc: str | None = None) -> int:
        """Sets the schema: {"name": {"type": "int32", "shape": [-1]}, ...}.
        Types: int32, int64, float32, float64, string, bytes. Returns 0 (the
        schema id). A bad schema raises MRMInvalidSchemaError."""
        if self._schema is not None:
            raise StateError("the schema is already set: a dataset has exactly one schema")
        if not isinstance(content, dict) or not content:
            raise MRMInvalidSchemaError("schema must be a non-empty dict of field name -> {'type': ..., 'shape': ...}")
        try:
            text = json.dumps(content)
        except TypeError as e:
            raise MRMInvalidSchemaError(str(e)) from None
        desc = "" if desc is None else str(desc)
        try:
            _core.check_schema(text, desc, None)
        except ValueError as e:
            raise MRMInvalidSchemaError(str(e)) from None
        self._schema, self._desc = text, desc
        return 0

    def add_index(self, index_fields: list[str] | tuple[str, ...]) -> int:
        """Indexed fields (scalar, non-bytes); default: every scalar non-bytes
        field. Returns 0."""
        if not index_fields or not isinstance(index_fields, (list, tuple)):
            raise ParamTypeError("index_fields", "list")
        if not all(isinstance(f, str) for f in index_fields):
            raise ParamTypeError("index field", "str")
        if self._schema is None:
            raise MRMGetMetaError("Failed to get meta info: add_schema() must come before add_index()")
        self._check_not_started("add_index")
        try:
            _core.check_schema(self._schema, self._desc, list(index_fields))
        except ValueError as e:
            raise MRMDefineIndexError(str(e)) from None
        self._index = list(index_fields)
        return 0

    def set_header_size(self, header_size: int) -> int:
        """Bytes reserved for each shard's header: a multiple of 4 in [16 KiB, 128 MiB]."""
        self._check_not_started("set_header_size")
        self._header_size = self._check_size("header_size", header_size, _HEADER_RANGE, MRMInvalidHeaderSizeError)
        return 0

    def set_page_size(self, page_size: int) -> int:
        """Page slot size: a multiple of 4 in [32 KiB, 256 MiB]; a row larger than a page is refused."""
        self._check_not_started("set_page_size")
        self._page_size = self._check_size("page_size", page_size, _PAGE_RANGE, MRMInvalidPageSizeError)
        return 0

    def set_compression(self, codec: str | None, level: int | None = None, dictionary: bool = False,
                        compress_raw: bool = False) -> int:
        """Per-row compression: codec None/"none", "lz4" or "zstd"; `level`
        (zstd only) 1..22, default 3; `dictionary` (zstd only) trains and
        stores a zstd dictionary; `compress_raw` compresses the non-blob part
        of each row too. Returns 0."""
        self._check_not_started("set_compression")
        codec = "none" if codec is None else codec
        if codec not in ("none", "lz4", "zstd"):
            raise ParamValueError("compression must be None, \"none\", \"lz4\" or \"zstd\", got %r" % (codec,))
        if level is not None:
            if codec != "zstd":
                raise ParamValueError("compression_level applies to zstd only (compression is %r)" % (codec,))
            if not isinstance(level, int) or isinstance(level, bool) or not 1 <= level <= 22:
                raise ParamValueError("compression_level must be an int in [1, 22], got %r" % (level,))
        if not isinstance(dictionary, bool):
            raise ParamValueError("dictionary must be a bool, got %r" % (dictionary,))
        if not isinstance(compress_raw, bool):
            raise ParamValueError("compress_raw must be a bool, got %r" % (compress_raw,))
        if compress_raw and codec == "none":
            raise ParamValueError("compress_raw=True needs compression \"lz4\" or \"zstd\"")
        if dictionary and codec != "zstd":
            raise ParamValueError("dictionary=True needs compression=\"zstd\" (compression is %r)" % (codec,))
        if codec != "none" and self._version != "3.0":
            raise ParamValueError("compression needs version \"3.0\" (got version %r)" % (self._version,))
        spec = codec
        if codec == "zstd":
            spec = "zstd:%d" % (3 if level is None else level) + ("+dict" if dictionary else "")
        if compress_raw:
            spec += "+raw"
        self._compression = spec
        return 0

    @property
    def compression(self) -> str:
        """The compression spec in effect: "none", "lz4", "zstd:3", "zstd:3+dict",
        "zstd:3+dict+raw"."""
        return self._compression

    def write_raw_data(self, raw_data: list[dict[str, object]], parallel_writer: bool = False) -> int:
        """Writes a list of row dicts (int, float, str, bytes, numpy scalars
        and arrays, lists for array fields). Returns SUCCESS (0). As in
        MindSpore, the rows of one call are cut into one contiguous block
        per shard (shard 0 first), so a sequential read returns them in the
        order written; the shards that get one row more (when the rows do not
        divide evenly) rotate with the rows written so far instead of being
        drawn at random. `parallel_writer` (MindSpore's worker processes)
        changes nothing here: rows are always encoded in C++."""
        if not isinstance(parallel_writer, bool):
            raise TypeError("The parameter `parallel_writer` must be bool.")
        if isinstance(raw_data, dict):
            raw_data = [raw_data]
        if not isinstance(raw_data, list):
            raise ParamTypeError("raw_data", "list")
        self._open("write_raw_data")
        try:
            self._writer.write(raw_data, self._rows)
        except InvalidArgumentError as e:
            raise MRMValidateDataError(str(e)) from None
        self._rows += len(raw_data)
        return SUCCESS

    def commit(self) -> int:
        """Flushes, indexes and renames the shards into place. When
        set_hash_mode / set_enc_key are set (mindrecord.config), each shard's
        and index's digest is appended and they are encrypted, as MindSpore
        does, before they take their names: a failed commit leaves no plain
        dataset behind. Returns SUCCESS (0)."""
        self._open("commit")
        self._writer.commit(protect=config._protects())
        self._done = True
        return SUCCESS

    def abandon(self) -> None:
        """Drops everything written so far; no output file is left."""
        if self._writer is not None:
            self._writer.abandon()
        self._done = True

    @property
    def shard_paths(self) -> list[str]:
        if self._writer is not None:
            return list(self._writer.shard_paths)
        return _shard_names(self._file_name, self._shard_num)

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is not None:
            self.abandon()
        elif not self._done:
            self.commit()
        return False

    def _open(self, what):
        if self._done:
            raise StateError("Not allowed to call `%s` on flushed MindRecord files: this FileWriter is already "
                             "committed or abandoned (to add rows, open the dataset with "
                             "FileWriter.open_for_append)" % what)
        if self._schema is None:
            raise MRMGetMetaError("Failed to get meta info: add_schema() must come before %s()" % what)
        if self._writer is None:
            self._writer = _core.Writer(self._file_name, self._schema, self._desc, self._shard_num,
                                        self._header_size, self._page_size, self._index, self._overwrite,
                                        self._checksums, self._version, self._compression, self._direct_writes)

    def _check_not_started(self, what):
        if self._writer is not None:
            raise StateError("%s() must come before the first write_raw_data()" % what)

    @staticmethod
    def _check_size(name, value, bounds, error):
        if not isinstance(value, int) or isinstance(value, bool):
            raise error("%s must be an int, got %r" % (name, value))
        lo, hi = bounds
        if value < lo or value > hi or value % 4:
            raise error("%s must be a multiple of 4 in [%d, %d], got %d" % (name, lo, hi, value))
        return value
