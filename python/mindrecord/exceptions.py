"""MindSpore's mindrecord exception classes, and which of ours are also which.

MindSpore's Python layer raises MindRecordException subclasses (ParamValueError,
MRMInvalidSchemaError, ...) and its C++ layer RuntimeError. Our API documents
the built-in exceptions (ValueError, FileNotFoundError, ...). Every class here
is MindSpore's, with the same name, constructor arguments and text
("[ParamValueError]: Invalid parameter value. <detail>"); those we raise where
we used to raise a built-in also derive from that built-in, so both
`except ParamValueError:` and `except ValueError:` catch them. Errors from the
C++ engine (mindrecord._core) derive from the built-in and RuntimeError:
NotFoundError (FileNotFoundError), AlreadyExistsError (FileExistsError),
CorruptionError and ReadWriteError (OSError), InvalidArgumentError and
UnsupportedError (ValueError).

Thread safety: exception classes are immutable; instances belong to the
raising thread.
"""
from mindrecord._core import (AlreadyExistsError, CorruptionError, InvalidArgumentError, NotFoundError,
                              ReadWriteError, UnsupportedError)

# MindSpore's base message of each class (its EXCEPTIONS table).
_BASE_MESSAGES = {
    "UnknownError": "Unknown Error.",
    "ParamTypeError": "Param type is error.",
    "ParamValueError": "Param value is error.",
    "ParamMissError": "Param missing.",
    "PathNotExistsError": "Path does not exist.",
    "DbConnectionError": "Db connection is error.",
    "MRMOpenError": "MindRecord could not open.",
    "MRMOpenForAppendError": "MindRecord could not open for append.",
    "MRMInvalidPageSizeError": "Failed to set page size.",
    "MRMInvalidHeaderSizeError": "Failed to set header size.",
    "MRMSetHeaderError": "Failed to set header.",
    "MRMWriteDatasetError": "Failed to write dataset.",
    "MRMCommitError": "Failed to commit.",
    "MRMLaunchError": "Failed to launch.",
    "MRMFinishError": "Failed to finish.",
    "MRMCloseError": "Failed to close.",
    "MRMAddSchemaError": "Failed to add schema.",
    "MRMAddIndexError": "Failed to add index field.",
    "MRMBuildSchemaError": "Failed to build schema.",
    "MRMGetMetaError": "Failed to get meta info.",
    "MRMIndexGeneratorError": "Failed to create index generator.",
    "MRMGenerateIndexError": "Failed to generate index.",
    "MRMInitSegmentError": "Failed to initialize segment.",
    "MRMFetchCandidateFieldsError": "Failed to fetch candidate category fields.",
    "MRMReadCategoryInfoError": "Failed to read category information.",
    "MRMFetchDataError": "Failed to fetch data by category.",
    "MRMInvalidSchemaError": "Schema is error.",
    "MRMValidateDataError": "Raw data is valid.",
    "MRMDefineIndexError": "Index field is error.",
    "MRMDefineBlobError": "Blob field is error.",
    "MRMUnsupportedSchemaError": "Schema is not supported.",
    "MRMDefineCategoryError": "Category field is error.",
}


class MindRecordException(Exception):
    """Base of MindSpore's mindrecord errors: str() is "[ClassName]: message"."""

    def __init__(self, message=None):
        name = type(self).__name__
        self._error_msg = message if message is not None else _BASE_MESSAGES.get(name, _BASE_MESSAGES["UnknownError"])
        super().__init__(self._error_msg)

    def __str__(self):
        return "[{}]: {}".format(type(self).__name__, self._error_msg)

    @property
    def error_msg(self):
        """The message without the class name."""
        return self._error_msg

    @error_msg.setter
    def error_msg(self, msg):
        self._error_msg = msg
        self.args = (msg,)


class UnknownError(MindRecordException):
    pass


class ParamValueError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Invalid parameter value. {}".format(error_detail))


class ParamTypeError(MindRecordException, TypeError, ValueError):
    """MindSpore's ParamTypeError(param_name, expected_type); ours is also a
    ValueError, which our API raised for wrong types before."""

    def __init__(self, param_name, expected_type):
        super().__init__("Invalid parameter type. '{}' expect {} type.".format(param_name, expected_type))


class ParamMissError(MindRecordException, ValueError):
    def __init__(self, param_name):
        super().__init__("Param missing. '{}' is required.".format(param_name))


class PathNotExistsError(MindRecordException, FileNotFoundError):
    def __init__(self, error_path):
        super().__init__("Invalid path. {}".format(error_path))


class DbConnectionError(MindRecordException):
    def __init__(self, error_detail):
        super().__init__("Db connection is error. Detail: {}".format(error_detail))


class MRMOpenError(MindRecordException, RuntimeError):
    def __init__(self):
        super().__init__("MindRecord File could not open successfully.")


class MRMOpenForAppendError(MindRecordException, RuntimeError):
    def __init__(self):
        super().__init__("MindRecord File could not open successfully for append.")


def _plain(name, *bases):
    """A MindSpore class whose constructor takes no detail."""
    return type(name, (MindRecordException,) + bases, {"__doc__": _BASE_MESSAGES[name]})


MRMInvalidPageSizeError = _plain("MRMInvalidPageSizeError", ValueError)
MRMInvalidHeaderSizeError = _plain("MRMInvalidHeaderSizeError", ValueError)
MRMSetHeaderError = _plain("MRMSetHeaderError")
MRMWriteDatasetError = _plain("MRMWriteDatasetError")
MRMCommitError = _plain("MRMCommitError")
MRMLaunchError = _plain("MRMLaunchError")
MRMFinishError = _plain("MRMFinishError")
MRMCloseError = _plain("MRMCloseError")
MRMAddSchemaError = _plain("MRMAddSchemaError")
MRMAddIndexError = _plain("MRMAddIndexError")
MRMBuildSchemaError = _plain("MRMBuildSchemaError")
MRMGetMetaError = _plain("MRMGetMetaError")
MRMIndexGeneratorError = _plain("MRMIndexGeneratorError")
MRMGenerateIndexError = _plain("MRMGenerateIndexError")
MRMInitSegmentError = _plain("MRMInitSegmentError")
MRMFetchCandidateFieldsError = _plain("MRMFetchCandidateFieldsError")
MRMReadCategoryInfoError = _plain("MRMReadCategoryInfoError")
MRMFetchDataError = _plain("MRMFetchDataError")


class MRMInvalidSchemaError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Schema format is error. Detail: {}".format(error_detail))


class MRMValidateDataError(MindRecordException, ValueError, RuntimeError):
    """A row that does not match the schema (MindSpore's C++ writer raises
    RuntimeError for it, its Python layer this class)."""

    def __init__(self, error_detail):
        super().__init__("Raw data do not match the schema. Detail: {}".format(error_detail))


class MRMDefineIndexError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Failed to define index field. Detail: {}".format(error_detail))


class MRMDefineBlobError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Failed to define blob field. Detail: {}".format(error_detail))


class MRMUnsupportedSchemaError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Schema is not supported. Detail: {}".format(error_detail))


class MRMDefineCategoryError(MindRecordException, ValueError):
    def __init__(self, error_detail):
        super().__init__("Failed to define category field. Detail: {}".format(error_detail))


class StateError(ValueError, RuntimeError):
    """A call out of order (e.g. write_raw_data after commit), which
    MindSpore raises as RuntimeError; a ValueError in our API."""


__all__ = [
    "MindRecordException", "UnknownError", "ParamValueError", "ParamTypeError", "ParamMissError",
    "PathNotExistsError", "DbConnectionError", "MRMOpenError", "MRMOpenForAppendError", "MRMInvalidPageSizeError",
    "MRMInvalidHeaderSizeError", "MRMSetHeaderError", "MRMWriteDatasetError", "MRMCommitError", "MRMLaunchError",
    "MRMFinishError", "MRMCloseError", "MRMAddSchemaError", "MRMAddIndexError", "MRMBuildSchemaError",
    "MRMGetMetaError", "MRMIndexGeneratorError", "MRMGenerateIndexError", "MRMInitSegmentError",
    "MRMFetchCandidateFieldsError", "MRMReadCategoryInfoError", "MRMFetchDataError", "MRMInvalidSchemaError",
    "MRMValidateDataError", "MRMDefineIndexError", "MRMDefineBlobError", "MRMUnsupportedSchemaError",
    "MRMDefineCategoryError", "StateError", "NotFoundError", "AlreadyExistsError", "CorruptionError",
    "ReadWriteError", "InvalidArgumentError", "UnsupportedError",
]
