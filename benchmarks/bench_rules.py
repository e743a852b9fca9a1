"""C4.5 rule post-pruning (``fastdt.rules``) on Adult as a DataFrame: the rules of an
unpruned ``gain_ratio`` tree grown on 5,000 rows, pruned on 2,500 validation rows
(``method="validation"``) or on the 5,000 training rows (``method="pessimistic"``),
and the rule list's prediction on 5,000 rows. ``benchmarks/rules_experiment.py`` runs
the whole experiment (all training sizes, accuracies).

Skipped (``setup`` raises ``NotImplementedError``) when the shared datasets are absent
(``$FASTDT_DATASETS`` or ``../shared/datasets``).
"""

import fastdt

from .bench_tables import _adult
from .common import set_threads, warm_up


class PruneRules:
    timeout = 300
    number = 1
    repeat = (1, 10, 20.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0

    def setup(self):
        import numpy as np
        from fastdt.rules import RuleList

        set_threads()
        warm_up()
        X, y, _, _ = _adult()
        rows = np.random.default_rng(0).permutation(y.shape[0])
        tr, va = rows[:5000], rows[5000:7500]
        self.X_tr, self.y_tr = X.iloc[tr], y[tr]
        self.X_va, self.y_va = X.iloc[va], y[va]
        tree = fastdt.fit(self.X_tr, self.y_tr, criterion="gain_ratio")
        self.rules = RuleList.from_tree(tree)
        # compile (or load) the kernels
        self.rules.prune(self.X_va, self.y_va).predict(self.X_va)
        self.rules.prune(self.X_tr, self.y_tr, method="pessimistic")

    def time_prune_validation(self):
        self.rules.prune(self.X_va, self.y_va)

    def time_prune_pessimistic(self):
        self.rules.prune(self.X_tr, self.y_tr, method="pessimistic")

    def time_predict(self):
        self.rules.predict(self.X_tr)

    def track_rules(self):
        return len(self.rules)

    track_rules.unit = "rules"
