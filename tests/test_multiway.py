"""ID3 and C4.5 multiway trees (``algorithm="id3"``/``"c4.5"``, fastdt.multiway).

Oracles: Mitchell's PlayTennis tree (Machine Learning, 1997, ch. 3), hand-computed
pruning estimates (C4.5 Release 8's ``AddErrs``), and Weka's J48 itself, run in a
subprocess on the shared tables when Java and Weka are installed (Debian: ``weka``);
those tests skip cleanly otherwise.
"""

import sys
from math import exp, log, sqrt
from pathlib import Path

import numpy as np
import pytest

import fastdt
from fastdt import LEAF

pd = pytest.importorskip("pandas")

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from benchmarks.j48 import run_j48, top_attributes, weka_jar, write_arff  # noqa: E402

TENNIS = """Sunny Hot High Weak No
Sunny Hot High Strong No
Overcast Hot High Weak Yes
Rain Mild High Weak Yes
Rain Cool Normal Weak Yes
Rain Cool Normal Strong No
Overcast Cool Normal Strong Yes
Sunny Mild High Weak No
Sunny Cool Normal Weak Yes
Rain Mild Normal Weak Yes
Sunny Mild Normal Strong Yes
Overcast Mild High Strong Yes
Overcast Hot Normal Weak Yes
Rain Mild High Strong No"""

MITCHELL = """\
|--- Outlook = Overcast
|   |--- class: Yes
|--- Outlook = Rain
|   |--- Wind = Strong
|   |   |--- class: No
|   |--- Wind = Weak
|   |   |--- class: Yes
|--- Outlook = Sunny
|   |--- Humidity = High
|   |   |--- class: No
|   |--- Humidity = Normal
|   |   |--- class: Yes
"""


def tennis():
    cols = ["Outlook", "Temperature", "Humidity", "Wind", "PlayTennis"]
    df = pd.DataFrame([r.split() for r in TENNIS.splitlines()], columns=cols)
    return df.drop(columns="PlayTennis").astype("category"), df["PlayTennis"].to_numpy()


@pytest.mark.parametrize("algorithm", ["id3", "c4.5"])
def test_play_tennis_is_mitchells_tree(algorithm):
    X, y = tennis()
    tree = fastdt.fit(X, y, algorithm=algorithm)
    assert fastdt.export_text(tree) == MITCHELL
    assert tree.node_count == 8 and tree.n_leaves == 5
    assert np.array_equal(tree.weighted_n_node_samples, [14, 4, 5, 5, 2, 3, 3, 2])
    assert list(fastdt.predict(tree, X)) == list(y)
    tree.validate()
    assert tree.params["algorithm"] == algorithm


def test_id3_gains_match_mitchell():
    """The root's information gains, by hand (Mitchell: 0.246, 0.029, 0.151, 0.048)."""
    X, y = tennis()

    def entropy(labels):
        p = pd.Series(labels).value_counts(normalize=True).to_numpy()
        return -(p * np.log2(p)).sum()

    gains = [entropy(y) - sum((X[c] == v).mean() * entropy(y[(X[c] == v).to_numpy()])
                              for v in X[c].cat.categories) for c in X.columns]
    assert np.round(gains, 3).tolist() == [0.247, 0.029, 0.152, 0.048]
    tree = fastdt.fit(X, y, algorithm="id3")
    assert tree.feature[0] == int(np.argmax(gains))


# ----------------------------------------------------------------- error estimates


def _addErrs_by_hand(n, e, z, top):
    """C4.5's AddErrs written out from the formulas of Quinlan's book and stats.c."""
    if e == 0:
        return n * (1 - 0.25 ** (1 / n))
    if e < 1:
        v0 = n * (1 - 0.25 ** (1 / n))
        return v0 + e * (_addErrs_by_hand(n, 1.0, z, top) - v0)
    if e + 0.5 >= n:
        return top * (n - e)
    c = z * z
    return n * (e + 0.5 + c / 2 + sqrt(c * ((e + 0.5) * (1 - (e + 0.5) / n) + c / 4))) / (n + c) - e


@pytest.mark.parametrize("n, e", [(6, 0), (16, 1), (5, 2), (14, 5), (3.11, 1.05), (2.05, 0),
                                  (10, 0.5), (4, 3.6)])
@pytest.mark.parametrize("kind", ["c4.5", "j48"])
def test_added_errors_against_hand_values(n, e, kind):
    from fastdt._rules import added_errors
    from fastdt.rules import c45_coefficient

    z = 0.84 + (0.25 - 0.20) / 0.20 * (0.25 - 0.84) if kind == "c4.5" else 0.6744897501960817
    assert z == pytest.approx(sqrt(c45_coefficient(0.25)) if kind == "c4.5" else z)
    top = 0.67 if kind == "c4.5" else 1.0
    got = added_errors(float(n), float(e), 0.25, z * z, top)
    assert got == pytest.approx(_addErrs_by_hand(n, e, z, top), rel=1e-12)


def test_textbook_pessimistic_rates():
    """Quinlan (1993): U_25%(0, 6) = 0.206 and U_25%(1, 16) = 0.157."""
    from fastdt._rules import added_errors
    from fastdt.rules import c45_coefficient

    coeff = c45_coefficient(0.25)
    assert (0 + added_errors(6.0, 0.0, 0.25, coeff, 0.67)) / 6 == pytest.approx(0.206, abs=5e-4)
    assert (1 + added_errors(16.0, 1.0, 0.25, coeff, 0.67)) / 16 == pytest.approx(0.157, abs=5e-4)


def test_pruning_by_hand():
    """Two nodes pruned by hand. 10 cases (5/5) split 3/2 | 2/3: as a leaf,
    5 + AddErrs(10, 5) = 6.54 predicted errors, at most the subtree's
    2 (2 + AddErrs(5, 2)) = 6.48 plus 0.1: a leaf. 14 cases split 8/4 | 0/2: the
    subtree's 6.70 beats the leaf's 7.79: kept."""
    z, top = 0.6925, 0.67
    for x, y, leaf, sub in (
            ([0] * 5 + [1] * 5, [0, 0, 0, 1, 1, 0, 0, 1, 1, 1],
             5 + _addErrs_by_hand(10, 5, z, top), 2 * (2 + _addErrs_by_hand(5, 2, z, top))),
            ([0] * 12 + [1] * 2, [0] * 8 + [1] * 6,
             6 + _addErrs_by_hand(14, 6, z, top),
             4 + _addErrs_by_hand(12, 4, z, top) + _addErrs_by_hand(2, 0, z, top))):
        X = pd.DataFrame({"x": np.array(x, dtype=float)})
        assert fastdt.fit(X, y, algorithm="c4.5", prune=False).node_count == 3
        pruned = fastdt.fit(X, y, algorithm="c4.5")
        assert pruned.node_count == (1 if leaf <= sub + 0.1 else 3)
        assert (round(leaf, 2), round(sub, 2)) in ((6.54, 6.48), (7.79, 6.70))


def test_pruning_shrinks_noise_and_keeps_signal():
    rng = np.random.default_rng(0)
    n = 2000
    X = pd.DataFrame({"a": rng.normal(size=n), "b": rng.normal(size=n),
                      "c": pd.Categorical(rng.choice(list("pqrs"), n))})
    y = (X["a"] > 0).to_numpy().astype(int)
    flip = rng.random(n) < 0.1
    y[flip] = 1 - y[flip]
    full = fastdt.fit(X, y, algorithm="c4.5", prune=False)
    pruned = fastdt.fit(X, y, algorithm="c4.5")
    assert pruned.n_leaves < full.n_leaves
    assert pruned.feature[0] == 0 and abs(pruned.threshold[0]) < 0.1
    # thresholds are training values (C4.5: the largest value at or below the cut)
    used = pruned.feature >= 0
    cont = used & (pruned.n_categories[np.maximum(pruned.feature, 0)] == 0)
    for node in np.flatnonzero(cont):
        assert pruned.threshold[node] in set(X.iloc[:, pruned.feature[node]])


# ------------------------------------------------------------------- the format


def _small_tree():
    rng = np.random.default_rng(1)
    n = 300
    X = pd.DataFrame({"c": pd.Categorical(rng.choice(list("abc"), n)),
                      "x": rng.normal(size=n)})
    y = np.where(X["c"] == "a", X["x"] > 0, X["c"] == "b").astype(int)
    X.loc[rng.random(n) < 0.1, "x"] = np.nan
    X.loc[rng.random(n) < 0.1, "c"] = np.nan
    return X, y, fastdt.fit(X, y, algorithm="c4.5", prune=False)


def test_multiway_nodes_in_the_format(tmp_path):
    X, y, tree = _small_tree()
    multi = tree.is_multiway
    assert multi[0] and tree.n_children[0] == 3
    assert np.array_equal(np.flatnonzero(tree.left != LEAF),
                          np.flatnonzero(tree.n_children > 0))
    assert np.isnan(tree.threshold[multi]).all()
    path = tmp_path / "c45.npz"
    tree.save(path)
    assert fastdt.load(path) == tree
    import pickle

    assert pickle.loads(pickle.dumps(tree)) == tree


def _mutate(tree, **arrays):
    t = fastdt.Tree({**{k: getattr(tree, k).copy() for k in fastdt.tree.FIELDS}, **arrays},
                    task=tree.task, n_features=tree.n_features, classes=tree.classes,
                    feature_names=tree.feature_names, categories=tree.categories,
                    criterion=tree.criterion, params=tree.params)
    return t


def test_load_rejects_broken_multiway_nodes():
    _, _, tree = _small_tree()
    right = tree.right.copy()
    right[0] -= 1  # two children for a feature of three categories
    with pytest.raises(ValueError, match="left children|one child per category"):
        _mutate(tree, right=right).validate()
    threshold = tree.threshold.copy()
    threshold[0] = 0.5
    with pytest.raises(ValueError, match="NaN at multiway"):
        _mutate(tree, threshold=threshold).validate()
    depth = tree.depth.copy()
    depth[tree.left[0] + 2] += 1
    with pytest.raises(ValueError, match="depth"):
        _mutate(tree, depth=depth).validate()


def test_fuzzed_multiway_files_never_crash(tmp_path):
    """Random damage to a saved multiway tree: load raises ValueError or gives a tree
    that predicts (never a crash or an out-of-range read)."""
    X, _, tree = _small_tree()
    path = tmp_path / "t.npz"
    tree.save(path)
    with np.load(path, allow_pickle=False) as data:
        contents = {k: data[k] for k in data.files}
    rng = np.random.default_rng(0)
    for _ in range(300):
        c = dict(contents)
        name = rng.choice(["left", "right", "feature", "cat_offset", "depth", "n_categories"])
        a = c[name].copy()
        a[rng.integers(a.shape[0])] += rng.choice([-2, -1, 1, 2, 50])
        c[name] = a
        np.savez(tmp_path / "bad.npz", **c)
        try:
            bad = fastdt.load(tmp_path / "bad.npz")
        except ValueError:
            continue
        fastdt.predict_proba(bad, X)


def test_prediction_with_missing_values_mixes_the_branches():
    X, y, tree = _small_tree()
    row = X.iloc[:1].copy()
    row["c"] = np.nan
    row["x"] = 0.3
    proba = fastdt.predict_proba(tree, row)[0]
    w = tree.weighted_n_node_samples
    expected = np.zeros(2)
    for child in range(tree.left[0], tree.right[0] + 1):
        one = row.copy()
        one["c"] = tree.categories[0][child - tree.left[0]]
        expected += w[child] / w[0] * fastdt.predict_proba(tree, one)[0]
    assert proba == pytest.approx(expected)
    # apply() sends it to the heaviest branch
    heaviest = tree.left[0] + int(np.argmax(w[tree.left[0]:tree.right[0] + 1]))
    leaf = fastdt.apply(tree, row)[0]
    assert fastdt.decision_path(tree, row)[1][1] == heaviest
    assert tree.left[leaf] == LEAF


def test_empty_branch_predicts_the_parent_class():
    X = pd.DataFrame({"c": pd.Categorical(["a", "a", "b", "b", "a", "b"],
                                          categories=["a", "b", "z"])})
    y = np.array([1, 1, 0, 0, 1, 0])
    tree = fastdt.fit(X, y, algorithm="id3")
    z = tree.left[0] + 2
    assert tree.n_node_samples[z] == 0 and tree.weighted_n_node_samples[z] == 0
    assert np.allclose(tree.value[z], tree.value[0])


# ----------------------------------------------------------------- user-facing


def test_exports_of_a_multiway_tree():
    X, y = tennis()
    tree = fastdt.fit(X, y, algorithm="c4.5")
    mermaid = fastdt.export_mermaid(tree)
    assert 'n0{"Outlook?"}' in mermaid and 'n0 -->|"Overcast"| n1' in mermaid
    dot = fastdt.export_graphviz(tree)
    assert '0 -> 3 [label="Sunny"]' in dot and "Outlook = ?" in dot
    d = fastdt.to_dict(tree)["tree"]
    assert d["feature"] == "Outlook"
    assert [c["category"] for c in d["children"]] == ["Overcast", "Rain", "Sunny"]
    assert d["children"][1]["feature"] == "Wind"
    text = fastdt.export_text(tree, show_missing=True, max_depth=0)
    assert "Outlook = Overcast (missing: 29%)" in text
    imp = fastdt.C45Classifier().fit(X, y).feature_importances_
    h = lambda p: -p * np.log2(p) - (1 - p) * np.log2(1 - p)  # noqa: E731
    root = 14 * h(9 / 14) - 10 * h(2 / 5)  # Outlook; Humidity and Wind: 5 h(2/5) each
    expected = np.array([root, 0, 5 * h(2 / 5), 5 * h(2 / 5)])
    assert imp == pytest.approx(expected / expected.sum())


def test_binary_only_tools_say_so():
    X, y = tennis()
    tree = fastdt.fit(X, y, algorithm="c4.5")
    for call in (lambda: fastdt.cost_complexity_pruning_path(tree),
                 lambda: fastdt.prune(tree, 0.01), lambda: fastdt.explain(tree, X),
                 lambda: fastdt.rules.extract(tree)):
        with pytest.raises(ValueError, match="binary trees only"):
            call()


def test_bad_parameters():
    X, y = tennis()
    with pytest.raises(ValueError, match="algorithm='cart45' is not one of"):
        fastdt.fit(X, y, algorithm="cart45")
    with pytest.raises(TypeError, match="does not take 'criterion'"):
        fastdt.fit(X, y, algorithm="c4.5", criterion="gini")
    with pytest.raises(TypeError, match="does not take 'confidence'"):
        fastdt.fit(X, y, algorithm="id3", confidence=0.25)
    with pytest.raises(ValueError, match="confidence=1.5 is invalid"):
        fastdt.fit(X, y, algorithm="c4.5", confidence=1.5)
    with pytest.raises(ValueError, match="min_samples_leaf=0 is invalid"):
        fastdt.fit(X, y, algorithm="c4.5", min_samples_leaf=0)
    Xn = X.assign(temp=np.arange(14.0))
    with pytest.raises(ValueError, match="ID3 splits nominal features only.*temp"):
        fastdt.fit(Xn, y, algorithm="id3")
    with pytest.raises(ValueError, match="single-output"):
        fastdt.fit(X, np.column_stack([y, y]), algorithm="c4.5")


def test_estimators_follow_scikit_learn():
    X, y = tennis()
    clf = fastdt.C45Classifier(min_samples_leaf=1)
    assert clf.get_params()["confidence"] == 0.25
    clf.fit(X, y)
    assert clf.score(X, y) == 1.0
    assert list(clf.classes_) == ["No", "Yes"] and clf.n_features_in_ == 4
    assert clf.predict_proba(X).shape == (14, 2)
    sklearn = pytest.importorskip("sklearn")
    from sklearn.base import clone

    assert clone(clf).get_params() == clf.get_params()
    assert fastdt.ID3Classifier().fit(X, y).tree_ == fastdt.fit(X, y, algorithm="id3")
    assert sklearn


# ---------------------------------------------------------------------- J48 parity


def _table(name, datasets_dir):
    """(X_train, y_train, X_test, y_test) of a shared table for the parity runs."""
    from fastdt.datasets import load_adult_frame, load_titanic_frame

    if name == "adult":
        return load_adult_frame(datasets_dir)
    if name == "titanic":
        return load_titanic_frame(datasets_dir)
    if name == "tennis":
        X, y = tennis()
        return X, y, X, y
    target = {"tips": "day", "diamonds": "cut"}[name]
    df = pd.read_csv(datasets_dir / f"{name}.csv")
    y = df.pop(target).to_numpy()
    for col in df.columns:
        if not pd.api.types.is_numeric_dtype(df[col]):
            df[col] = df[col].astype("category")
    test = np.random.default_rng(0).random(len(df)) < 0.3
    return (df[~test].reset_index(drop=True), y[~test], df[test].reset_index(drop=True),
            y[test])


@pytest.fixture(scope="module")
def j48_runs(tmp_path_factory, datasets_dir):
    if weka_jar() is None:
        pytest.skip("Java or Weka not installed (Debian: apt-get install weka)")
    return tmp_path_factory.mktemp("j48"), datasets_dir


@pytest.mark.parametrize("name", ["adult", "titanic", "tips", "diamonds", "tennis"])
def test_j48_parity(j48_runs, name):
    """error_estimate="j48" grows Weka's J48 tree (-C 0.25 -M 2): the same size, the
    same attributes at the top two levels, the same test accuracy. The default
    (Release 8's estimate) differs only in pruning: a few nodes on Adult."""
    folder, datasets_dir = j48_runs
    Xtr, ytr, Xte, yte = _table(name, datasets_dir)
    classes = np.unique(np.concatenate([ytr, yte]))
    write_arff(folder / f"{name}_train.arff", Xtr, ytr, classes)
    write_arff(folder / f"{name}_test.arff", Xte, yte, classes)
    ref = run_j48(folder / f"{name}_train.arff", folder / f"{name}_test.arff")
    tree = fastdt.fit(Xtr, ytr, algorithm="c4.5", error_estimate="j48")
    acc = float(np.mean(fastdt.predict(tree, Xte) == yte))
    assert (tree.node_count, tree.n_leaves) == (ref["size"], ref["leaves"])
    assert acc == pytest.approx(ref["accuracy"], abs=1e-4)
    names = tree.feature_names
    top = {names[f] for f in tree.feature[tree.depth <= 1] if f >= 0}
    assert top == top_attributes(ref["tree"], 2)
    default = fastdt.fit(Xtr, ytr, algorithm="c4.5")
    assert abs(default.node_count - ref["size"]) <= max(2, 0.06 * ref["size"])
    assert abs(np.mean(fastdt.predict(default, Xte) == yte) - ref["accuracy"]) < 0.01
