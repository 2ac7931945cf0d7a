"""MindPage: MindSpore's category paging over the SQLite index."""
import json

from mindrecord import _core
from mindrecord._checks import check_num_consumer
from mindrecord.exceptions import InvalidArgumentError, MRMDefineCategoryError, ParamValueError
from mindrecord.filereader import _open_reader

# Decoded bytes one page of rows may hold (as the pipeline's max_batch_bytes):
# a page is returned whole, so rows that inflate past it are an error.
PAGE_BYTES = 2 << 30


def _category_name(value):
    """The category's name as MindSpore reads it back from SQLite as text."""
    if isinstance(value, float):
        # NUMERIC affinity stores integral floats as integers.
        if value.is_integer() and abs(value) < 2 ** 63:
            return str(int(value))
        text = "%.15g" % value
        if not any(c in text for c in ".en"):
            text += ".0"
        return text
    return str(value)


class MindPage:
    """Pages through the rows of one category of an index field.

    Categories are the distinct values of `category_field` (an index field),
    numbered 0.. in the order of their names as strings (MindSpore's order);
    a category's rows come in row order (shard 0 first).

    Thread safety: the query methods may be called from several threads;
    setting category_field while another thread queries is not safe.
    """

    def __init__(self, file_name: str | list[str], num_consumer: int = 4, *,
                 remote: dict[str, object] | None = None) -> None:
        # num_consumer is checked as MindSpore does; pages are small reads, made by one thread.
        check_num_consumer(num_consumer)
        self._reader = _open_reader(file_name, None, remote=remote)
        self._candidates = list(self._reader.index_fields)
        self._category_field: str | None = None
        self._categories: list[tuple[str, list[int]]] | None = None  # [(name, [row ids])]

    @property
    def candidate_fields(self) -> list[str]:
        """Index fields that can serve as the category field."""
        return list(self._candidates)

    def get_category_fields(self) -> list[str]:
        return list(self._candidates)

    @property
    def category_field(self) -> str | None:
        return self._category_field

    @category_field.setter
    def category_field(self, category_field: str) -> None:
        self.set_category_field(category_field)

    def set_category_field(self, category_field: str) -> int:
        if not isinstance(category_field, str) or not category_field:
            raise ParamValueError("category_field must be a non-empty str")
        if category_field not in self._candidates:
            raise MRMDefineCategoryError("field '%s' is not a candidate category field (candidates: %s)"
                                         % (category_field, ", ".join(self._candidates)))
        merged: dict[str, list[int]] = {}
        for value, ids in self._reader.group_by(category_field):
            merged.setdefault(_category_name(value), []).extend(ids)
        self._categories = sorted((name, sorted(ids)) for name, ids in merged.items())
        self._category_field = category_field
        return 0

    def read_category_info(self) -> str:
        """JSON text: {"categories": [{"count", "id", "name"}, ...], "key": "<field>_0"}."""
        cats = self._cats()
        return json.dumps({"categories": [{"count": len(ids), "id": i, "name": name}
                                          for i, (name, ids) in enumerate(cats)],
                           "key": "%s_0" % self._category_field}, separators=(",", ":"))

    def read_at_page_by_id(self, category_id: int, page: int, num_row: int) -> list[dict[str, object]]:
        """Rows [page*num_row, (page+1)*num_row) of category `category_id`, as dicts."""
        if not isinstance(category_id, int) or isinstance(category_id, bool):
            raise ParamValueError("category_id must be an int, got %r" % (category_id,))
        _check_page(page, num_row)
        cats = self._cats()
        if not 0 <= category_id < len(cats):
            raise InvalidArgumentError("Invalid data, category_id: %d must be in the range [0, %d]."
                                       % (category_id, len(cats)))
        name, ids = cats[category_id]
        return self._page(name, ids, page, num_row)

    def read_at_page_by_name(self, category_name: str, page: int, num_row: int) -> list[dict[str, object]]:
        """As read_at_page_by_id, for the category named `category_name`."""
        if not isinstance(category_name, str):
            raise ParamValueError("category_name must be a str, got %r" % (category_name,))
        _check_page(page, num_row)
        for name, ids in self._cats():
            if name == category_name:
                return self._page(name, ids, page, num_row)
        raise InvalidArgumentError("category_name: %s could not found (not a category of field '%s')."
                                   % (category_name, self._category_field))

    def _cats(self):
        if self._categories is None:
            raise MRMDefineCategoryError("set category_field first (candidates: %s)" % ", ".join(self._candidates))
        return self._categories

    def _page(self, name, ids, page, num_row):
        if page * num_row >= len(ids):
            raise InvalidArgumentError("page %d of %d rows is past the category's %d rows"
                                       % (page, num_row, len(ids)))
        wanted = ids[page * num_row:(page + 1) * num_row]
        rows = self._reader.read_ids(wanted, True, PAGE_BYTES)
        # The index (.db) says which rows a category holds; a row whose own
        # value differs is reported, not returned as one of the category.
        for row_id, row in zip(wanted, rows):
            held = _category_name(row[self._category_field])
            if held != name:
                raise _core.CorruptionError(
                    "%s: the index lists row %d under %s '%s', but the row holds '%s': the index (.db) is wrong; "
                    "`mindrecord verify --deep` lists its errors and `mindrecord index rebuild --force` rewrites it"
                    % (self._reader.shard_paths[0], row_id, self._category_field, name, held))
        return rows


def _check_page(page, num_row):
    if not isinstance(page, int) or isinstance(page, bool) or page < 0:
        raise ParamValueError("page must be an int >= 0, got %r" % (page,))
    if not isinstance(num_row, int) or isinstance(num_row, bool) or num_row <= 0:
        raise ParamValueError("num_row must be an int > 0, got %r" % (num_row,))
