"""Categorical features: input handling, optimal partitions, the bitset format."""

import zlib

import numpy as np
import pytest

import fastdt
from reference import best_partition_brute_force, split_score

pd = pytest.importorskip("pandas")


def _categorical_data(rng, n, k, task, n_classes=2, missing=0.0):
    """One categorical feature with ``k`` categories whose target rate or mean varies by
    category, and optionally missing values (NaN)."""
    codes = rng.integers(0, k, size=n).astype(float)
    effect = rng.normal(size=k)
    if task == "classification":
        logits = effect[codes.astype(int)][:, None] * rng.normal(size=n_classes)
        p = np.exp(logits + rng.normal(size=(n, n_classes)))
        y = np.argmax(p, axis=1)
    else:
        y = effect[codes.astype(int)] + 0.5 * rng.normal(size=n)
    if missing:
        codes[rng.random(n) < missing] = np.nan
    return codes[:, None], y


def _root_partition(tree):
    """Groups sent left at the root (codes; -1 for the missing rows)."""
    words = tree.cat_bitsets[tree.cat_offset[0]:]
    k = int(tree.n_categories[0])
    left = [c for c in range(k) if (int(words[c >> 6]) >> (c & 63)) & 1]
    if tree.missing_go_left[0]:
        left.append(-1)
    return left


def _root_score(tree, X, y, w, criterion, n_classes):
    codes = X[:, 0]
    left = _root_partition(tree)
    mask = np.isin(codes, [c for c in left if c >= 0]) | (np.isnan(codes) & (-1 in left))
    return split_score(criterion, y, w, mask, n_classes)


CASES = [
    ("classification", "gini", 2), ("classification", "entropy", 2),
    ("regression", "squared_error", None),
    ("classification", "gini", 3), ("classification", "entropy", 4),
    ("classification", "gain_ratio", 2),
]


@pytest.mark.parametrize("task,criterion,n_classes", CASES)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("missing", [0.0, 0.15])
def test_partition_is_optimal_by_brute_force(task, criterion, n_classes, weighted, missing):
    rng = np.random.default_rng(zlib.crc32(repr((task, criterion, n_classes, weighted,
                                                 missing)).encode()))
    for trial in range(12):
        k = int(rng.integers(2, 10 if missing else 11))  # groups up to 10
        n = int(rng.integers(20, 200))
        X, y = _categorical_data(rng, n, k, task, n_classes or 2, missing)
        w = rng.uniform(0.2, 3.0, size=n) if weighted else np.ones(n)
        tree = fastdt.fit(X, y, sample_weight=w if weighted else None, criterion=criterion,
                          task=task, max_depth=1, categorical_features=[0])
        codes = y if task == "regression" else np.searchsorted(np.unique(y), y)
        nc = None if task == "regression" else len(np.unique(y))
        best, _ = best_partition_brute_force(criterion, X[:, 0], codes, w, nc)
        if tree.node_count == 1:
            assert not np.isfinite(best) or best <= 1e-12
            continue
        ours = _root_score(tree, X, codes, w, criterion, nc)
        np.testing.assert_allclose(ours, best, rtol=1e-9, atol=1e-12,
                                   err_msg=f"trial {trial}, k={k}, n={n}")


def test_partition_respects_min_samples_leaf():
    rng = np.random.default_rng(3)
    X, y = _categorical_data(rng, 120, 7, "classification")
    tree = fastdt.fit(X, y, max_depth=1, min_samples_leaf=25, categorical_features=[0])
    best, _ = best_partition_brute_force("gini", X[:, 0], y, np.ones(120), 2, min_samples_leaf=25)
    ours = _root_score(tree, X, y, np.ones(120), "gini", 2)
    np.testing.assert_allclose(ours, best, rtol=1e-9)
    assert tree.n_node_samples[1:3].min() >= 25


def test_many_classes_many_categories_heuristic_is_valid():
    rng = np.random.default_rng(4)
    X, y = _categorical_data(rng, 2000, 40, "classification", n_classes=5)
    tree = fastdt.fit(X, y, max_depth=3, categorical_features=[0])
    assert tree.node_count > 1
    # every training row reaches the leaf its category's bits say
    leaves = fastdt.apply(tree, X)
    for node in np.flatnonzero(tree.left >= 0):
        rows = np.flatnonzero(np.isin(leaves, _descendant_leaves(tree, node)))
        left_codes = _left_codes(tree, node)
        went_left = np.isin(leaves[rows], _descendant_leaves(tree, tree.left[node]))
        np.testing.assert_array_equal(went_left, np.isin(X[rows, 0], left_codes))


def _left_codes(tree, node):
    f = tree.feature[node]
    words = tree.cat_bitsets[tree.cat_offset[node]:]
    return [c for c in range(tree.n_categories[f]) if (int(words[c >> 6]) >> (c & 63)) & 1]


def _descendant_leaves(tree, node):
    out, stack = [], [node]
    while stack:
        a = stack.pop()
        if tree.left[a] < 0:
            out.append(a)
        else:
            stack += [tree.left[a], tree.right[a]]
    return out


def test_more_than_64_categories_use_several_words():
    rng = np.random.default_rng(5)
    k = 150
    codes = rng.integers(0, k, size=3000).astype(float)
    good = rng.random(k) < 0.5
    y = good[codes.astype(int)].astype(int)
    tree = fastdt.fit(codes[:, None], y, max_depth=1, categorical_features=[0])
    assert tree.n_categories[0] == k
    assert tree.cat_bitsets.shape[0] == 3  # ceil(150 / 64) words for the one split
    np.testing.assert_array_equal(fastdt.predict(tree, codes[:, None]), y)
    assert sorted(_left_codes(tree, 0)) in (sorted(np.flatnonzero(good & np.isin(np.arange(k), codes))),
                                            sorted(np.flatnonzero(~good & np.isin(np.arange(k), codes))))


# ------------------------------------------------------------------ DataFrames


def _frame(rng, n=400):
    colour = rng.choice(["red", "green", "blue", "black"], size=n)
    size = pd.Categorical(rng.choice(["S", "M", "L"], size=n), categories=["S", "M", "L"])
    flag = rng.random(n) < 0.5
    x = rng.normal(size=n)
    y = ((np.isin(colour, ["red", "black"])) ^ (size == "L") ^ (x > 1)).astype(int)
    return pd.DataFrame({"colour": colour, "size": size, "flag": flag, "x": x}), y


def test_dataframe_columns_are_categorical_by_dtype():
    rng = np.random.default_rng(0)
    df, y = _frame(rng)
    tree = fastdt.fit(df, y)
    assert tree.categories[0] == ["black", "blue", "green", "red"]  # sorted values
    assert tree.categories[1] == ["S", "M", "L"]  # the category order
    assert tree.categories[2] == [False, True]
    assert tree.categories[3] is None
    assert tree.n_categories.tolist() == [4, 3, 2, 0]
    np.testing.assert_array_equal(fastdt.predict(tree, df), y)


def test_string_dtype_column_is_categorical():
    rng = np.random.default_rng(1)
    df, y = _frame(rng)
    df["colour"] = df["colour"].astype("string")
    tree = fastdt.fit(df, y)
    assert tree.categories[0] == ["black", "blue", "green", "red"]


def test_predict_maps_categories_by_value_not_code():
    rng = np.random.default_rng(2)
    df, y = _frame(rng)
    tree = fastdt.fit(df, y)
    shuffled = df.copy()
    shuffled["size"] = pd.Categorical(df["size"].astype(str), categories=["L", "S", "M", "XL"])
    shuffled["colour"] = pd.Categorical(df["colour"])
    np.testing.assert_array_equal(fastdt.predict(tree, shuffled), fastdt.predict(tree, df))


def test_unseen_category_follows_the_missing_direction():
    rng = np.random.default_rng(3)
    df, y = _frame(rng)
    tree = fastdt.fit(df, y, max_depth=1)
    assert tree.feature[0] in (0, 1)
    col = df.columns[tree.feature[0]]
    unseen = df.iloc[:5].copy()
    unseen[col] = unseen[col].astype(object)
    unseen.loc[:, col] = "purple"
    missing = unseen.copy()
    missing.loc[:, col] = None
    expected = tree.left[0] if tree.missing_go_left[0] else tree.right[0]
    assert (fastdt.apply(tree, unseen) == expected).all()
    assert (fastdt.apply(tree, missing) == expected).all()



def test_category_columns_predict_as_their_values():
    """A pandas category column is read through its categories' codes at predict time
    (one lookup per category): its order, unseen categories and missing values must give
    what the same values give in an object column."""
    rng = np.random.default_rng(8)
    df, y = _frame(rng)
    df["colour"] = df["colour"].astype("category")
    tree = fastdt.fit(df, y, random_state=0)
    new, _ = _frame(np.random.default_rng(9), n=300)
    new.loc[::7, "colour"] = "purple"  # never seen
    new.loc[::11, "colour"] = None
    new["size"] = new["size"].astype(object)
    new.loc[::13, "size"] = None
    as_objects = new.astype({"colour": object, "size": object})
    for cats in (["purple", "red", "green", "blue", "black"], ["black", "red", "purple"]):
        as_cats = new.assign(colour=new["colour"].where(new["colour"].isin(cats)))
        as_cats = as_cats.astype({"colour": pd.CategoricalDtype(cats),  # other orders
                                  "size": pd.CategoricalDtype(["L", "S", "M", "XL"])})
        back = as_cats.astype({"colour": object, "size": object})  # the same values
        assert (back["colour"] == "purple").any() == ("purple" in cats)
        np.testing.assert_array_equal(fastdt.apply(tree, as_cats), fastdt.apply(tree, back))
        np.testing.assert_array_equal(fastdt.predict_proba(tree, as_cats),
                                      fastdt.predict_proba(tree, back))
    np.testing.assert_array_equal(
        fastdt.apply(tree, as_objects),
        fastdt.apply(tree, new.astype({"colour": "category", "size": "category"})))


def test_categorical_features_by_index_name_and_mask():
    rng = np.random.default_rng(4)
    df, y = _frame(rng)
    df["code"] = rng.integers(0, 5, size=len(df))
    by_name = fastdt.fit(df, y, categorical_features=["code"])
    by_index = fastdt.fit(df, y, categorical_features=[4])
    by_mask = fastdt.fit(df, y, categorical_features=[False] * 4 + [True])
    for other in (by_index, by_mask):  # the same tree (params record the spelling)
        assert other.categories == by_name.categories
        for name in by_name.arrays._fields:
            np.testing.assert_array_equal(getattr(other, name), getattr(by_name, name))
    assert by_name.categories[4] == [0, 1, 2, 3, 4]
    assert fastdt.fit(df, y).categories[4] is None  # integers are numeric unless named


def test_numpy_codes_and_missing():
    rng = np.random.default_rng(5)
    X, y = _categorical_data(rng, 300, 6, "classification", missing=0.1)
    tree = fastdt.fit(X, y, categorical_features=np.array([True]))
    assert tree.categories == [[0, 1, 2, 3, 4, 5]]
    # codes outside the fitted range take the missing route, as NaN does
    out = np.array([[7.0], [-3.0], [np.nan]])
    a = fastdt.apply(tree, out)
    assert a[0] == a[1] == a[2]


def test_save_load_keeps_categories(tmp_path):
    rng = np.random.default_rng(6)
    df, y = _frame(rng)
    tree = fastdt.fit(df, y)
    tree.save(tmp_path / "m.npz")
    back = fastdt.load(tmp_path / "m.npz")
    assert back == tree
    assert back.categories == tree.categories
    np.testing.assert_array_equal(fastdt.predict(back, df), fastdt.predict(tree, df))


def test_estimators_take_categorical_features():
    rng = np.random.default_rng(7)
    df, y = _frame(rng)
    clf = fastdt.DecisionTreeClassifier(categorical_features=["colour"]).fit(df, y)
    assert clf.tree_.categories[0] is not None
    assert clf.score(df, y) == 1.0
    reg = fastdt.DecisionTreeRegressor(max_depth=3).fit(df, y.astype(float))
    assert reg.tree_.n_categories[0] == 4


# ------------------------------------------------------------------ bad input


def test_mixed_category_types_are_rejected():
    df = pd.DataFrame({"c": ["a", 1, "b", 2.5], "x": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(TypeError, match="column 'c' mixes values of types"):
        fastdt.fit(df, [0, 1, 0, 1])


@pytest.mark.parametrize("bad", [1.5, -1.0])
def test_numpy_codes_must_be_whole_and_non_negative(bad):
    X = np.array([[0.0], [1.0], [bad], [2.0]])
    with pytest.raises(ValueError, match="whole numbers >= 0"):
        fastdt.fit(X, [0, 1, 0, 1], categorical_features=[0])


def test_non_integer_code_at_predict_is_rejected():
    tree = fastdt.fit(np.array([[0.0], [1.0], [2.0], [1.0]]), [0, 1, 0, 1],
                      categorical_features=[0])
    with pytest.raises(ValueError, match="whole-number category codes"):
        fastdt.predict(tree, np.array([[0.5]]))


@pytest.mark.parametrize("cf,match", [
    ([3], "out of range"), (["nope"], "not a column"), ([True], "boolean mask needs 2"),
    ([1.5], "must hold ints, names or booleans"),
])
def test_bad_categorical_features(cf, match):
    df = pd.DataFrame({"a": [0, 1, 2, 1], "b": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises((ValueError, TypeError), match=match):
        fastdt.fit(df, [0, 1, 0, 1], categorical_features=cf)


def test_names_need_feature_names():
    with pytest.raises(ValueError, match="no feature names"):
        fastdt.fit(np.zeros((4, 2)), [0, 1, 0, 1], categorical_features=["a"])


def test_all_missing_categorical_column_is_rejected():
    df = pd.DataFrame({"c": [None, None, None, None], "x": [1.0, 2.0, 3.0, 4.0]})
    with pytest.raises(ValueError, match="holds no category"):
        fastdt.fit(df, [0, 1, 0, 1], categorical_features=["c"])


def test_unsupported_dtype_is_rejected():
    df = pd.DataFrame({"when": pd.date_range("2020-01-01", periods=4), "x": [1.0, 2, 3, 4]})
    with pytest.raises(TypeError, match="column 'when'"):
        fastdt.fit(df, [0, 1, 0, 1])


def test_numeric_column_given_as_strings_at_predict_is_rejected():
    df = pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0]})
    tree = fastdt.fit(df, [0, 1, 0, 1])
    with pytest.raises(TypeError, match="column 'x' has dtype .* but is numeric"):
        fastdt.predict(tree, pd.DataFrame({"x": ["a", "b", "c", "d"]}))
