"""``plot_tree``: a fitted tree drawn with matplotlib, in the manner of scikit-learn's
``sklearn.tree.plot_tree``.

matplotlib is an optional dependency (``pip install fastdt[plot]``), imported only
when a tree is drawn. The boxes say what :func:`fastdt.export_graphviz` says (the
split as :func:`fastdt.export_text` words it, samples, value, class), and the edges to
the left child are labelled ``True``, to the right ``False``, as in the DOT export.
"""

import numpy as np

from ._predict import single_output
from ._config import LEAF
from .export import _check_max_depth, _node_lines, _options
from .tree import binary_only

__all__ = ["plot_tree"]


def plot_tree(tree, *, feature_names=None, class_names=None, max_depth=None, filled=False,
              impurity=True, node_ids=False, rounded=False, fontsize=None, decimals=3,
              show_missing=False, ax=None):
    """Draw a fitted tree with matplotlib.

    One box per node, laid out top-down: leaves evenly spaced, each parent centred
    over its children, depth on the y axis. A box holds the node's split (the
    condition for the left branch, worded as :func:`fastdt.export_text` words it:
    thresholds, category sets by name, ``is present``, and with ``show_missing``
    where missing values go), the impurity, ``samples``, ``value`` (class fractions
    or the mean) and ``class``. The edge to the left child is labelled ``True`` and
    the one to the right child ``False`` (as :func:`fastdt.export_graphviz`).

    Parameters
    ----------
    tree : Tree or fitted estimator
        A :class:`fastdt.Tree`, or a fitted fastdt estimator.
    feature_names : sequence of str, optional
        One name per feature (default: the tree's, else ``feature_0``, ...).
    class_names : sequence, optional
        One name per class, in the order of ``tree.classes``.
    max_depth : int, optional
        Draw the nodes of depth ``<= max_depth`` only (the root has depth 0); a node
        whose children are hidden gets a ``(...)`` mark below it.
    filled : bool, default=False
        Colour the boxes: by majority class (more saturated the purer the node), or,
        for regression, by value (more saturated the larger).
    impurity : bool, default=True
        Show the impurity (labelled with the tree's criterion).
    node_ids : bool, default=False
        Show each node's id (``node #i``, fastdt's breadth-first ids).
    rounded : bool, default=False
        Boxes with rounded corners.
    fontsize : float, optional
        Text size in points; by default chosen so that the boxes of the widest level
        and the deepest column fit the axes.
    decimals : int, default=3
        Digits after the decimal point of thresholds, impurities and values.
    show_missing : bool, default=False
        Say where a row missing the split's value goes, as :func:`fastdt.export_text`.
    ax : matplotlib.axes.Axes, optional
        Where to draw (default: the current axes, ``plt.gca()``).

    Returns
    -------
    list of matplotlib.text.Annotation
        The boxes, one per drawn node, in node-id order. The edge labels and ``(...)``
        marks are further artists of ``ax``.

    Raises
    ------
    ImportError
        If matplotlib is not installed.
    TypeError
        If ``tree`` is not a Tree or fitted estimator, or ``ax`` is not an Axes.
    ValueError
        If a name list has the wrong length, ``decimals`` or ``max_depth`` is not an
        int >= 0, or ``fontsize`` is not a positive number.

    Examples
    --------
    >>> import matplotlib
    >>> matplotlib.use("Agg")
    >>> import fastdt
    >>> tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1])
    >>> boxes = fastdt.plot_tree(tree, feature_names=["x"], filled=True)
    >>> boxes[0].get_text().splitlines()[0]
    'x <= 1.500'
    """
    single_output(tree, "plot_tree")
    try:
        import matplotlib
        from matplotlib.axes import Axes
    except ImportError as exc:
        raise ImportError(
            "plot_tree needs matplotlib, an optional dependency: pip install fastdt[plot]"
        ) from exc
    tree, names, labels, number = _options(tree, feature_names, class_names, decimals)
    binary_only(tree, "plot_tree")
    limit = _check_max_depth(max_depth)
    if fontsize is not None and (
        isinstance(fontsize, bool) or not isinstance(fontsize, (int, float, np.number))
        or not fontsize > 0 or not np.isfinite(fontsize)
    ):
        raise ValueError(f"fontsize must be None or a number > 0, got {fontsize!r}")
    if ax is None:
        import matplotlib.pyplot as plt

        ax = plt.gca()
    elif not isinstance(ax, Axes):
        raise TypeError(f"ax must be a matplotlib Axes, got {type(ax).__name__}")

    shown = np.flatnonzero(tree.depth <= (tree.max_depth if limit is None else limit))
    cut = [int(i) for i in shown if tree.left[i] != LEAF and tree.depth[i] == limit]
    x, n_slots = _layout(tree, limit)
    n_levels = int(tree.depth[shown].max()) + 1 + (1 if cut else 0)

    def y(depth):
        return 1.0 - (depth + 0.5) / n_levels

    texts = []
    for node in shown:
        lines = _node_lines(tree, node, names, labels, number, show_missing, impurity)
        if node_ids:
            lines.insert(0, f"node #{node}")
        texts.append("\n".join(lines))
    if fontsize is None:
        fontsize = _fit_fontsize(ax, texts, n_slots, n_levels)
    colours = _colours(tree, matplotlib) if filled else None
    arrow = dict(arrowstyle="<-", color="0.3", linewidth=0.8)
    common = dict(xycoords="axes fraction", textcoords="axes fraction", ha="center",
                  va="center", fontsize=fontsize, annotation_clip=False)
    parents = _parent(tree)
    boxes = []
    for node, text in zip(shown, texts):
        bbox = dict(boxstyle="round" if rounded else "square", ec="black", lw=0.8,
                    fc=colours[node] if filled else "white")
        here = (x[node], y(tree.depth[node]))
        # a parent is drawn above the arrows of its children, which end at its centre
        z = 100.0 - float(tree.depth[node])
        if node == 0:
            boxes.append(ax.annotate(text, here, bbox=bbox, zorder=z, **common))
            continue
        parent = parents[node]
        above = (x[parent], y(tree.depth[parent]))
        boxes.append(ax.annotate(text, above, xytext=here, bbox=bbox, arrowprops=arrow,
                                 zorder=z, **common))
        went = "True" if node == tree.left[parent] else "False"
        ax.text((above[0] + here[0]) / 2, (above[1] + here[1]) / 2, went,
                transform=ax.transAxes, ha="center", va="center", fontsize=fontsize * 0.8,
                zorder=101, bbox=dict(boxstyle="square,pad=0.1", fc="white", ec="none"))
    for node in cut:
        ax.annotate("(...)", (x[node], y(tree.depth[node])),
                    xytext=(x[node], y(tree.depth[node] + 1)), arrowprops=arrow, zorder=0,
                    **common)
    ax.set_axis_off()
    return boxes


def _parent(tree):
    """Parent id of every node (-1 at the root): internal node ``i`` has children
    ``left[i]`` and ``left[i] + 1``."""
    parent = np.full(tree.node_count, -1, dtype=np.int64)
    internal = np.flatnonzero(tree.left != LEAF)
    parent[tree.left[internal]] = internal
    parent[tree.right[internal]] = internal
    return parent


def _layout(tree, limit):
    """x of every drawn node in [0, 1] and the number of leaf slots: the drawn leaves
    (and nodes cut at ``limit``) evenly spaced left to right, parents centred over
    their children."""
    n = tree.node_count
    x = np.zeros(n)
    at_bottom = tree.left == LEAF
    if limit is not None:
        at_bottom = at_bottom | (tree.depth == limit)
    order = []
    stack = [0]
    while stack:  # depth first, left before right: the left-to-right order of the slots
        node = stack.pop()
        if at_bottom[node]:
            order.append(node)
        else:
            stack.append(int(tree.right[node]))
            stack.append(int(tree.left[node]))
    x[order] = (np.arange(len(order)) + 0.5) / len(order)
    drawn = tree.depth <= (n if limit is None else limit)
    for node in np.flatnonzero(~at_bottom & drawn)[::-1]:
        x[node] = (x[tree.left[node]] + x[tree.right[node]]) / 2  # children have larger ids
    return x, len(order)


def _fit_fontsize(ax, texts, n_slots, n_levels):
    """A text size (points) at which the widest box fits one slot and the tallest box
    one level of the axes; between 1 and 12."""
    fig = ax.figure
    box = ax.get_position()
    width_pt = fig.get_figwidth() * box.width * 72 / n_slots
    height_pt = fig.get_figheight() * box.height * 72 / n_levels
    chars = max(len(line) for t in texts for line in t.splitlines())
    lines = max(len(t.splitlines()) for t in texts)
    size = min(width_pt / (0.58 * chars + 1.5), height_pt / (1.3 * lines + 1.5))
    return float(np.clip(size, 1.0, 12.0))


def _colours(tree, matplotlib):
    """Face colour of every node (RGB tuples), blended with white by purity (the
    majority class's lead over the runner-up, as scikit-learn) or by value."""
    if tree.task == "classification":
        k = tree.value.shape[1]
        cmap = matplotlib.colormaps["tab10" if k <= 10 else "tab20"]
        base = np.array([cmap(c % cmap.N)[:3] for c in range(k)])
        top = np.argmax(tree.value, axis=1)
        ordered = np.sort(tree.value, axis=1)
        if k > 1:
            first, second = ordered[:, -1], ordered[:, -2]
            with np.errstate(invalid="ignore", divide="ignore"):
                alpha = np.where(second < 1, (first - second) / (1 - second), 0.0)
        else:
            alpha = np.ones(tree.node_count)
        rgb = base[top]
    else:
        v = tree.value[:, 0]
        span = v.max() - v.min()
        alpha = (v - v.min()) / span if span > 0 else np.zeros_like(v)
        rgb = np.tile(matplotlib.colormaps["tab10"](1)[:3], (tree.node_count, 1))
    mixed = alpha[:, None] * rgb + (1 - alpha[:, None]) * 1.0
    return [tuple(float(c) for c in row) for row in mixed]
