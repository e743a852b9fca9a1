"""The command line (``python -m fastdt``): demo, fit, predict, and clean errors."""

import os
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import fastdt
from fastdt.__main__ import main

REPO = Path(__file__).resolve().parents[1]


# ----------------------------------------------------------------------------- data


@pytest.fixture(scope="module")
def clf_csv(tmp_path_factory):
    rng = np.random.default_rng(1)
    n = 300
    df = pd.DataFrame({
        "sepal": rng.normal(size=n),
        "petal": rng.normal(size=n),
        "width": rng.integers(0, 5, size=n),
    })
    score = df["sepal"] + 0.5 * df["petal"] * df["width"]
    df["species"] = np.where(score > 0.5, "virginica",
                             np.where(score > -0.5, "versicolor", "setosa"))
    path = tmp_path_factory.mktemp("clf") / "train.csv"
    df.to_csv(path, index=False)
    return path


@pytest.fixture(scope="module")
def reg_csv(tmp_path_factory):
    rng = np.random.default_rng(2)
    n = 250
    # target first, so that column selection by name (not position) is exercised
    x = rng.uniform(-2, 2, size=(n, 2))
    df = pd.DataFrame({"price": np.sin(x[:, 0]) * 3 + x[:, 1] + 0.1 * rng.normal(size=n),
                       "a": x[:, 0], "b": x[:, 1]})
    path = tmp_path_factory.mktemp("reg") / "houses.csv"
    df.to_csv(path, index=False)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def assert_cli_proba(capsys, model, csv, expect, X, tmp_path):
    """``predict --proba`` of the saved ``model`` on ``csv`` writes ``expect``'s
    probabilities of ``X``."""
    preds = tmp_path / "p.csv"
    code, out, err = run(capsys, "predict", model, csv, "--out", preds, "--proba")
    assert code == 0, err
    np.testing.assert_allclose(pd.read_csv(preds).to_numpy(), fastdt.predict_proba(expect, X))


def read_exact(path):
    """A CSV of floats, parsed by Python's float() (exact round trip of repr)."""
    return pd.read_csv(path, dtype=str).map(float)


def assert_error(result, *fragments):
    code, out, err = result
    assert code == 2
    assert err.startswith("error: "), err
    assert "Traceback" not in err
    for fragment in fragments:
        assert fragment in err, err


# ----------------------------------------------------------------------------- basics


def test_version(capsys):
    code, out, _ = run(capsys, "--version")
    assert code == 0
    assert fastdt.__version__ in out


def test_help_lists_subcommands(capsys):
    code, out, _ = run(capsys, "--help")
    assert code == 0
    for command in ("demo", "fit", "predict"):
        assert command in out


def test_no_command_is_a_usage_error(capsys):
    code, _, err = run(capsys)
    assert code == 2
    assert "usage:" in err


def test_bad_option_value_is_a_usage_error(capsys):
    code, _, err = run(capsys, "demo", "--rows", "many")
    assert code == 2
    assert "--rows" in err


# ----------------------------------------------------------------------------- demo


def test_demo_in_process(capsys):
    code, out, _ = run(capsys, "demo", "--rows", 800, "--max-depth", 2, "--seed", 3)
    assert code == 0
    assert "|--- signal_" in out
    assert "class: " in out
    acc = [line for line in out.splitlines() if line.startswith("held-out accuracy:")]
    assert len(acc) == 1
    assert 0.5 < float(acc[0].split(":")[1]) <= 1.0
    assert "fit time:" in out and "predict time:" in out
    assert "numba" in out and "compil" in out
    # max_depth 2: no rule line is indented deeper than a depth-2 leaf
    assert max(line.count("|") for line in out.splitlines() if "|---" in line) == 3


def test_demo_too_few_rows(capsys):
    assert_error(run(capsys, "demo", "--rows", 3), "--rows")


def test_demo_subprocess():
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "fastdt", "demo", "--rows", "2000"],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "|--- " in proc.stdout and "class: " in proc.stdout
    assert "held-out accuracy: " in proc.stdout
    assert "Traceback" not in proc.stderr


# ----------------------------------------------------------------------------- fit/predict


def test_fit_predict_classification_round_trip(capsys, clf_csv, tmp_path):
    model = tmp_path / "model.npz"
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--max-depth", 4,
                         "--random-state", 0, "--out", model)
    assert code == 0, err
    assert "classification" in out and "training accuracy" in out and "leaves" in out
    assert len(out.strip().splitlines()) == 1
    assert model.exists()

    tree = fastdt.load(model)
    assert tree.task == "classification"
    assert tree.feature_names == ["sepal", "petal", "width"]
    assert set(tree.classes) == {"setosa", "versicolor", "virginica"}
    assert tree.max_depth <= 4

    # the training CSV still has its target column: ignored by predict
    preds = tmp_path / "preds.csv"
    code, out, err = run(capsys, "predict", model, clf_csv, "--out", preds)
    assert code == 0, err
    got = pd.read_csv(preds)
    assert list(got.columns) == ["prediction"]
    df = pd.read_csv(clf_csv)
    expected = fastdt.predict(tree, df[["sepal", "petal", "width"]])
    assert got["prediction"].tolist() == expected.tolist()

    # to stdout
    code, out, err = run(capsys, "predict", model, clf_csv)
    assert code == 0, err
    assert out.splitlines()[0] == "prediction"
    assert out.splitlines()[1:] == [str(v) for v in expected]

    # probabilities, one column per class
    code, out, err = run(capsys, "predict", model, clf_csv, "--proba", "--out", preds)
    assert code == 0, err
    proba = read_exact(preds)
    assert list(proba.columns) == [str(c) for c in tree.classes]
    np.testing.assert_array_equal(proba.to_numpy(),
                                  fastdt.predict_proba(tree, df[tree.feature_names]))


def test_fit_hist_splitter(capsys, clf_csv, tmp_path):
    model = tmp_path / "hist.npz"
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--max-depth", 3,
                         "--splitter", "hist", "--max-bins", 8, "--out", model)
    assert code == 0, err
    tree = fastdt.load(model)
    assert tree.params["splitter"] == "hist" and tree.params["max_bins"] == 8
    df = pd.read_csv(clf_csv)
    expected = fastdt.fit(df[["sepal", "petal", "width"]], df["species"], max_depth=3,
                          splitter="hist", max_bins=8)
    np.testing.assert_array_equal(tree.threshold, expected.threshold)
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--max-bins", 8,
                         "--out", model)
    assert code == 2 and "max_bins applies to splitter='hist' only" in err


def test_fit_predict_regression_round_trip(capsys, reg_csv, tmp_path):
    model = tmp_path / "reg"  # numpy appends .npz; the summary names the real file
    code, out, err = run(capsys, "fit", reg_csv, "--target", "price", "--task", "regression",
                         "--criterion", "squared_error", "--min-samples-leaf", 5,
                         "--min-samples-split", 0.05, "--max-leaf-nodes", 12, "--out", model)
    assert code == 0, err
    assert "regression" in out and "R^2" in out
    saved = tmp_path / "reg.npz"
    assert str(saved) in out and saved.exists()
    tree = fastdt.load(saved)
    assert tree.task == "regression" and tree.n_leaves <= 12
    assert tree.params["min_samples_leaf"] == 5 and tree.params["min_samples_split"] == 0.05

    # a CSV with the columns in another order and without the target
    df = pd.read_csv(reg_csv)
    shuffled = tmp_path / "new.csv"
    df[["b", "a"]].to_csv(shuffled, index=False)
    preds = tmp_path / "preds.csv"
    code, out, err = run(capsys, "predict", saved, shuffled, "--out", preds)
    assert code == 0, err
    got = read_exact(preds)["prediction"].to_numpy()
    np.testing.assert_array_equal(got, fastdt.predict(tree, df[["a", "b"]]))


def test_model_without_feature_names(capsys, tmp_path):
    X = np.array([[0.0, 5.0], [1.0, 4.0], [2.0, 3.0], [3.0, 2.0]])
    model = tmp_path / "plain.npz"
    fastdt.fit(X, [0, 0, 1, 1]).save(model)
    data = tmp_path / "x.csv"
    pd.DataFrame(X, columns=["u", "v"]).to_csv(data, index=False)
    code, out, err = run(capsys, "predict", model, data)
    assert code == 0, err
    assert out.split() == ["prediction", "0", "0", "1", "1"]
    pd.DataFrame(X[:, :1], columns=["u"]).to_csv(data, index=False)
    assert_error(run(capsys, "predict", model, data), "expects 2 column")


# ----------------------------------------------------------------------------- errors


def test_fit_bad_target(capsys, clf_csv, tmp_path):
    assert_error(run(capsys, "fit", clf_csv, "--target", "nope", "--out", tmp_path / "m.npz"),
                 "'nope'", "species")
    assert not (tmp_path / "m.npz").exists()


def test_fit_missing_file(capsys, tmp_path):
    missing = tmp_path / "missing.csv"
    assert_error(run(capsys, "fit", missing, "--target", "y", "--out", tmp_path / "m.npz"),
                 "missing.csv")


def test_fit_empty_file(capsys, tmp_path):
    empty = tmp_path / "empty.csv"
    empty.write_text("")
    assert_error(run(capsys, "fit", empty, "--target", "y", "--out", tmp_path / "m.npz"), "empty")


def test_fit_and_predict_categorical_column(capsys, tmp_path):
    data = tmp_path / "cat.csv"
    pd.DataFrame({"x": [1.0, 2.0, 3.0, 4.0], "color": ["red", "blue", "red", "green"],
                  "y": [0, 1, 0, 1]}).to_csv(data, index=False)
    model = tmp_path / "m.npz"
    code, out, _ = run(capsys, "fit", data, "--target", "y", "--out", model)
    assert code == 0 and "training accuracy 1.0000" in out
    assert fastdt.load(model).categories[1] == ["blue", "green", "red"]
    assert run(capsys, "predict", model, data)[0] == 0


def test_fit_only_target_column(capsys, tmp_path):
    data = tmp_path / "y.csv"
    pd.DataFrame({"y": [0, 1]}).to_csv(data, index=False)
    assert_error(run(capsys, "fit", data, "--target", "y", "--out", tmp_path / "m.npz"),
                 "no feature columns")


def test_fit_invalid_parameters(capsys, clf_csv, tmp_path):
    out = tmp_path / "m.npz"
    # regression criterion for a string target: the library's ValueError, cleanly
    assert_error(run(capsys, "fit", clf_csv, "--target", "species", "--task", "classification",
                     "--criterion", "poisson", "--out", out), "poisson")
    assert_error(run(capsys, "fit", clf_csv, "--target", "species", "--max-leaf-nodes", 1,
                     "--out", out), "max_leaf_nodes")
    assert_error(run(capsys, "fit", clf_csv, "--target", "species", "--task", "regression",
                     "--out", out), "numeric")


def test_predict_missing_columns(capsys, clf_csv, tmp_path):
    model = tmp_path / "m.npz"
    assert run(capsys, "fit", clf_csv, "--target", "species", "--out", model)[0] == 0
    data = tmp_path / "partial.csv"
    pd.read_csv(clf_csv)[["sepal"]].to_csv(data, index=False)
    assert_error(run(capsys, "predict", model, data), "petal", "width")


def test_predict_missing_files(capsys, clf_csv, tmp_path):
    model = tmp_path / "m.npz"
    assert run(capsys, "fit", clf_csv, "--target", "species", "--out", model)[0] == 0
    assert_error(run(capsys, "predict", tmp_path / "nomodel.npz", clf_csv), "nomodel.npz")
    assert_error(run(capsys, "predict", model, tmp_path / "nodata.csv"), "nodata.csv")


def test_predict_garbage_model(capsys, clf_csv, tmp_path):
    garbage = tmp_path / "garbage.npz"
    garbage.write_bytes(b"this is not a zip file at all\x00\x01\x02")
    assert_error(run(capsys, "predict", garbage, clf_csv), "garbage.npz")
    # a valid .npz that is not a fastdt model
    other = tmp_path / "other.npz"
    np.savez(other, a=np.arange(3))
    assert_error(run(capsys, "predict", other, clf_csv), "not a fastdt model")


def test_predict_proba_needs_classification(capsys, reg_csv, tmp_path):
    model = tmp_path / "r.npz"
    assert run(capsys, "fit", reg_csv, "--target", "price", "--max-depth", 2,
               "--out", model)[0] == 0
    assert_error(run(capsys, "predict", model, reg_csv, "--proba"), "--proba")


def test_predict_non_numeric_data(capsys, reg_csv, tmp_path):
    model = tmp_path / "r.npz"
    assert run(capsys, "fit", reg_csv, "--target", "price", "--max-depth", 2,
               "--out", model)[0] == 0
    data = tmp_path / "bad.csv"
    pd.DataFrame({"a": ["x", "y"], "b": [1.0, 2.0]}).to_csv(data, index=False)
    assert_error(run(capsys, "predict", model, data), "'a'")


def test_subprocess_error_exit_status(tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "fastdt", "predict", str(tmp_path / "none.npz"),
         str(tmp_path / "none.csv")],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600,
    )
    assert proc.returncode == 2
    assert proc.stderr.startswith("error: ") and "Traceback" not in proc.stderr


def test_fit_missing_strategy_and_categorical_codes(capsys, tmp_path):
    data = tmp_path / "holes.csv"
    rng = np.random.default_rng(0)
    code = rng.integers(0, 4, size=200)
    x = np.where(rng.random(200) < 0.2, np.nan, rng.normal(size=200))
    pd.DataFrame({"code": code, "x": x, "y": (code % 2) ^ (np.nan_to_num(x) > 1)}).to_csv(
        data, index=False)
    model = tmp_path / "m.npz"
    code_, out, _ = run(capsys, "fit", data, "--target", "y", "--missing", "surrogate",
                        "--categorical", "code", "--out", model)
    assert code_ == 0, out
    tree = fastdt.load(model)
    assert tree.params["missing"] == "surrogate"
    assert tree.categories[0] == [0, 1, 2, 3] and tree.categories[1] is None
    assert run(capsys, "predict", model, data)[0] == 0


@pytest.fixture(scope="module")
def stray_csv(tmp_path_factory):
    """A numeric column with one stray string: pandas reads it as text."""
    rng = np.random.default_rng(3)
    n = 200
    age = rng.integers(18, 80, size=n)
    df = pd.DataFrame({"age": age.astype(str), "x": rng.normal(size=n),
                       "y": np.where(age > 45, "old", "young")})
    df.loc[11, "age"] = "unknown"
    path = tmp_path_factory.mktemp("stray") / "stray.csv"
    df.to_csv(path, index=False)
    return path


def test_fit_warns_about_a_numeric_looking_column(capsys, stray_csv, tmp_path):

    model = tmp_path / "m.npz"
    code, out, err = run(capsys, "fit", stray_csv, "--target", "y", "--out", model)
    assert code == 0 and "training accuracy" in out
    # the command line shows warnings as plain "warning: ..." lines, once
    assert err.count("warning: A column of an object or string dtype") == 1
    assert "column 'age'" in err and "--categorical on the command line" in err
    assert "NumericLookingColumnWarning" not in err  # no Python warning syntax
    # --categorical keeps it categorical and silences the warning
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        code, _, _ = run(capsys, "fit", stray_csv, "--target", "y", "--categorical", "age",
                         "--out", model)
    assert code == 0


def test_subprocess_fit_shows_the_warning_on_stderr(stray_csv, tmp_path):
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), env.get("PYTHONPATH")]))
    proc = subprocess.run(
        [sys.executable, "-m", "fastdt", "fit", str(stray_csv), "--target", "y",
         "--max-depth", "2", "--out", str(tmp_path / "m.npz")],
        capture_output=True, text=True, env=env, cwd=REPO, timeout=600,
    )
    assert proc.returncode == 0, proc.stderr
    assert "warning: A column of an object or string dtype" in proc.stderr
    assert ("column 'age' (dtype str, " in proc.stderr
            or "column 'age' (dtype object, " in proc.stderr)
    assert "1 of 200 values is not a number: 'unknown'" in proc.stderr
    assert 'pd.to_numeric(X[\'age\'], errors="coerce")' in proc.stderr
    assert "training accuracy" in proc.stdout


# ----------------------------------------------------------------------------- forests


def test_fit_and_predict_a_forest(capsys, clf_csv, tmp_path):
    model = tmp_path / "forest.npz"
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--out", model,
                         "--n-estimators", 7, "--random-state", 0, "--max-features", 2)
    assert code == 0, err
    assert "classification random forest (gini)" in out and "7 trees" in out
    forest = fastdt.load(model)
    assert isinstance(forest, fastdt.Forest) and forest.n_trees == 7
    df = pd.read_csv(clf_csv)
    expect = fastdt.fit_forest(df.drop(columns=["species"]), df["species"], n_estimators=7,
                               random_state=0, max_features=2)
    np.testing.assert_array_equal(forest.threshold, expect.threshold)
    assert_cli_proba(capsys, model, clf_csv, expect, df.drop(columns=["species"]), tmp_path)


def test_extra_trees_regression_forest(capsys, reg_csv, tmp_path):
    model = tmp_path / "et.npz"
    code, out, err = run(capsys, "fit", reg_csv, "--target", "price", "--out", model,
                         "--n-estimators", 5, "--splitter", "random", "--random-state", 1)
    assert code == 0, err
    assert "regression extra trees" in out
    assert_error(run(capsys, "predict", model, reg_csv, "--proba"), "regression forest")


# ----------------------------------------------------------------------------- boosting


def test_fit_and_predict_gradient_boosting(capsys, clf_csv, reg_csv, tmp_path):
    model = tmp_path / "gb.npz"
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--out", model,
                         "--boost", 12, "--learning-rate", 0.2, "--max-leaf-nodes", 7,
                         "--random-state", 0)
    assert code == 0, err
    assert "classification gradient boosting (log_loss)" in out
    df = pd.read_csv(clf_csv)
    X = df.drop(columns=["species"])
    expect = fastdt.fit_boosting(X, df["species"], max_iter=12, learning_rate=0.2,
                                 max_leaf_nodes=7, random_state=0, early_stopping=False)
    model_back = fastdt.load(model)
    assert model_back.boosting == expect.boosting
    assert_cli_proba(capsys, model, clf_csv, expect, X, tmp_path)
    code, out, err = run(capsys, "fit", reg_csv, "--target", "price", "--out",
                         tmp_path / "q", "--boost", 5, "--loss", "quantile", "--quantile", 0.8)
    assert code == 0, err
    assert "regression gradient boosting (quantile)" in out
    assert fastdt.load(tmp_path / "q.npz").boosting["quantile"] == 0.8
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--boost", 5, "--criterion", "squared_error"), "not an option of --boost")
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--boost", 5, "--loss", "quantile"), "needs quantile")
    code, out, err = run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "r",
                         "--boost", 5, "--l2-regularization", 3, "--l1-regularization", 2)
    assert code == 0, err
    df = pd.read_csv(reg_csv)
    expect = fastdt.fit_boosting(df.drop(columns=["price"]), df["price"], max_iter=5,
                                 l2_regularization=3.0, l1_regularization=2.0,
                                 early_stopping=False)
    np.testing.assert_array_equal(fastdt.load(tmp_path / "r.npz").value, expect.value)
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--l2-regularization", 1), "need --boost")
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--boost", 5, "--l1-regularization", -1), "l1_regularization")


def test_fit_and_predict_adaboost(capsys, clf_csv, reg_csv, tmp_path):
    model = tmp_path / "ab.npz"
    code, out, err = run(capsys, "fit", clf_csv, "--target", "species", "--out", model,
                         "--adaboost", 8, "--random-state", 0)
    assert code == 0, err
    assert "classification AdaBoost (SAMME)" in out
    df = pd.read_csv(clf_csv)
    X = df.drop(columns=["species"])
    expect = fastdt.fit_adaboost(X, df["species"], n_estimators=8, random_state=0)
    assert_cli_proba(capsys, model, clf_csv, expect, X, tmp_path)
    code, out, err = run(capsys, "fit", reg_csv, "--target", "price", "--out",
                         tmp_path / "r2", "--adaboost", 5, "--loss", "square", "--max-depth",
                         2, "--random-state", 1, "--learning-rate", 0.5)
    assert code == 0, err
    assert "regression AdaBoost (AdaBoost.R2)" in out
    r2 = fastdt.load(tmp_path / "r2.npz")
    df = pd.read_csv(reg_csv)
    expect = fastdt.fit_adaboost(df.drop(columns=["price"]), df["price"], n_estimators=5,
                                 loss="square", learning_rate=0.5,
                                 tree_params={"max_depth": 2}, random_state=1)
    np.testing.assert_array_equal(r2.tree_weights, expect.tree_weights)
    assert max(t.max_depth for t in r2.trees()) <= 2
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--adaboost", 5, "--boost", 5), "two models")
    assert_error(run(capsys, "fit", reg_csv, "--target", "price", "--out", tmp_path / "x",
                     "--learning-rate", 0.3), "need --boost or --adaboost")
