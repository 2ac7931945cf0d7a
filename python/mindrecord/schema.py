"""mindspore.dataset.Schema: named, typed columns with optional shapes, and
the JSON schema files MindSpore's TFRecordDataset reads:

    {"datasetType": "TF", "numRows": 3,
     "columns": {"image": {"type": "uint8", "rank": 1},
                 "label": {"type": "int64", "rank": 1, "shape": [1]}}}

("columns" may also be a list of {"name": ..., "type": ..., ...}; an object's
columns come in name order, as MindSpore reads them; "t_impl", MindSpore's
choice of tensor storage, is accepted and changes nothing here). A column
with "shape" has that shape (at most one -1); without it, "rank" 0 is a
scalar and rank 1 (or none) a 1-D tensor of whatever length each row has.

Thread safety: a Schema is a plain Python object; do not change one that
another thread reads.
"""
import json

import numpy as np

__all__ = ["Schema", "as_schema"]

# MindSpore's type names; the ones a column of this package can hold.
_MS_TYPES = ("bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "float16",
             "float32", "float64", "string", "bytes")


def _type_name(de_type):
    """A MindSpore type name from a name, a numpy dtype or a mindspore dtype."""
    if isinstance(de_type, str):
        name = de_type
    elif de_type is str or de_type is bytes:
        name = "string"
    else:
        try:
            name = np.dtype(de_type).name
        except TypeError:
            name = str(de_type).rsplit(".", 1)[-1].lower()  # mindspore.int64 prints as Int64
    if name == "bool_":
        name = "bool"
    if name not in _MS_TYPES:
        raise TypeError("Unknown column type %r; one of %s" % (de_type, ", ".join(_MS_TYPES)))
    return name


def _shape(name, shape):
    if shape is None:
        return None
    if not isinstance(shape, (list, tuple)) or not all(isinstance(d, int) and not isinstance(d, bool)
                                                       for d in shape):
        raise TypeError("column %r: shape must be a list of int, got %r" % (name, shape))
    if any(d < -1 for d in shape) or list(shape).count(-1) > 1:
        raise ValueError("column %r: a shape's dimensions are sizes with at most one -1, got %r" % (name, shape))
    return list(shape)


class Schema:
    """mindspore.dataset.Schema(schema_file=None): the columns of a schema
    file (JSON, as in the module docstring), or none to add_column() to."""

    def __init__(self, schema_file=None):
        self.columns = []
        self.num_rows = 0
        self.dataset_type = ""
        if schema_file is not None:
            if not isinstance(schema_file, str):
                raise TypeError("schema_file must be a path, got %r" % (schema_file,))
            try:
                with open(schema_file, encoding="utf-8") as f:
                    obj = json.load(f)
            except OSError as e:
                raise ValueError("Schema file %s cannot be read: %s" % (schema_file, e)) from e
            except ValueError as e:
                raise RuntimeError("Schema file %s is not valid JSON: %s" % (schema_file, e)) from e
            self.from_json(obj, where=schema_file)

    def add_column(self, name, de_type, shape=None):
        """Adds column `name` of type `de_type` (a MindSpore type name, a
        numpy dtype or a mindspore dtype) and `shape` (None: any length)."""
        if not isinstance(name, str) or not name:
            raise ValueError("Column name must be a non-empty str, got %r" % (name,))
        if any(c["name"] == name for c in self.columns):
            raise ValueError("Column %r is already in the schema" % name)
        col = {"name": name, "type": _type_name(de_type)}
        shape = _shape(name, shape)
        if shape is not None:
            col["shape"] = shape
        col["rank"] = 1 if shape is None else len(shape)  # MindSpore's loader requires a rank
        self.columns.append(col)

    def parse_columns(self, columns):
        """Replaces the columns with `columns`: a list of {"name", "type",
        "shape"?, "rank"?} or a dict name -> {"type", "shape"?, "rank"?}."""
        self.columns = []
        if isinstance(columns, dict):
            # In name order: MindSpore reads the object with nlohmann::json, whose objects are sorted.
            items = [dict(spec, name=name) if isinstance(spec, dict) else spec
                     for name, spec in sorted(columns.items())]
        elif isinstance(columns, list):
            items = columns
        else:
            raise TypeError("columns must be a list or a dict, got %r" % (columns,))
        for spec in items:
            if not isinstance(spec, dict) or "name" not in spec or "type" not in spec:
                raise RuntimeError("a column must give 'name' and 'type', got %r" % (spec,))
            unknown = set(spec) - {"name", "type", "shape", "rank", "t_impl"}
            if unknown:
                raise RuntimeError("column %r: unknown key(s) %s" % (spec["name"], sorted(unknown)))
            self.add_column(spec["name"], spec["type"], spec.get("shape"))
            if "shape" not in spec and "rank" in spec:
                rank = spec["rank"]
                if not isinstance(rank, int) or isinstance(rank, bool) or rank < 0:
                    raise RuntimeError("column %r: rank must be an int >= 0, got %r" % (spec["name"], rank))
                self.columns[-1]["rank"] = rank
            elif "shape" in spec and "rank" in spec and spec["rank"] != len(spec["shape"]):
                raise RuntimeError("column %r: rank %r but shape %r" % (spec["name"], spec["rank"], spec["shape"]))

    def from_json(self, json_obj, where="json_obj"):
        """Takes the columns (and numRows, datasetType) of a schema dict."""
        if not isinstance(json_obj, dict):
            raise TypeError("%s: a schema is a JSON object, got %r" % (where, type(json_obj).__name__))
        unknown = set(json_obj) - {"datasetType", "numRows", "columns"}
        if unknown:
            raise RuntimeError("%s: unknown schema key(s) %s" % (where, sorted(unknown)))
        if "columns" not in json_obj:
            raise RuntimeError("%s: the schema has no 'columns'" % where)
        num_rows = json_obj.get("numRows", 0)
        if not isinstance(num_rows, int) or isinstance(num_rows, bool) or num_rows < 0:
            raise RuntimeError("%s: numRows must be an int >= 0, got %r" % (where, num_rows))
        self.parse_columns(json_obj["columns"])
        self.num_rows = num_rows
        self.dataset_type = json_obj.get("datasetType", "")

    def to_json(self):
        """The schema as MindSpore's JSON (columns as a name -> spec dict)."""
        obj = {"columns": {c["name"]: {k: v for k, v in c.items() if k != "name"} for c in self.columns}}
        if self.dataset_type:
            obj["datasetType"] = self.dataset_type
        if self.num_rows:
            obj["numRows"] = self.num_rows
        return json.dumps(obj, indent=2)

    def column_shape(self, col):
        """The shape a column's rows take: a list (at most one -1), [] for a
        scalar, or None for a 1-D tensor of any length."""
        if "shape" in col:
            return list(col["shape"])
        rank = col.get("rank", 1)
        if rank == 0:
            return []
        if rank == 1:
            return None
        raise ValueError("column %r: rank %d without a shape (give 'shape', with at most one -1)"
                         % (col["name"], rank))

    def __str__(self):
        return self.to_json()

    def __repr__(self):
        return "Schema(%s)" % self.to_json()


def as_schema(schema):
    """`schema` (a schema file's path or a Schema) as a Schema with columns."""
    if isinstance(schema, str):
        schema = Schema(schema)
    if not isinstance(schema, Schema):
        raise TypeError("schema must be a path to a schema file or a mindrecord.Schema, got %r" % (schema,))
    if not schema.columns:
        raise ValueError("the schema has no columns")
    return schema
