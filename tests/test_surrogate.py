"""Surrogate splits (``missing="surrogate"``, CART / rpart).

The oracle is R's rpart itself, run in a subprocess when ``Rscript`` and the rpart
package are installed (Debian: ``r-cran-rpart``); the test skips cleanly otherwise.
rpart is configured to grow the same tree as fastdt: no pruning while growing
(``cp=-1``), ``minsplit=2``, ``minbucket=1``, five surrogates, ``usesurrogate=2``
(majority side when every surrogate is missing), ``surrogatestyle=0``.
"""

import shutil
import subprocess

import numpy as np
import pytest

import fastdt

NAN = np.nan


def _correlated(rng, n, missing=0.2):
    """Four features, two of them (b, d) noisy copies of a; holes everywhere, but no
    row missing every feature (rpart drops those)."""
    X = rng.normal(size=(n, 4))
    X[:, 1] = X[:, 0] + 0.5 * rng.normal(size=n)
    X[:, 3] = -X[:, 0] + rng.normal(size=n)
    score = X[:, 0] + 0.5 * X[:, 2] + 0.3 * rng.normal(size=n)
    holes = rng.random((n, 4)) < missing
    holes[holes.all(axis=1), 2] = False
    X[holes] = NAN
    return X, score


def test_surrogate_sends_missing_rows_like_the_primary():
    # a separates the classes; b is a with 5 and 6 swapped, c is -b: both imperfect,
    # so a (8 rows present, decrease 8 * 0.5 = 4) beats them (3.33 on 10 rows)
    a = np.arange(1.0, 11.0)
    b = a.copy()
    b[[4, 5]] = [6.0, 5.0]
    X = np.column_stack([a, b, -b])
    y = (a > 5).astype(int)
    X[[1, 8], 0] = NAN  # a = 2 (class 0) and a = 9 (class 1) lose their value
    t = fastdt.fit(X, y, missing="surrogate", max_depth=1)
    assert t.feature[0] == 0 and t.threshold[0] == 5.5
    s = slice(t.surrogate_ptr[0], t.surrogate_ptr[1])
    # b and c agree on 6 of the 8 rows; a tie: the lower feature first
    assert t.surrogate_feature[s].tolist() == [1, 2]
    assert t.surrogate_left_if_le[s].tolist() == [1, 0]
    # the two rows missing a follow b: a = 2 left, a = 9 right
    np.testing.assert_array_equal(t.value[1:, 1], [0.0, 1.0])
    np.testing.assert_array_equal(t.n_node_samples, [10, 5, 5])
    # at predict time: a missing, b present -> b decides; b missing too -> c decides;
    # everything missing -> the majority side (a tie of 4 and 4: left)
    np.testing.assert_array_equal(
        fastdt.predict(t, [[NAN, 2.0, 0.0], [NAN, 9.0, 0.0], [NAN, NAN, -9.0],
                           [NAN, NAN, NAN]]), [0, 1, 1, 0])


def test_surrogate_must_beat_the_majority_rule():
    rng = np.random.default_rng(0)
    n = 400
    X = np.column_stack([rng.normal(size=n), rng.normal(size=n)])  # b unrelated to a
    y = (X[:, 0] > 0.8).astype(int)  # the primary sends most rows left
    X[rng.random(n) < 0.2, 0] = NAN
    t = fastdt.fit(X, y, missing="surrogate", max_depth=1)
    assert t.feature[0] == 0
    assert t.surrogate_ptr[1] == 0  # noise cannot beat "go with the majority"
    assert t.missing_go_left[0] == 1


def test_max_surrogates_and_format():
    rng = np.random.default_rng(1)
    X, score = _correlated(rng, 300)
    y = (score > 0).astype(int)
    for k in (0, 1, 3):
        t = fastdt.fit(X, y, missing="surrogate", max_surrogates=k, max_depth=4)
        counts = np.diff(t.surrogate_ptr)
        assert counts.max() <= k
        assert np.all(counts[t.left == -1] == 0)
        assert np.all(t.surrogate_feature != np.repeat(t.feature, counts))
    t.validate()


def _rpart(tmp_path, X, y, X_test, method, depth):
    if shutil.which("Rscript") is None:
        pytest.skip("Rscript not installed (Debian: r-cran-rpart)")
    has_rpart = subprocess.run(["Rscript", "-e", "library(rpart)"], capture_output=True)
    if has_rpart.returncode != 0:
        pytest.skip("R package rpart not installed (Debian: r-cran-rpart)")
    cols = [f"x{j}" for j in range(X.shape[1])]
    np.savetxt(tmp_path / "train.csv", np.column_stack([X, y]), delimiter=",",
               header=",".join(cols + ["y"]), comments="")
    np.savetxt(tmp_path / "test.csv", X_test, delimiter=",", header=",".join(cols),
               comments="")
    kind = "prob" if method == "class" else "vector"
    script = f"""
library(rpart)
tr <- read.csv("train.csv"); te <- read.csv("test.csv")
{'tr$y <- factor(tr$y)' if method == 'class' else ''}
ctl <- rpart.control(minsplit=2, minbucket=1, cp=-1, maxcompete=0, maxsurrogate=5,
                     usesurrogate=2, surrogatestyle=0, xval=0, maxdepth={depth})
fit <- rpart(y ~ ., data=tr, method="{method}", control=ctl)
write.csv(predict(fit, te, type="{kind}"), "pred.csv", row.names=FALSE)
"""
    (tmp_path / "fit.R").write_text(script)
    subprocess.run(["Rscript", "fit.R"], cwd=tmp_path, check=True, capture_output=True)
    return np.loadtxt(tmp_path / "pred.csv", delimiter=",", skiprows=1, ndmin=1)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [2, 4])
def test_same_predictions_as_rpart_classification(tmp_path, seed, depth):
    rng = np.random.default_rng(seed)
    X, score = _correlated(rng, 300)
    y = (score > 0).astype(int)
    X_test, _ = _correlated(rng, 200, missing=0.3)
    expected = _rpart(tmp_path, X, y, X_test, "class", depth)
    t = fastdt.fit(X, y, missing="surrogate", max_depth=depth)
    np.testing.assert_allclose(fastdt.predict_proba(t, X_test), expected, atol=1e-12)


@pytest.mark.parametrize("seed", range(3))
def test_same_predictions_as_rpart_regression(tmp_path, seed):
    rng = np.random.default_rng(10 + seed)
    X, score = _correlated(rng, 300)
    X_test, _ = _correlated(rng, 200, missing=0.3)
    expected = _rpart(tmp_path, X, score, X_test, "anova", 3)
    t = fastdt.fit(X, score, missing="surrogate", max_depth=3)
    np.testing.assert_allclose(fastdt.predict(t, X_test), expected, rtol=1e-9)
