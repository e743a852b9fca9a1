"""Two fastdt trees equal array for array (the helper of the sparse and forest tests)."""

import numpy as np

ARRAYS = ("feature", "threshold", "left", "right", "n_node_samples", "missing_go_left",
          "value", "impurity", "weighted_n_node_samples")


def assert_same(a, b, arrays=ARRAYS):
    assert a.node_count == b.node_count
    for name in arrays:
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name), err_msg=name)
