"""The ``fastdt`` command line: ``python -m fastdt {demo,fit,predict,warmup}``.

* ``demo``: fit a tree on generated data (no download) and print its rules, held-out
  accuracy and timings;
* ``fit DATA.csv --target COL --out model.npz``: fit a tree (``--n-estimators``: a
  forest; ``--boost``: gradient boosting; ``--adaboost``: AdaBoost) on a CSV file and
  save it;
* ``predict model.npz DATA.csv [--out predictions.csv] [--proba]``: predict with a
  saved tree;
* ``warmup [GROUP ...]``: compile every kernel (or a group's) ahead of time, with a
  progress bar, so that a Docker build or CI step pays numba's compilation once.

Text columns of a CSV are categorical features; empty fields are missing values.

Errors in the input (missing files, unknown columns, unsupported columns, damaged
model files, invalid parameters) print ``error: <message>`` on stderr and exit with
status 2, without a traceback.
"""

import argparse
import sys
import time
import warnings

import numpy as np

from . import __version__
from ._config import CRITERIA_CLF, CRITERIA_REG
from .api import fit, predict, predict_proba
from .export import export_text
from .tree import load

__all__ = ["main"]

_JIT_NOTE = (
    "note: the first run in a fresh environment includes numba's compilation of the\n"
    "kernels (cached on disk afterwards); run the command again for steady-state times."
)


class _InputError(ValueError):
    """A problem with the user's files or arguments, reported as ``error: ...``."""


# ----------------------------------------------------------------------------- parser


def _positive_int(text):
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected an integer, got {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"expected an integer >= 1, got {value}")
    return value


def _max_features(text):
    """``sqrt``/``log2``, or a number as :func:`_int_or_float` reads it."""
    return text if text in ("sqrt", "log2") else _int_or_float(text)


def _int_or_float(text):
    """An int when the text is one (``5``), else a float (``0.01``): the scikit-learn
    convention for min_samples_leaf / min_samples_split."""
    try:
        return int(text)
    except ValueError:
        pass
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number, got {text!r}") from None


def build_parser():
    """The argument parser of the ``fastdt`` command."""
    parser = argparse.ArgumentParser(
        prog="fastdt",
        description="Exact CART decision trees as flat arrays, grown by numba kernels.",
    )
    parser.add_argument("--version", action="version", version=f"fastdt {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    sub.required = True

    demo = sub.add_parser(
        "demo", help="fit a tree on generated data and print its rules (no download)",
        description="Generate a classification dataset (4 informative and 4 noise "
        "features, a nonlinear label rule), fit on 75%% of it and report the rules, the "
        "accuracy on the other 25%% and the fit/predict times.",
    )
    demo.add_argument("--rows", type=_positive_int, default=20_000,
                      help="number of generated rows (default: 20000)")
    demo.add_argument("--max-depth", type=_positive_int, default=4,
                      help="maximum depth of the tree (default: 4)")
    demo.add_argument("--seed", type=int, default=0,
                      help="seed of the data generator and the split (default: 0)")
    demo.set_defaults(run=_cmd_demo)

    fit_p = sub.add_parser(
        "fit", help="fit a tree on a CSV file and save it (.npz)",
        description="Fit a tree on DATA.csv: the target column is y, every other column "
        "is a numeric feature. The model is saved with Tree.save.",
    )
    fit_p.add_argument("data", metavar="DATA.csv", help="training data with a header row")
    fit_p.add_argument("--target", required=True, metavar="COL", help="the target column")
    fit_p.add_argument("--out", required=True, metavar="MODEL.npz",
                       help="where to save the model")
    fit_p.add_argument("--task", choices=("classification", "regression"),
                       help="default: inferred (floating-point target means regression)")
    fit_p.add_argument("--criterion", choices=sorted({*CRITERIA_CLF, *CRITERIA_REG}),
                       help="default: gini (classification), squared_error (regression)")
    fit_p.add_argument("--max-depth", type=_positive_int, metavar="N")
    fit_p.add_argument("--min-samples-leaf", type=_int_or_float, metavar="N", default=None,
                       help="an int, or a float fraction of the rows (default: 1)")
    fit_p.add_argument("--min-samples-split", type=_int_or_float, metavar="N", default=2,
                       help="an int, or a float fraction of the rows (default: 2)")
    fit_p.add_argument("--max-leaf-nodes", type=int, metavar="N")
    fit_p.add_argument("--random-state", type=int, metavar="N")
    fit_p.add_argument("--splitter", choices=("best", "random", "hist"), default="best",
                       help="exact thresholds (best, default), one random threshold per "
                       "feature (random, with --random-state) or histogram splits (hist)")
    fit_p.add_argument("--max-bins", type=_positive_int, metavar="N",
                       help="bins per feature with --splitter hist (default 255)")
    fit_p.add_argument("--missing", choices=("learn", "fractional", "surrogate"),
                       default="learn",
                       help="missing values: learned side (default), C4.5 fractions, "
                       "CART surrogate splits")
    fit_p.add_argument("--categorical", metavar="COL", action="append", default=None,
                       help="treat a numeric column of category codes as categorical "
                       "(repeatable; text columns always are)")
    fit_p.add_argument("--n-estimators", type=_positive_int, metavar="N",
                       help="fit a random forest of N trees (bootstrap samples; with "
                       "--splitter random, extra trees) instead of one tree")
    fit_p.add_argument("--max-features", type=_max_features, metavar="F",
                       help="features drawn per node: an int, a fraction, sqrt or log2 "
                       "(a forest's default: sqrt for classification, all for regression)")
    boost = fit_p.add_argument_group(
        "gradient boosting", "--boost N fits N rounds of gradient-boosted trees "
        "(fastdt.fit_boosting: histogram splits, --max-leaf-nodes 31 and "
        "--min-samples-leaf 20 by default, no early stopping)")
    boost.add_argument("--boost", type=_positive_int, metavar="ROUNDS",
                       help="fit gradient boosting with this many rounds")
    boost.add_argument("--adaboost", type=_positive_int, metavar="ROUNDS",
                       help="fit AdaBoost (SAMME; regression: AdaBoost.R2) with at most "
                       "this many trees (stumps; regression: depth 3; the tree options "
                       "apply to them)")
    boost.add_argument("--learning-rate", type=float, metavar="F",
                       help="default: 0.1 (--boost), 1.0 (--adaboost)")
    boost.add_argument("--loss", metavar="LOSS", default="auto",
                       help="--boost: log_loss (classification); squared_error, "
                       "absolute_error, quantile, huber, poisson, gamma, tweedie "
                       "(regression); --adaboost (regression): linear, square, exponential")
    boost.add_argument("--quantile", type=float, metavar="Q",
                       help="the quantile of --loss quantile (or huber's delta)")
    boost.add_argument("--l2-regularization", type=float, metavar="LAMBDA", default=0.0,
                       help="--boost: L2 regularisation of leaves and split gains (default 0)")
    boost.add_argument("--l1-regularization", type=float, metavar="ALPHA", default=0.0,
                       help="--boost: L1 regularisation of the gradient sums (default 0)")
    fit_p.set_defaults(run=_cmd_fit)

    pred = sub.add_parser(
        "predict", help="predict with a saved model, writing a CSV",
        description="Predict every row of DATA.csv with a model saved by 'fastdt fit' "
        "(or Tree.save). Columns are selected by the model's feature names when it has "
        "them, so extra columns (such as the target) are ignored.",
    )
    pred.add_argument("model", metavar="MODEL.npz")
    pred.add_argument("data", metavar="DATA.csv")
    pred.add_argument("--out", metavar="PREDICTIONS.csv",
                      help="output file (default: standard output)")
    pred.add_argument("--proba", action="store_true",
                      help="write class probabilities, one column per class")
    pred.set_defaults(run=_cmd_predict)

    from ._warmup import GROUPS

    warm = sub.add_parser(
        "warmup", help="compile every kernel ahead of time (numba's on-disk cache)",
        description="Compile fastdt's numba kernels, for every kind of input, and cache "
        "them on disk, so that later processes start at once (run it in a Docker build "
        "or a CI step). Groups: " + "; ".join(f"{k} ({v[0]})" for k, v in GROUPS.items())
        + ".",
    )
    warm.add_argument("groups", nargs="*", metavar="GROUP",
                      help=f"groups to compile (default: all): {', '.join(GROUPS)}")
    warm.add_argument("--list", action="store_true", help="list the groups and exit")
    warm.set_defaults(run=_cmd_warmup)
    return parser


# ----------------------------------------------------------------------------- main


def main(argv=None):
    """Run the ``fastdt`` command line.

    Parameters
    ----------
    argv : list of str, optional
        The arguments after the program name; default ``sys.argv[1:]``.

    Returns
    -------
    int
        The exit status: 0 on success, 2 for a usage error or invalid input.
    """
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:  # --help, --version and usage errors
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        with warnings.catch_warnings():  # warnings as one plain line: "warning: ..."
            warnings.showwarning = _show_warning
            return args.run(args)
    except (ValueError, TypeError, OSError) as exc:
        _error(exc)
        return 2
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


def _show_warning(message, category, filename, lineno, file=None, line=None):
    print(f"warning: {message}", file=sys.stderr)


def _error(exc):
    if isinstance(exc, OSError) and exc.filename is not None and exc.strerror:
        message = f"{exc.filename}: {exc.strerror}"
    else:
        message = str(exc) or type(exc).__name__
    print(f"error: {message}", file=sys.stderr)


# ----------------------------------------------------------------------------- demo


def make_demo_data(n_rows, seed=0):
    """The demo's classification data: ``(X, y, feature_names)``.

    Four informative standard-normal features, four pure-noise ones, and labels
    ``"yes"``/``"no"`` from a nonlinear rule (an interaction, a sine) plus noise, so that
    deeper trees do measurably better.
    """
    rng = np.random.default_rng(seed)
    X = rng.standard_normal((n_rows, 8))
    score = (X[:, 0] + np.where(X[:, 1] > 0.5, 1.5, -0.5) * X[:, 2]
             + 0.8 * np.sin(2.0 * X[:, 3]) + 0.3 * rng.standard_normal(n_rows))
    y = np.where(score > 0.3, "yes", "no")
    names = [f"signal_{i}" for i in range(4)] + [f"noise_{i}" for i in range(4)]
    return X, y, names


def _cmd_demo(args):
    if args.rows < 8:
        raise _InputError(f"--rows must be at least 8, got {args.rows}")
    X, y, names = make_demo_data(args.rows, args.seed)
    order = np.random.default_rng(args.seed + 1).permutation(args.rows)
    n_train = (3 * args.rows) // 4
    train, test = order[:n_train], order[n_train:]

    start = time.perf_counter()
    tree = fit(X[train], y[train], max_depth=args.max_depth, random_state=args.seed)
    fit_seconds = time.perf_counter() - start
    start = time.perf_counter()
    pred = predict(tree, X[test])
    predict_seconds = time.perf_counter() - start
    accuracy = float(np.mean(pred == y[test]))

    print(f"fastdt {__version__} demo: {args.rows} generated rows, 8 features "
          "(signal_0..3 informative, noise_0..3 pure noise), labels yes/no")
    print(f"trained on {n_train} rows (75%), held out {len(test)} rows (25%), "
          f"max_depth={args.max_depth}")
    print()
    print(export_text(tree, feature_names=names), end="")
    print()
    print(f"tree: {tree.node_count} nodes, {tree.n_leaves} leaves, depth {tree.max_depth}")
    print(f"held-out accuracy: {accuracy:.4f}")
    print(f"fit time:     {fit_seconds:.4f} s ({n_train} rows)")
    print(f"predict time: {predict_seconds:.4f} s ({len(test)} rows)")
    print(_JIT_NOTE)
    return 0


# ----------------------------------------------------------------------------- warmup


def _cmd_warmup(args):
    from ._warmup import GROUPS, warmup

    if args.list:
        for name, (what, _) in GROUPS.items():
            print(f"{name:12s} {what}")
        return 0
    unknown = [g for g in args.groups if g not in GROUPS]
    if unknown:
        raise _InputError(f"unknown warm-up group(s) {', '.join(map(repr, unknown))}; the "
                          f"groups are {', '.join(GROUPS)} (see --list)")
    warmup(args.groups or None)
    return 0


# ----------------------------------------------------------------------------- fit


def _read_csv(path):
    import pandas as pd

    try:
        return pd.read_csv(path)
    except pd.errors.EmptyDataError:
        raise _InputError(f"{path}: the file is empty (a header row is needed)") from None
    except UnicodeDecodeError as exc:  # a ValueError, but its text is cryptic
        raise _InputError(f"{path}: not a text CSV file ({exc.reason})") from None


def _cmd_fit(args):
    df = _read_csv(args.data)
    if args.target not in df.columns:
        raise _InputError(
            f"target column {args.target!r} is not in {args.data}; its columns are: "
            + ", ".join(map(str, df.columns))
        )
    X = df.drop(columns=[args.target])
    if X.shape[1] == 0:
        raise _InputError(f"{args.data} has no feature columns besides {args.target!r}")
    y = df[args.target]
    if args.boost is not None and args.adaboost is not None:
        raise _InputError("--boost and --adaboost are two models: give one")
    if args.boost is not None:
        return _fit_boosting(args, X, y)
    if args.l2_regularization or args.l1_regularization:
        raise _InputError("--l2-regularization and --l1-regularization need --boost")
    if args.adaboost is None and (args.learning_rate is not None or args.loss != "auto"
                                  or args.quantile is not None):
        raise _InputError("--learning-rate, --loss and --quantile need --boost or --adaboost")
    params = dict(
        task=args.task, criterion=args.criterion, max_depth=args.max_depth,
        min_samples_leaf=1 if args.min_samples_leaf is None else args.min_samples_leaf,
        min_samples_split=args.min_samples_split,
        max_leaf_nodes=args.max_leaf_nodes, random_state=args.random_state,
        splitter=args.splitter, max_bins=args.max_bins, missing=args.missing,
        categorical_features=args.categorical,
    )
    if args.max_features is not None:
        params["max_features"] = args.max_features
    start = time.perf_counter()
    if args.adaboost is not None:
        return _fit_adaboost(args, X, y, params)
    if args.n_estimators is not None:  # a forest
        from .ensemble import fit_forest

        extra = args.splitter == "random"  # extra trees: every row, as scikit-learn
        tree = fit_forest(X, y, n_estimators=args.n_estimators, bootstrap=not extra,
                          **params)
    else:
        tree = fit(X, y, **params)
    seconds = time.perf_counter() - start
    out, score = _save_and_score(tree, args.out, X, y)
    if args.n_estimators is not None:
        kind = "extra trees" if args.splitter == "random" else "random forest"
        shape = f"{tree.n_trees} trees, {tree.node_count} nodes"
    else:
        kind = "tree"
        shape = f"{tree.node_count} nodes, {tree.n_leaves} leaves, depth {tree.max_depth}"
    print(f"{tree.task} {kind} ({tree.criterion}) on {X.shape[0]} rows x {X.shape[1]} "
          f"features: {shape}, {score}, fit {seconds:.3f} s; saved to {out}")
    return 0


def _save_and_score(model, out, X, y):
    """Save ``model`` (to ``out``, ``.npz`` added) and score it on its training rows:
    ``(the file's name, "training accuracy ..." or "training R^2 ...")``."""
    out = str(out)
    if not out.endswith(".npz"):
        out += ".npz"  # numpy.savez appends it anyway; report the real name
    model.save(out)
    fitted = predict(model, X)
    if model.task == "classification":
        return out, f"training accuracy {np.mean(fitted == y.to_numpy()):.4f}"
    return out, f"training R^2 {_r2(y.to_numpy(dtype=np.float64), fitted):.4f}"


def _fit_boosting(args, X, y):
    from .ensemble import fit_boosting

    tree_only = [flag for flag, given in (
        ("--criterion", args.criterion is not None),
        ("--splitter random", args.splitter == "random"),
        ("--missing", args.missing != "learn"),
        ("--n-estimators", args.n_estimators is not None),
        ("--min-samples-split", args.min_samples_split != 2)) if given]
    if tree_only:
        raise _InputError(f"{', '.join(tree_only)}: not an option of --boost (its trees are "
                          "histogram trees of gradients)")
    params = dict(task=args.task, loss=args.loss, quantile=args.quantile,
                  learning_rate=0.1 if args.learning_rate is None else args.learning_rate,
                  max_depth=args.max_depth,
                  max_leaf_nodes=31 if args.max_leaf_nodes is None else args.max_leaf_nodes,
                  min_samples_leaf=20 if args.min_samples_leaf is None
                  else args.min_samples_leaf, random_state=args.random_state,
                  max_bins=255 if args.max_bins is None else args.max_bins,
                  categorical_features=args.categorical, early_stopping=False,
                  l2_regularization=args.l2_regularization,
                  l1_regularization=args.l1_regularization)
    if args.max_features is not None:
        params["max_features"] = args.max_features
    start = time.perf_counter()
    model = fit_boosting(X, y, max_iter=args.boost, **params)
    seconds = time.perf_counter() - start
    out, score = _save_and_score(model, args.out, X, y)
    print(f"{model.task} gradient boosting ({model.boosting['loss']}) on {X.shape[0]} rows x "
          f"{X.shape[1]} features: {model.n_trees} trees, {model.node_count} nodes, {score}, "
          f"fit {seconds:.3f} s; saved to {out}")
    return 0


def _fit_adaboost(args, X, y, params):
    from .ensemble import fit_adaboost

    if args.n_estimators is not None or args.quantile is not None:
        raise _InputError("--n-estimators and --quantile are not options of --adaboost")
    tree_params = {k: v for k, v in params.items()
                   if k not in ("task", "random_state") and (k != "max_depth" or v is not None)}
    start = time.perf_counter()
    model = fit_adaboost(X, y, task=args.task, n_estimators=args.adaboost,
                         learning_rate=1.0 if args.learning_rate is None else args.learning_rate,
                         loss="linear" if args.loss == "auto" else args.loss,
                         tree_params=tree_params, random_state=args.random_state)
    seconds = time.perf_counter() - start
    out, score = _save_and_score(model, args.out, X, y)
    kind = "SAMME" if model.task == "classification" else "AdaBoost.R2"
    print(f"{model.task} AdaBoost ({kind}) on {X.shape[0]} rows x {X.shape[1]} features: "
          f"{model.n_trees} trees, {model.node_count} nodes, {score}, fit {seconds:.3f} s; "
          f"saved to {out}")
    return 0


def _r2(y, pred):
    ss_res = float(np.sum((y - pred) ** 2))
    ss_tot = float(np.sum((y - y.mean()) ** 2))
    if ss_tot == 0.0:
        return 1.0 if ss_res == 0.0 else 0.0
    return 1.0 - ss_res / ss_tot


# ----------------------------------------------------------------------------- predict


def _cmd_predict(args):
    import pandas as pd

    tree = load(args.model)
    if args.proba and tree.task != "classification":
        raise _InputError("--proba needs a classification model; this one is a regression "
                          + ("forest" if getattr(tree, "kind", None) == "forest" else "tree"))
    df = _read_csv(args.data)
    if tree.feature_names is not None:
        missing = [name for name in tree.feature_names if name not in df.columns]
        if missing:
            raise _InputError(
                f"{args.data} lacks {len(missing)} column(s) the model was fitted with: "
                + ", ".join(missing)
            )
        X = df[list(tree.feature_names)]
    else:
        if df.shape[1] != tree.n_features:
            raise _InputError(
                f"the model has no feature names and expects {tree.n_features} column(s); "
                f"{args.data} has {df.shape[1]}"
            )
        X = df
    if args.proba:
        proba = predict_proba(tree, X)
        result = pd.DataFrame(proba, columns=[str(c) for c in tree.classes])
    else:
        result = pd.DataFrame({"prediction": predict(tree, X)})
    if args.out is None:
        try:
            result.to_csv(sys.stdout, index=False)
            sys.stdout.flush()
        except BrokenPipeError:  # e.g. `fastdt predict ... | head`
            _silence_stdout()
        return 0
    result.to_csv(args.out, index=False)
    print(f"wrote {len(result)} {'probability rows' if args.proba else 'predictions'} "
          f"to {args.out}")
    return 0


def _silence_stdout():
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


if __name__ == "__main__":
    sys.exit(main())
