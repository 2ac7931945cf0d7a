"""recover(): the user's decision about an interrupted append or commit that
opening a dataset reported and left alone (the CLI's `mindrecord recover`;
see cli/README.md and "Threat model" in readers/README.md)."""
import os

from mindrecord import _core


def recover(file_name: str, roll_back: bool = False, discard: bool = False) -> list[str]:
    """Finishes or undoes an interrupted append or commit of the dataset that
    `file_name` (any shard) belongs to; returns one line per thing done.

    Without flags: what every open does (roll back an interrupted append of
    these very files, finish an interrupted commit). `roll_back=True`: also
    roll back an append journaled for other files than the shards now in its
    place (a folder copied while the append ran). `discard=True`: remove the
    append journals and commit record without applying them, keeping the
    files as they are. The CorruptionError of an open that left a record
    alone says which applies.
    """
    if not isinstance(file_name, (str, os.PathLike)):
        raise TypeError("file_name must be a path, got %s" % type(file_name).__name__)
    if not isinstance(roll_back, bool) or not isinstance(discard, bool):
        raise TypeError("roll_back and discard must be bool")
    if roll_back and discard:
        raise ValueError("roll_back and discard exclude each other")
    mode = "roll_back" if roll_back else "discard" if discard else "open"
    return _core.recover(os.fspath(file_name), mode)
