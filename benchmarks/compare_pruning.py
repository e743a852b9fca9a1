"""Choosing ``ccp_alpha`` on Adult: fastdt's ``ccp_cv`` against scikit-learn's recipe.

Run through ``benchmarks/compare.py --section pruning`` (options there: ``--ccp-grid``,
``--repeat``, ``--threads``). scikit-learn's recipe, as its documentation shows it:
``cost_complexity_pruning_path`` of a tree grown on the training rows, then
``GridSearchCV(DecisionTreeClassifier(), {"ccp_alpha": alphas}, cv=5)`` (stratified
5 folds, refit on all rows). Every candidate alpha costs it five fits, so it gets an
evenly spaced subset of ``--ccp-grid`` alphas of the path. fastdt's ``ccp_cv`` scores
the whole path with the same 5 stratified folds idea (its own fold assignment) and
``result.tree`` is the tree of all rows pruned at the best alpha. Both see the same
ordinal-coded table (category codes as numbers, NaN kept); fastdt is also run on the
raw DataFrame (native categorical splits). Times are wall-clock seconds of the whole
selection including the final tree, the best of ``--repeat`` after one untimed call.

This is a plain module, not an asv benchmark (no ``time_`` names, no heavy imports at
module level).
"""


def pruning_section(args, threads, say):
    """Print the table of the ccp_alpha selection on Adult (skipped without the data)."""
    import numpy as np
    from sklearn.model_selection import GridSearchCV
    from sklearn.tree import DecisionTreeClassifier

    import fastdt
    from compare import _best, _encoded
    from fastdt.datasets import datasets_folder, load_adult_frame

    try:
        Xtr, ytr, Xte, yte = load_adult_frame()
    except FileNotFoundError as e:
        say(f"Skipped the pruning section: the shared datasets are not found ({e}); "
            f"looked in {datasets_folder()}.")
        return
    (Otr, Ote) = _encoded(Xtr, Xte)["ordinal codes"]
    say(f"Choosing ccp_alpha by 5-fold cross-validation on Adult ({len(ytr):,} train / "
        f"{len(yte):,} test rows; unlimited depth, default parameters otherwise). "
        f"scikit-learn: path, then GridSearchCV (cv=5, n_jobs={threads}) over "
        f"{args.ccp_grid} evenly spaced alphas of the path; fastdt: ccp_cv over the "
        "whole path. Seconds: the whole selection including the final tree, best of "
        f"{args.repeat} after one untimed call.")
    say("")

    def sklearn_recipe():
        path = DecisionTreeClassifier(random_state=0).cost_complexity_pruning_path(Otr, ytr)
        alphas = path.ccp_alphas
        idx = np.unique(np.linspace(0, len(alphas) - 1, args.ccp_grid).round().astype(int))
        grid = GridSearchCV(DecisionTreeClassifier(random_state=0),
                            {"ccp_alpha": list(alphas[idx])}, cv=5, n_jobs=threads)
        grid.fit(Otr, ytr)
        return len(alphas), len(idx), grid

    rows = []
    sk_s, (sk_path, sk_n, grid) = _best(sklearn_recipe, args.repeat)
    best = grid.best_estimator_
    rows.append(("scikit-learn path + GridSearchCV", "ordinal codes", sk_s, sk_n, sk_path,
                 grid.best_params_["ccp_alpha"], best.get_n_leaves(), best.score(Ote, yte)))
    for given, X, Xt in (("ordinal codes", Otr, Ote), ("raw DataFrame", Xtr, Xte)):
        fastdt.ccp_cv(X, ytr, cv=5)  # untimed: compile and warm up
        s, r = _best(lambda: fastdt.ccp_cv(X, ytr, cv=5), args.repeat)
        acc = float(np.mean(fastdt.predict(r.tree, Xt) == yte))
        rows.append(("fastdt ccp_cv", given, s, len(r.alphas), len(r.alphas), r.best_alpha,
                     r.tree.n_leaves, acc))
    say("| method | input | seconds | alphas scored | path length | best alpha | leaves "
        "| test accuracy | seconds per alpha |")
    say("|---|---|---:|---:|---:|---:|---:|---:|---:|")
    for name, given, s, n, path, alpha, leaves, acc in rows:
        say(f"| {name} | {given} | {s:.3g} | {n:,} | {path:,} | {alpha:.3g} | {leaves:,} "
            f"| {acc:.2%} | {s / n:.3g} |")
    say("")
    fd = rows[1][2]
    say(f"fastdt (ordinal codes) is {sk_s / fd:.0f}x faster than scikit-learn's recipe "
        f"while scoring {rows[1][3] / sk_n:.0f}x as many alphas "
        f"({sk_s / sk_n / (fd / rows[1][3]):,.0f}x per alpha).")
