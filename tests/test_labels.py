"""Class labels -> (classes, codes): the fast paths of ``_input.check_y_classification``
and ``_input.class_codes`` give exactly what the former implementations (kept below as
references: ``np.unique`` / ``np.searchsorted`` and checks of every label) give, results
and errors alike."""

import warnings

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fastdt import _input
from fastdt._config import CODE_DTYPE


# --------------------------------------------------------------------- references


def reference_check_y_classification(y, n):
    """check_y_classification before the fast paths (fastdt 75c15b5)."""
    if y is None:
        raise ValueError("y is None; a classifier requires y to be passed")
    y = _input._column_y(y, n)
    if y.dtype.kind == "c":
        raise ValueError("Complex data not supported")
    if y.dtype.kind == "f":
        if not np.all(np.isfinite(y)):
            raise ValueError("Input y contains NaN or infinity")
        if np.any(y != np.round(y)):
            raise ValueError(
                "Unknown label type: continuous. A classifier needs discrete labels; "
                "use task='regression' (or DecisionTreeRegressor) for a continuous target"
            )
    if y.dtype == object:
        if any(v is None or (isinstance(v, float) and np.isnan(v)) for v in y):
            raise ValueError("Input y contains missing labels (None or NaN)")
        kinds = {type(v) for v in y}
        if len({str if issubclass(k, str) else k for k in kinds}) > 1 and any(
            issubclass(k, str) for k in kinds
        ):
            raise ValueError("y mixes string and non-string labels; use one label type")
    try:
        classes, codes = np.unique(y, return_inverse=True)
    except TypeError as exc:
        raise ValueError(f"class labels cannot be ordered: {exc}") from exc
    return classes, codes.astype(CODE_DTYPE).ravel()


def reference_class_codes(classes, y, n):
    """class_codes before the fast path (fastdt 75c15b5)."""
    if y is None:
        raise ValueError("y is None; labels are needed")
    y = _input._column_y(y, n)
    try:
        pos = np.searchsorted(classes, y)
        pos = np.minimum(pos, classes.shape[0] - 1)
        ok = classes[pos] == y
    except (TypeError, ValueError):
        ok = np.zeros(y.shape[0], dtype=bool)
        pos = None
    ok = np.asarray(ok, dtype=bool)
    if ok.shape != y.shape or not ok.all():
        bad = np.unique((y if ok.shape != y.shape else y[~ok]).astype(str))[:5].tolist()
        raise ValueError(f"y has labels the tree was not fitted on (not classes of the "
                         f"tree): {bad} (classes: {classes.tolist()})")
    return pos.astype(CODE_DTYPE)


def outcome(fn, *args):
    """What ``fn(*args)`` does: ``("ok", result)`` or ``("error", type, message)``."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ("ok", fn(*args))
    except Exception as exc:  # noqa: BLE001 - the very exception is compared
        return ("error", type(exc), str(exc))


def assert_same_array(a, b):
    assert type(a) is type(b) is np.ndarray
    assert a.dtype == b.dtype and a.shape == b.shape
    assert a.tolist() == b.tolist()
    if a.dtype == object:  # the very labels, not only equal ones (1 == 1.0 == True)
        assert [type(v) for v in a] == [type(v) for v in b]
    if a.dtype.kind == "f":  # -0.0 is not 0.0
        assert np.array_equal(np.signbit(a), np.signbit(b))


def assert_same_labels(y, n=None):
    n = len(y) if n is None else n
    got = outcome(_input.check_y_classification, y, n)
    want = outcome(reference_check_y_classification, y, n)
    assert got[0] == want[0], (got, want)
    if want[0] == "error":
        assert got[1:] == want[1:]
        return None
    (classes, codes), (ref_classes, ref_codes) = got[1], want[1]
    assert_same_array(classes, ref_classes)
    assert_same_array(codes, ref_codes)
    assert codes.dtype == CODE_DTYPE and codes.flags.c_contiguous
    return classes, codes


def assert_same_codes(classes, y, n=None):
    n = len(y) if n is None else n
    got = outcome(_input.class_codes, classes, y, n)
    want = outcome(reference_class_codes, classes, y, n)
    assert got[0] == want[0], (got, want)
    if want[0] == "error":
        assert got[1:] == want[1:]
    else:
        assert_same_array(got[1], want[1])


# --------------------------------------------------------------------- label kinds


def _obj(values):
    out = np.empty(len(values), dtype=object)
    out[:] = values
    return out


rng = np.random.default_rng(0)
INTS = rng.integers(-3, 4, size=200)

CASES = {
    # ints of every width, negative, wide and single-valued
    **{f"int {dt}": INTS.astype(dt) for dt in ("int8", "int16", "int32", "int64")},
    **{f"uint {dt}": (INTS + 3).astype(dt) for dt in ("uint8", "uint16", "uint32", "uint64")},
    "int8 full range": np.array([-128, 127, 0, -128, 5], dtype=np.int8),
    "uint8 full range": np.array([0, 255, 7, 255], dtype=np.uint8),
    "int64 extremes": np.array([np.iinfo(np.int64).min, np.iinfo(np.int64).max, 0, 0]),
    "uint64 above int64": np.array([2**64 - 1, 2**64 - 3, 2**64 - 1], dtype=np.uint64),
    "uint64 wide": np.array([0, 2**64 - 1, 5], dtype=np.uint64),
    "int64 near min": np.iinfo(np.int64).min + INTS.astype(np.int64) + 3,
    "int wide range": np.array([10**12, -(10**12), 3, 3]),
    "int sparse": np.array([0, 100_000, 0, 200_000]),
    "int one class": np.full(50, 7),
    "int one row": np.array([4]),
    "int list": [3, 1, 2, 1],
    # bools
    "bool": INTS > 0,
    "bool all true": np.ones(20, dtype=bool),
    "bool all false": np.zeros(20, dtype=bool),
    "bool list": [True, False, True],
    # floats: whole numbers, else errors
    "float64 whole": INTS.astype(np.float64),
    "float32 whole": INTS.astype(np.float32),
    "float16 whole": INTS.astype(np.float16),
    "float negative zero": np.array([-0.0, 1.0, -0.0, 2.0]),
    "float both zeros": np.array([0.0, -0.0, 1.0, -0.0, 0.0]),
    "float zero": np.array([0.0, 1.0, 0.0]),
    "float huge": np.array([1e300, -1e300, 1e300]),
    "float 2**62": np.array([2.0**62, 2.0**62 - 1024, 0.0]),
    "float 2**63": np.array([2.0**63, 0.0]),
    "float nan": np.array([1.0, np.nan]),
    "float inf": np.array([1.0, np.inf]),
    "float continuous": np.array([1.0, 1.5]),
    "complex": np.array([1 + 1j, 2 + 0j]),
    # strings
    "numpy unicode": np.array(["b", "a", "c", "a"]),
    "numpy bytes": np.array([b"b", b"a", b"b"]),
    "object str": _obj(["yes", "no", "no", "maybe", "yes"]),
    "object str one": _obj(["x"] * 5),
    "object str unicode": _obj(["é", "e", "ß", "é", ""]),
    "object numpy str_": _obj([np.str_("b"), np.str_("a"), np.str_("b")]),
    "object str and str_": _obj(["b", np.str_("a"), "a", np.str_("b")]),
    "str list": ["b", "a", "b"],
    # object numbers and bools
    "object int": _obj([3, 1, 2, 1]),
    "object big int": _obj([2**70, -(2**70), 5, 2**70]),
    "object bool": _obj([True, False, True]),
    "object numpy int": _obj([np.int64(3), np.int64(1), np.int64(3)]),
    "object int and float": _obj([1, 2.0, 1.0, 3]),
    "object int and bool": _obj([1, True, 0, False]),
    "object float": _obj([1.0, 0.5, 1.0]),
    "object negative zero": _obj([-0.0, 0.0, 1.0]),
    # missing labels, mixed and unorderable ones
    "object None": _obj(["a", None, "b"]),
    "object nan": _obj(["a", float("nan")]),
    "object numpy nan": _obj(["a", np.float64("nan")]),
    "object float32 nan": _obj([np.float32("nan"), np.float32(1.0)]),
    "object pd.NA": _obj(["a", pd.NA]),
    "object pd.NA ints": _obj([1, pd.NA]),
    "object NaT": _obj([pd.NaT, pd.NaT]),
    "object only None": _obj([None, None]),
    "object str and int": _obj(["a", 1, "b"]),
    "object str and bool": _obj(["a", True]),
    "object str and bytes": _obj(["a", b"a"]),
    "object complex": _obj([1 + 1j, 2 + 0j]),
    "object unhashable": _obj([[1], [0], [1]]),
    "object tuples": _obj([(1, 2), (0, 1), (1, 2)]),
    "object dict": _obj([{}, {}]),
    "datetime64": np.array(["2020-01-02", "2020-01-01"], dtype="datetime64[D]"),
    # shapes
    "column vector": INTS.reshape(-1, 1),
    "column vector str": np.array([["a"], ["b"], ["a"]]),
    "2-D": np.zeros((4, 2)),
    "empty int": np.zeros(0, dtype=np.int64),
    "empty object": _obj([]),
}


@pytest.mark.parametrize("name", list(CASES))
def test_same_as_np_unique(name):
    assert_same_labels(CASES[name])


def test_none_y_and_wrong_length():
    assert_same_labels(None, 3)
    assert_same_labels(INTS, 5)
    assert_same_labels(_obj(["a", "b"]), 3)


SERIES = {
    "str": pd.Series(["b", "a", "b", "c"]),
    "object": pd.Series(["b", "a", "b"], dtype=object),
    "string": pd.Series(["b", "a", "b"], dtype="string"),
    "string missing": pd.Series(["b", None, "b"], dtype="string"),
    "str missing": pd.Series(["b", None, "b"], dtype="str"),
    "category str": pd.Series(["b", "a", "b"], dtype="category"),
    "category unused": pd.Series(pd.Categorical(["b", "b"], categories=["a", "b", "c"])),
    "category int": pd.Series([3, 1, 3], dtype="category"),
    "category missing": pd.Series(["b", None, "b"], dtype="category"),
    "bool": pd.Series([True, False, True]),
    "boolean": pd.Series([True, False, True], dtype="boolean"),
    "boolean missing": pd.Series([True, None, True], dtype="boolean"),
    "int": pd.Series([3, 1, 2]),
    "Int64": pd.Series([3, 1, 2], dtype="Int64"),
    "Int64 missing": pd.Series([3, None, 2], dtype="Int64"),
    "float": pd.Series([3.0, 1.0]),
    "float nan": pd.Series([3.0, np.nan]),
    "frame column": pd.DataFrame({"y": ["a", "b", "a"]}),
}


@pytest.mark.parametrize("name", list(SERIES))
def test_pandas_same_as_np_unique(name):
    assert_same_labels(SERIES[name])


def test_adult_labels(adult_income):
    classes, codes = assert_same_labels(adult_income)
    assert classes.tolist() == ["<=50K", ">50K"] and classes.dtype == object
    assert_same_labels(adult_income.to_numpy())
    assert_same_labels(adult_income.astype("category"))
    assert_same_codes(classes, adult_income)


@pytest.fixture(scope="module")
def adult_income():
    from fastdt.datasets import datasets_folder

    try:
        path = datasets_folder() / "adult.data"
    except Exception:  # noqa: BLE001 - no data folder here
        path = None
    if path is None or not path.exists():
        pytest.skip("the Adult data set is not available")
    return pd.read_csv(path, skipinitialspace=True)["income"]


# --------------------------------------------------------------------- generated labels


labels_of_one_kind = st.one_of(
    st.lists(st.integers(-5, 5), min_size=1, max_size=30).map(np.array),
    st.lists(st.integers(-(2**63), 2**63 - 1), min_size=1, max_size=10).map(np.array),
    st.lists(st.integers(0, 2**64 - 1), min_size=1, max_size=10).map(
        lambda v: np.array(v, dtype=np.uint64)),
    st.lists(st.booleans(), min_size=1, max_size=30).map(np.array),
    st.lists(st.integers(-5, 5).map(float) | st.just(-0.0), min_size=1, max_size=30).map(
        np.array),
    st.lists(st.floats(allow_nan=True, allow_infinity=True), min_size=1, max_size=10).map(
        np.array),
    st.lists(st.text(max_size=3), min_size=1, max_size=30).map(np.array),
    st.lists(st.text(max_size=3), min_size=1, max_size=30).map(_obj),
    st.lists(st.text(max_size=3), min_size=1, max_size=30).map(pd.Series),
)

mixed_objects = st.lists(
    st.one_of(st.integers(-3, 3), st.booleans(), st.sampled_from(["a", "b", "c"]),
              st.sampled_from([0.0, -0.0, 1.0, 2.5, float("nan")]), st.none()),
    min_size=1, max_size=12,
).map(_obj)


@settings(max_examples=300, deadline=None)
@given(labels_of_one_kind)
def test_generated_labels_same_as_np_unique(y):
    assert_same_labels(y)


@settings(max_examples=300, deadline=None)
@given(mixed_objects)
def test_generated_mixed_objects_same_as_np_unique(y):
    assert_same_labels(y)


# --------------------------------------------------------------------- class_codes


CODES_CASES = [
    ("str classes", _obj(["a", "b", "c"]), _obj(["c", "a", "a", "b"])),
    ("str classes, str Series", _obj(["a", "b"]), pd.Series(["b", "a", "b"])),
    ("str classes, unicode y", _obj(["a", "b"]), np.array(["b", "a"])),
    ("unseen label", _obj(["a", "b"]), _obj(["a", "z", "b", "y"])),
    ("int label for str classes", _obj(["a", "b"]), _obj([1, 2])),
    ("None label", _obj(["a", "b"]), _obj(["a", None])),
    ("mixed labels", _obj(["a", "b"]), _obj(["a", 1])),
    ("int classes", np.array([0, 1, 2]), np.array([2, 0, 1])),
    ("int classes, object ints", np.array([0, 1, 2]), _obj([2, 0, 1])),
    ("int classes, object bools", np.array([0, 1]), _obj([True, False])),
    ("int classes, object floats", np.array([0, 1]), _obj([1.0, 0.0])),
    ("int classes, str labels", np.array([0, 1]), _obj(["0", "1"])),
    ("int classes, unseen int", np.array([0, 1]), _obj([0, 5])),
    ("bool classes, object bools", np.array([False, True]), _obj([True, True])),
    ("object int classes", _obj([1, 2]), _obj([2, 2, 1])),
    ("unicode classes", np.array(["a", "b"]), _obj(["b", "a"])),
    ("unicode classes, unseen", np.array(["a", "b"]), _obj(["b", "x"])),
]


@pytest.mark.parametrize("name,classes,y", CODES_CASES, ids=[c[0] for c in CODES_CASES])
def test_class_codes_same_as_searchsorted(name, classes, y):
    assert_same_codes(classes, y)


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["a", "b", "c", "d"]), min_size=1, max_size=20),
       st.lists(st.sampled_from(["a", "b", "c"]), min_size=1, max_size=3, unique=True))
def test_generated_class_codes(labels, classes):
    assert_same_codes(_obj(sorted(classes)), _obj(labels))


# --------------------------------------------------------------------- no sorting


FAST = {
    "object str": _obj(["yes", "no"] * 50),
    "Series str": pd.Series(["<=50K", ">50K", "<=50K"]),
    "Series category": pd.Series(["b", "a", "b"], dtype="category"),
    "object int": _obj([3, 1, 3]),
    "int64": INTS,
    "uint64 above int64": np.array([2**64 - 1, 2**64 - 3], dtype=np.uint64),
    "bool": INTS > 0,
    "float64 whole": INTS.astype(np.float64),
}


@pytest.mark.parametrize("name", list(FAST))
def test_common_labels_are_not_sorted(name, monkeypatch):
    """The common label kinds never reach np.unique (a sort of every label, in Python
    comparisons for an object array)."""
    want = reference_check_y_classification(FAST[name], len(FAST[name]))

    def no_unique(*args, **kwargs):
        raise AssertionError("np.unique was called")

    monkeypatch.setattr(np, "unique", no_unique)
    classes, codes = _input.check_y_classification(FAST[name], len(FAST[name]))
    monkeypatch.undo()
    assert_same_array(classes, want[0])
    assert_same_array(codes, want[1])


def test_string_labels_take_one_pass(monkeypatch):
    """Labels that are all ``str`` (``np.str_`` among them) go through pandas' string hash
    table itself, never :func:`pandas.factorize` (which checks every label's type first);
    other object labels still do, with the same results."""
    y = _obj(["yes", np.str_("no"), "yes", "maybe"] * 25)
    want = reference_check_y_classification(y, len(y))

    def no_factorize(*args, **kwargs):
        raise AssertionError("pd.factorize was called")

    monkeypatch.setattr(pd, "factorize", no_factorize)
    classes, codes = _input.check_y_classification(y, len(y))
    monkeypatch.undo()
    assert_same_array(classes, want[0])
    assert_same_array(codes, want[1])
    ints = _obj([3, 1, 3])
    assert _input._string_labels(ints) is None  # not strings: pd.factorize's
    assert_same_array(_input.check_y_classification(ints, 3)[1],
                      reference_check_y_classification(ints, 3)[1])


@pytest.mark.parametrize("table", ["raises", "swapped"])
def test_string_labels_without_the_table_they_expect(table, monkeypatch):
    """A pandas whose string hash table is missing, raises, or answers otherwise: the
    labels go through pandas.factorize, with the same results."""
    from pandas._libs import hashtable

    class Other:
        def __init__(self, size_hint):
            pass

        def factorize(self, values):
            if table == "raises":
                raise TypeError("not this signature")
            return np.zeros(len(values), dtype=np.intp), np.array(["x"], dtype=object)

    monkeypatch.setattr(hashtable, "StringHashTable", Other)
    y = _obj(["yes", "no", "yes", "maybe"] * 5)
    assert _input._string_labels(y) is None
    want = reference_check_y_classification(y, len(y))
    classes, codes = _input.check_y_classification(y, len(y))
    assert_same_array(classes, want[0])
    assert_same_array(codes, want[1])
