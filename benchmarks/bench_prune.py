"""Cost-complexity pruning of a grown tree: the whole path, and one pruned subtree.

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
