"""Cost-complexity pruning of a grown tree: the whole path, and one pruned subtree;
and choosing ``ccp_alpha`` by 5-fold cross-validation over the whole path (``ccp_cv``).

The tree (unlimited depth, so tens of thousands of nodes at 1e5 rows) is grown in
``setup``; the kernels are compiled there too.
"""

import fastdt

from .common import classification, rows_param, set_threads, warm_up


class Prune:
    params = [rows_param([100_000, 1_000_000])]
    param_names = ["rows"]
    timeout = 600
    number = 1
    repeat = (1, 5, 30.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0

    def setup(self, rows):
        set_threads()
        warm_up()
        X, y = classification(rows)
        self.tree = fastdt.fit(X, y)
        self.alphas = fastdt.cost_complexity_pruning_path(self.tree).ccp_alphas
        fastdt.prune(self.tree, float(self.alphas[len(self.alphas) // 2]))

    def time_cost_complexity_pruning_path(self, rows):
        fastdt.cost_complexity_pruning_path(self.tree)

    def time_prune(self, rows):
        fastdt.prune(self.tree, float(self.alphas[len(self.alphas) // 2]))

    def track_nodes(self, rows):
        return self.tree.node_count

    track_nodes.unit = "nodes"


class ChooseAlpha:
    """``ccp_cv`` (cv=5, unlimited depth): six fits and one walk per held-out row."""

    params = [rows_param([20_000, 100_000])]
    param_names = ["rows"]
    timeout = 600
    number = 1
    repeat = (1, 3, 30.0)
    rounds = 1
    min_run_count = 1
    warmup_time = 0

    def setup(self, rows):
        set_threads()
        warm_up()
        self.X, self.y = classification(rows)
        fastdt.ccp_cv(self.X[:2000], self.y[:2000])  # compile the loss kernel

    def time_ccp_cv(self, rows):
        fastdt.ccp_cv(self.X, self.y, cv=5)
