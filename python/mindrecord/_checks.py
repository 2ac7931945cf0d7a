"""Argument checks shared by FileWriter, FileReader, MindPage and the
converters, with MindSpore's rules and wording (its shardutils.check_filename
and check_parameter).

Thread safety: pure functions.
"""
import os

from mindrecord.exceptions import ParamValueError

# Characters MindSpore refuses in a file name (the last path component).
_FORBIDDEN = set('\\/:*?"<>|`&\';')
MIN_CONSUMER_COUNT = 1
MAX_CONSUMER_COUNT = 128


def check_filename(path, arg_name="File path"):
    """A MindRecord file path as MindSpore accepts it: a non-empty str, not
    ending with '/', whose name holds none of \\/:*?"<>|`&;' and neither
    starts nor ends with a space. ParamValueError (a ValueError) otherwise."""
    if not path:
        raise ParamValueError("{} is not allowed None or empty!".format(arg_name))
    if not isinstance(path, str):
        raise ParamValueError("File path: {} is not string.".format(path))
    if path.endswith("/"):
        raise ParamValueError("File path can not end with '/': {!r}".format(path))
    name = os.path.basename(path)
    if set(name) & _FORBIDDEN:
        raise ParamValueError("File name should not contains \\/:*?\"<>|`&;' (got {!r})".format(path))
    if name.startswith(" ") or name.endswith(" "):
        raise ParamValueError("File name should not start/end with space (got {!r})".format(path))
    return path


def check_file_names(file_name):
    """A path or a non-empty list of paths, each checked; returns a list."""
    if isinstance(file_name, (list, tuple)):
        if not file_name:
            raise ParamValueError("File path list is empty.")
        return [check_filename(f) for f in file_name]
    return [check_filename(file_name)]


def check_num_consumer(value):
    if value is None:
        raise ParamValueError("Parameter num_consumer is None.")
    if not isinstance(value, int) or isinstance(value, bool):
        raise ParamValueError("Parameter num_consumer is not int.")
    if not MIN_CONSUMER_COUNT <= value <= MAX_CONSUMER_COUNT:
        raise ParamValueError("Parameter num_consumer: {} should between {} and {}."
                              .format(value, MIN_CONSUMER_COUNT, MAX_CONSUMER_COUNT))
    return value
