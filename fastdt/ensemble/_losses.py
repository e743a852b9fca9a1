"""The losses of gradient boosting: gradients, hessians, starting scores and links.

Every loss works on raw scores ``raw`` (float64 ``[n, K]``: ``K = 1`` except for
multiclass log-loss, one column per class) and the targets ``y`` (float64 ``[n]``: values,
or class codes for log-loss), with per-row weights ``w``. A loss gives:

* ``gradient_hessian(y, raw, w)``: ``(g, h)``, float64 ``[n, K]``, the first and second
  derivatives of ``w * loss(y, raw)`` with respect to ``raw``;
* ``baseline(y, w)``: the constant raw score that minimises the weighted loss (the
  starting score), float64 ``[K]``;
* ``value(y, raw, w)``: the weighted mean loss (what ``verbose`` and early stopping
  report), the weighted mean of ``rows(y, raw)``, each row's loss (Huber's has no
  ``rows``: its ``delta`` is a quantile over all of them);
* ``gradient_hessian_value(y, raw, w)``: ``gradient_hessian`` and ``value`` at once (binary
  log-loss: one pass over the rows on threads, :mod:`fastdt.ensemble._loss_kernels`;
  the boosting loop takes each round's training loss from the next round's gradients);
* ``link(raw)``: predictions from raw scores (probabilities ``[n, n_classes]``, or the
  predicted values ``[n]``).

The losses are scikit-learn's ``HistGradientBoosting`` ones (half squared error, absolute
error, pinball (quantile), half Poisson deviance, half Gamma deviance, log-loss with the
diagonal hessian ``p (1 - p)`` of the softmax) plus Tweedie with a log link (LightGBM's)
and Huber (scikit-learn's ``GradientBoostingRegressor`` one); constants that do not
depend on ``raw`` are left out of ``value``.

Absolute error and the pinball loss have no curvature: their trees split on the signs of
the residuals (hessian 1), and each leaf then takes the quantile of the residuals of its
training rows (``leaf_quantile``; :func:`quantile_of`), as scikit-learn does.
"""

import numpy as np

__all__ = ["LOSSES", "get_loss"]

_EPS = 1e-15  # mean probabilities are kept in [EPS, 1 - EPS] for the starting score


def _weighted_mean(y, w):
    return float(np.sum(w * y) / np.sum(w))


def quantile_of(values, w, q, groups=None, n_groups=1):
    """The ``q``-quantile of ``values`` (per group ``groups`` in ``[0, n_groups)``, or of
    all): with unit weights (``w`` None) numpy's default (linear) percentile, else the
    weighted ``inverted_cdf`` one (the smallest value whose cumulative weight reaches
    ``q`` of its group's total), as scikit-learn's ``fit_intercept_only``. Returns
    float64 ``[n_groups]`` (NaN for an empty group)."""
    groups = np.zeros(values.shape[0], dtype=np.int64) if groups is None else groups
    order = np.lexsort((values, groups))
    v, g = values[order], groups[order]
    first = np.searchsorted(g, np.arange(n_groups))
    size = np.bincount(g, minlength=n_groups)
    out = np.full(n_groups, np.nan)
    has = size > 0
    if w is None:  # linear interpolation between the order statistics around q (n - 1)
        pos = q * (size[has] - 1)
        lo = np.floor(pos).astype(np.int64)
        hi = np.minimum(lo + 1, size[has] - 1)
        a, b = v[first[has] + lo], v[first[has] + hi]
        out[has] = a + (pos - lo) * (b - a)
        return out
    cw = np.cumsum(w[order])
    before = np.where(first > 0, cw[np.maximum(first - 1, 0)], 0.0)  # weight before a group
    total = np.where(has, cw[np.minimum(first + size - 1, cw.shape[0] - 1)] - before, 0.0)
    # the first row of each group whose cumulative weight (in its group) reaches q total
    idx = np.searchsorted(cw, before + q * total, side="left")
    idx = np.minimum(np.maximum(idx, first), first + size - 1)
    out[has] = v[idx[has]]
    return out


def _sigmoid(raw):
    """``1 / (1 + exp(-r))`` for ``r >= 0``, ``exp(r) / (1 + exp(r))`` below (no
    overflow), both from ``exp(-|r|)``: the same values, without masked copies (twice
    as fast over 200,000 rows)."""
    e = np.exp(-np.abs(raw))
    return np.where(raw >= 0, 1.0, e) / (1.0 + e)


def _softmax(raw):
    e = np.exp(raw - raw.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


class _Loss:
    """``value`` from ``rows``: each row's loss (``value`` is their weighted mean; Huber's
    has a ``value`` of its own)."""

    def value(self, y, raw, w):
        return _weighted_mean(self.rows(y, raw), w)

    def gradient_hessian_value(self, y, raw, w):
        """``gradient_hessian`` and ``value`` at the same scores (a loss may compute
        them in one pass)."""
        g, h = self.gradient_hessian(y, raw, w)
        return g, h, self.value(y, raw, w)


class SquaredError(_Loss):
    """``(y - raw)^2 / 2``; identity link."""

    name = "squared_error"
    is_clf = False
    constant_hessian = True  # the hessian is the weight
    leaf_quantile = None  # Newton leaves

    def gradient_hessian(self, y, raw, w):
        return (w * (raw[:, 0] - y))[:, None], np.broadcast_to(w[:, None], raw.shape).copy()

    def baseline(self, y, w):
        return np.array([_weighted_mean(y, w)])

    def rows(self, y, raw):
        return 0.5 * (raw[:, 0] - y) ** 2

    def link(self, raw):
        return raw[:, 0].copy()


class AbsoluteError(_Loss):
    """``|y - raw|``; identity link; leaves are the medians of their residuals."""

    name = "absolute_error"
    is_clf = False
    constant_hessian = True
    q = leaf_quantile = 0.5

    def gradient_hessian(self, y, raw, w):
        return (w * np.sign(raw[:, 0] - y))[:, None], np.broadcast_to(w[:, None],
                                                                      raw.shape).copy()

    def baseline(self, y, w):
        return quantile_of(y, None if np.all(w == 1.0) else w, self.q)

    def rows(self, y, raw):
        return np.abs(y - raw[:, 0])

    def link(self, raw):
        return raw[:, 0].copy()


class Pinball(AbsoluteError):
    """The pinball loss of quantile ``q``: ``q (y - raw)`` above, ``(1 - q) (raw - y)``
    below; leaves are the ``q``-quantiles of their residuals."""

    name = "quantile"

    def __init__(self, q):
        self.q = self.leaf_quantile = q

    def gradient_hessian(self, y, raw, w):
        g = np.where(y > raw[:, 0], -self.q, 1.0 - self.q)
        return (w * g)[:, None], np.broadcast_to(w[:, None], raw.shape).copy()

    def rows(self, y, raw):
        d = y - raw[:, 0]
        return np.where(d >= 0, self.q * d, (self.q - 1.0) * d)


class Huber(_Loss):
    """Huber's loss (scikit-learn's ``GradientBoostingRegressor`` one): squared error for
    residuals up to ``delta``, absolute error beyond, where ``delta`` is the ``q``-quantile
    of the absolute residuals at the current scores (recomputed every round). Hessian 1
    (the curvature of the squared part everywhere, as LightGBM): a leaf is the mean of its
    clipped residuals. Starting score: the median."""

    name = "huber"
    is_clf = False
    constant_hessian = True
    leaf_quantile = None

    def __init__(self, q):
        self.q = q

    def delta(self, y, raw, w):
        return float(quantile_of(np.abs(y - raw[:, 0]), w, self.q)[0])

    def gradient_hessian(self, y, raw, w):
        delta = self.delta(y, raw, w)
        g = np.clip(raw[:, 0] - y, -delta, delta)
        return (w * g)[:, None], np.broadcast_to(w[:, None], raw.shape).copy()

    def baseline(self, y, w):
        return quantile_of(y, None if np.all(w == 1.0) else w, 0.5)

    def value(self, y, raw, w):
        a, delta = np.abs(y - raw[:, 0]), self.delta(y, raw, w)
        return _weighted_mean(np.where(a <= delta, 0.5 * a * a, delta * (a - 0.5 * delta)), w)

    def link(self, raw):
        return raw[:, 0].copy()


class _LogLink(_Loss):
    """Regression losses with a log link: ``raw = log(mean)``, y >= 0."""

    is_clf = False
    constant_hessian = False
    leaf_quantile = None
    positive = False  # y > 0 needed (else y >= 0 with a positive sum)

    def check(self, y, w):
        self.check_sums(float(y.min(initial=np.inf)), float(np.sum(w * y)))

    def check_sums(self, y_min, wy):
        """``check`` from the smallest target and the weighted sum of the targets."""
        if self.positive and not y_min > 0:
            raise ValueError(f"loss={self.name!r} needs y > 0")
        if not y_min >= 0 or not wy > 0:
            raise ValueError(f"loss={self.name!r} needs y >= 0 with a positive (weighted) sum")

    def baseline(self, y, w):
        return np.array([np.log(_weighted_mean(y, w))])

    def link(self, raw):
        return np.exp(raw[:, 0])


class Poisson(_LogLink):
    """Half Poisson deviance, up to a constant: ``exp(raw) - y raw``."""

    name = "poisson"

    def gradient_hessian(self, y, raw, w):
        mu = np.exp(raw[:, 0])
        return (w * (mu - y))[:, None], (w * mu)[:, None]

    def rows(self, y, raw):
        return np.exp(raw[:, 0]) - y * raw[:, 0]


class Gamma(_LogLink):
    """Half Gamma deviance, up to a constant: ``raw + y exp(-raw)``."""

    name = "gamma"
    positive = True

    def gradient_hessian(self, y, raw, w):
        t = y * np.exp(-raw[:, 0])
        return (w * (1.0 - t))[:, None], (w * t)[:, None]

    def rows(self, y, raw):
        return raw[:, 0] + y * np.exp(-raw[:, 0])


class Tweedie(_LogLink):
    """Tweedie deviance with power ``1 < p < 2``, up to a constant:
    ``-y exp((1 - p) raw) / (1 - p) + exp((2 - p) raw) / (2 - p)``."""

    name = "tweedie"

    def __init__(self, power):
        self.power = power

    def gradient_hessian(self, y, raw, w):
        p, r = self.power, raw[:, 0]
        a, b = np.exp((1.0 - p) * r), np.exp((2.0 - p) * r)
        g = -y * a + b
        h = -(1.0 - p) * y * a + (2.0 - p) * b
        return (w * g)[:, None], (w * h)[:, None]

    def rows(self, y, raw):
        p, r = self.power, raw[:, 0]
        return -y * np.exp((1.0 - p) * r) / (1.0 - p) + np.exp((2.0 - p) * r) / (2.0 - p)


class BinaryLogLoss(_Loss):
    """Log-loss of two classes: ``raw`` is the log-odds of the second class."""

    name = "log_loss"
    is_clf = True
    constant_hessian = False
    leaf_quantile = None

    def gradient_hessian_value(self, y, raw, w):
        """``(g, h, value)`` in one pass over the rows, on threads
        (:func:`fastdt.ensemble._loss_kernels.binary_logloss`)."""
        from .._parallel import run_rows
        from ._loss_kernels import binary_logloss

        n = y.shape[0]
        g, h, loss = np.empty((n, 1)), np.empty((n, 1)), np.empty(n)
        r, w = np.ascontiguousarray(raw[:, 0]), np.ascontiguousarray(w, dtype=np.float64)
        y = np.ascontiguousarray(y, dtype=np.float64)
        run_rows(binary_logloss, n, 30 * n, (), y, r, w, g[:, 0], h[:, 0], loss)
        return g, h, _weighted_mean(loss, w)

    def gradient_hessian(self, y, raw, w):
        return self.gradient_hessian_value(y, raw, w)[:2]

    def value(self, y, raw, w):
        return self.gradient_hessian_value(y, raw, w)[2]

    def baseline(self, y, w):
        p = min(max(_weighted_mean(y, w), _EPS), 1.0 - _EPS)
        return np.array([np.log(p / (1.0 - p))])

    def rows(self, y, raw):
        r = raw[:, 0]
        return np.logaddexp(0.0, r) - y * r  # log(1 + exp(r)) - y r, without overflow

    def link(self, raw):
        p = _sigmoid(raw[:, 0])
        return np.column_stack([1.0 - p, p])


class MulticlassLogLoss(_Loss):
    """Log-loss of ``K >= 3`` classes through the softmax; hessian ``p_k (1 - p_k)``."""

    name = "log_loss"
    is_clf = True
    constant_hessian = False
    leaf_quantile = None

    def __init__(self, n_classes):
        self.n_classes = n_classes

    def _onehot(self, y):
        out = np.zeros((y.shape[0], self.n_classes))
        out[np.arange(y.shape[0]), y.astype(np.int64)] = 1.0
        return out

    def gradient_hessian(self, y, raw, w):
        p = _softmax(raw)
        return w[:, None] * (p - self._onehot(y)), w[:, None] * p * (1.0 - p)

    def baseline(self, y, w):
        share = np.bincount(y.astype(np.int64), weights=w, minlength=self.n_classes) / w.sum()
        return np.log(np.clip(share, _EPS, 1.0 - _EPS))

    def rows(self, y, raw):
        m = raw.max(axis=1)
        lse = m + np.log(np.exp(raw - m[:, None]).sum(axis=1))
        return lse - raw[np.arange(y.shape[0]), y.astype(np.int64)]

    def link(self, raw):
        return _softmax(raw)


LOSSES = {"classification": ("log_loss",),
          "regression": ("squared_error", "absolute_error", "quantile", "huber", "poisson",
                         "gamma", "tweedie")}


def _check_unit(v, what):
    if not (isinstance(v, (int, float, np.number)) and not isinstance(v, bool)
            and 0.0 < v < 1.0):
        raise ValueError(f"quantile={v!r} must be a number in (0, 1) {what}")


def get_loss(name, task, n_classes=0, power=1.5, quantile=None):
    """The loss object for ``name`` (``"auto"``: log-loss, or squared error).
    ``quantile``: the quantile of ``loss="quantile"`` (required), or of the absolute
    residuals that sets Huber's ``delta`` (None: 0.9)."""
    if name == "auto":
        name = "log_loss" if task == "classification" else "squared_error"
    if name not in LOSSES[task]:
        kind = "a classifier" if task == "classification" else "a regressor"
        raise ValueError(f"loss={name!r} is not a loss of {kind}; choose one of "
                         f"{LOSSES[task]}")
    if name == "log_loss":
        return BinaryLogLoss() if n_classes <= 2 else MulticlassLogLoss(n_classes)
    if name == "tweedie":
        if not (isinstance(power, (int, float, np.number)) and not isinstance(power, bool)
                and 1.0 < power < 2.0):
            raise ValueError(f"power={power!r} must be a number in (1, 2) for loss='tweedie'")
        return Tweedie(float(power))
    if name == "quantile":
        if quantile is None:
            raise ValueError("loss='quantile' needs quantile, a number in (0, 1)")
        _check_unit(quantile, "for loss='quantile'")
        return Pinball(float(quantile))
    if name == "huber":
        q = 0.9 if quantile is None else quantile
        _check_unit(q, "for loss='huber'")
        return Huber(float(q))
    if name == "absolute_error":
        return AbsoluteError()
    return {"squared_error": SquaredError, "poisson": Poisson, "gamma": Gamma}[name]()
