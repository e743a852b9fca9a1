"""Exports of a fitted tree: indented rules in the style of scikit-learn's
``export_text``, a nested dict (JSON), Graphviz DOT and a Mermaid flowchart.

Only the public node arrays of :class:`~fastdt.tree.Tree` are read; the walk is an
explicit stack, so trees of any depth export without hitting Python's recursion
limit.
"""

import numpy as np

from ._config import LEAF
from ._input import NotFittedError
from .tree import Tree

__all__ = ["export_graphviz", "export_mermaid", "export_text", "to_dict"]

_BRANCH = "|   "
_ARROW = "|--- "


def export_text(tree, *, feature_names=None, class_names=None, decimals=3, max_depth=None,
                show_weights=False, show_missing=False):
    """Render a fitted tree as indented if/else rules.

    The layout follows scikit-learn's ``export_text``::

        |--- petal_len <= 2.450
        |   |--- class: setosa
        |--- petal_len >  2.450
        |   |--- petal_wid <= 1.750
        |   |   |--- class: versicolor
        ...

    A row goes left (the ``<=`` line) when its value is at most the threshold.
    Categorical splits read ``name in {a, b}`` / ``name not in {a, b}``, listing the
    categories that go left by name (by code when the tree has no category names).
    A split of the present values from the missing ones (threshold ``+inf``) reads
    ``name is present`` / ``name is missing``. A multiway split (ID3/C4.5) has one
    line per category, ``name = level``, in the order of the categories.

    Parameters
    ----------
    tree : Tree or fitted estimator
        A :class:`fastdt.Tree`, or any object whose ``tree_`` attribute is one
        (a fitted fastdt estimator).
    feature_names : sequence of str, optional
        One name per feature. Defaults to ``tree.feature_names``, else
        ``feature_0``, ``feature_1``, ...
    class_names : sequence, optional
        One name per class, in the order of ``tree.classes`` (classification only).
        Defaults to ``tree.classes``.
    decimals : int, default=3
        Digits after the decimal point of thresholds, regression values and weights.
    max_depth : int, optional
        Show the splits of nodes at depth ``<= max_depth`` only (the root has depth
        0); a deeper subtree is replaced by ``truncated branch of depth d``, where
        ``d`` counts the levels of the hidden subtree (a lone leaf is still shown).
        Default: the whole tree.
    show_weights : bool, default=False
        Classification: prefix each leaf's class with its weighted class counts,
        ``weights: [w_0, w_1, ...]``. Ignored for regression trees (as in
        scikit-learn).
    show_missing : bool, default=False
        Say where a row missing the split's value goes: ``, or missing`` on the branch
        it takes (after the surrogate splits, listed, for ``missing="surrogate"``), or
        the share of it each branch receives (``missing="fractional"``).

    Returns
    -------
    str
        The rules, one per line, each line ending in a newline.

    Raises
    ------
    TypeError
        If ``tree`` is neither a fastdt Tree nor an object with one in ``tree_``.
    NotFittedError
        If ``tree`` is an estimator that has not been fitted (a ``ValueError``).
    ValueError
        If ``feature_names`` or ``class_names`` has the wrong length, or ``decimals``
        or ``max_depth`` is negative.

    Examples
    --------
    >>> import fastdt
    >>> tree = fastdt.fit([[0.0], [1.0], [2.0], [3.0]], [0, 0, 1, 1])
    >>> print(fastdt.export_text(tree, feature_names=["x"]), end="")
    |--- x <= 1.500
    |   |--- class: 0
    |--- x >  1.500
    |   |--- class: 1
    """
    tree = _tree_of(tree)
    names = _feature_names(tree, feature_names)
    classification = tree.task == "classification"
    labels = _class_names(tree, class_names) if classification else None
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise ValueError(f"decimals must be an int >= 0, got {decimals!r}")
    limit = _check_max_depth(max_depth)
    fmt = f"{{:.{int(decimals)}f}}"

    def number(v):
        return fmt.format(v)

    def leaf_line(node):
        if classification:
            text = f"class: {_shown(_predicted_class(tree, node, labels))}"
            if show_weights:
                w = tree.value[node] * tree.weighted_n_node_samples[node]
                text = f"weights: [{', '.join(number(x) for x in w)}] {text}"
            return text
        return f"value: [{', '.join(number(v) for v in tree.value[node])}]"

    heights = _subtree_heights(tree) if limit is not None else None
    if tree.left[0] == LEAF:  # a single-leaf tree
        return _ARROW + leaf_line(0) + "\n"
    # Stack of (node, level, text of the split line that leads to it); the root is at
    # level 0 and has no such line. Pushing right before left emits left branches first.
    stack = [(0, 0, None)]
    lines = []
    while stack:
        node, level, header = stack.pop()
        if header is not None:
            lines.append(_BRANCH * (level - 1) + _ARROW + header)
        if tree.left[node] == LEAF:
            lines.append(_BRANCH * level + _ARROW + leaf_line(node))
            continue
        if limit is not None and tree.depth[node] > limit:
            lines.append(_BRANCH * level + _ARROW
                         + f"truncated branch of depth {int(heights[node])}")
            continue
        for child, text in _branches(tree, node, names, number, show_missing)[::-1]:
            stack.append((child, level + 1, text))
    return "\n".join(lines) + "\n"


def _tree_of(obj):
    if isinstance(obj, Tree):
        return obj
    inner = getattr(obj, "tree_", None)
    if isinstance(inner, Tree):
        return inner
    if hasattr(obj, "fit") and inner is None:
        raise NotFittedError(
            f"This {type(obj).__name__} instance is not fitted yet; call 'fit' before "
            "exporting it"
        )
    raise TypeError(
        f"expected a fastdt Tree or a fitted fastdt estimator, got {type(obj).__name__}"
    )


def _feature_names(tree, feature_names):
    if feature_names is None:
        if tree.feature_names is not None:
            return [str(n) for n in tree.feature_names]
        return [f"feature_{i}" for i in range(tree.n_features)]
    if isinstance(feature_names, str):
        raise ValueError("feature_names must be a sequence of names, not a single string")
    names = [str(n) for n in feature_names]
    if len(names) != tree.n_features:
        raise ValueError(
            f"feature_names has {len(names)} name(s), but the tree has "
            f"{tree.n_features} feature(s)"
        )
    return names


def _class_names(tree, class_names):
    n_classes = tree.value.shape[1]
    if tree.n_outputs > 1:  # one list of names per output
        if class_names is not None:
            raise ValueError("class_names applies to trees with one output; this tree "
                             f"has {tree.n_outputs} (their classes are named as fitted)")
        return [[str(c) for c in classes] for classes in tree.classes]
    if class_names is None:
        return [str(c) for c in tree.classes]
    if isinstance(class_names, str):
        raise ValueError("class_names must be a sequence of names, not a single string")
    names = [str(c) for c in class_names]
    if len(names) != n_classes:
        raise ValueError(
            f"class_names has {len(names)} name(s), but the tree has {n_classes} class(es)"
        )
    return names


def _check_max_depth(max_depth):
    """``max_depth`` as an int, or None; a ``ValueError`` unless None or an int >= 0."""
    if max_depth is not None and (
        isinstance(max_depth, bool) or not isinstance(max_depth, (int, np.integer))
        or max_depth < 0
    ):
        raise ValueError(f"max_depth must be None or an int >= 0, got {max_depth!r}")
    return None if max_depth is None else int(max_depth)


def _subtree_heights(tree):
    """Levels of the subtree under every node (1 for a leaf). Children have larger ids
    than their parents, so one reverse sweep suffices."""
    left = tree.left
    right = tree.right
    heights = np.ones(left.shape[0], dtype=np.int64)
    for node in np.flatnonzero(left != LEAF)[::-1]:
        heights[node] = 1 + heights[left[node]:right[node] + 1].max()
    return heights


def _is_multiway(tree, node):
    return tree.cat_offset[node] < 0 and tree.n_categories[tree.feature[node]] > 0


def _branches(tree, node, names, number, show_missing=False):
    """``[(child, condition), ...]`` of internal ``node``, in child order: the two of
    :func:`_split_text`, or ``name = level`` for each child of a multiway split."""
    if not _is_multiway(tree, node):
        texts = _split_text(tree, node, names, number, show_missing)
        return [(int(tree.left[node]), texts[0]), (int(tree.right[node]), texts[1])]
    f = int(tree.feature[node])
    w = tree.weighted_n_node_samples
    out = []
    for child, level in _levels(tree, node):
        text = f"{names[f]} = {level}"
        if show_missing and w[node] > 0:
            text += f" (missing: {w[child] / w[node]:.0%})"
        out.append((child, text))
    return out


def _levels(tree, node):
    """``[(child, level), ...]`` of multiway ``node`` (levels as ``str``)."""
    f = int(tree.feature[node])
    levels = tree.categories[f] if tree.categories is not None else None
    first = int(tree.left[node])
    return [(first + c, str(levels[c] if levels else c))
            for c in range(int(tree.right[node]) - first + 1)]


def _split_text(tree, node, names, number, show_missing=False):
    f = int(tree.feature[node])
    name = names[f]
    if tree.cat_offset[node] >= 0:
        levels = tree.categories[f] if tree.categories is not None else None
        codes = _left_categories(tree, node, f)
        if len(codes) == 0 or len(codes) == tree.n_categories[f]:
            # no category goes left (only missing values do), or every one does
            left, right = f"{name} is missing", f"{name} is present"
            if len(codes):
                left, right = right, left
            show_missing = False  # says it already
        else:
            listed = "{" + ", ".join(str(levels[c] if levels else c) for c in codes) + "}"
            left, right = f"{name} in {listed}", f"{name} not in {listed}"
    elif tree.threshold[node] == np.inf:
        left, right = f"{name} is present", f"{name} is missing"
        show_missing = False  # says it already
    else:
        t = number(tree.threshold[node])
        left, right = f"{name} <= {t}", f"{name} >  {t}"
    if show_missing:
        if tree.params.get("missing") == "fractional":
            w = tree.weighted_n_node_samples
            share = w[tree.left[node]] / w[node]
            left += f" (missing: {share:.0%})"
            right += f" (missing: {1 - share:.0%})"
        else:
            s0, s1 = tree.surrogate_ptr[node], tree.surrogate_ptr[node + 1]
            via = ""
            if s1 > s0:
                via = " (after surrogates " + ", ".join(
                    names[int(g)] for g in tree.surrogate_feature[s0:s1]) + ")"
            if tree.missing_go_left[node]:
                left += ", or missing" + via
            else:
                right += ", or missing" + via
    return left, right


def _left_categories(tree, node, f):
    start = int(tree.cat_offset[node])
    out = []
    for code in range(int(tree.n_categories[f])):
        word = int(tree.cat_bitsets[start + (code >> 6)])
        if (word >> (code & 63)) & 1:
            out.append(code)
    return out


def _predicted_class(tree, node, labels):
    """The class a node predicts (a list of one per output with several)."""
    if tree.n_outputs == 1:
        return labels[int(np.argmax(tree.value[node]))]
    off = tree.value_offsets
    return [labels[k][int(np.argmax(tree.value[node, off[k]:off[k + 1]]))]
            for k in range(tree.n_outputs)]


def _shown(v):
    return v if isinstance(v, str) else f"[{', '.join(v)}]"


def _leaf_text(tree, node, labels, number):
    if tree.task == "classification":
        return f"class: {_shown(_predicted_class(tree, node, labels))}"
    if tree.n_outputs > 1:
        return f"value: [{', '.join(number(v) for v in tree.value[node])}]"
    return f"value: {number(tree.value[node, 0])}"


def _node_lines(tree, node, names, labels, number, show_missing, impurity=False):
    """The lines of a node's box (export_graphviz, plot_tree): the left branch's
    condition (internal nodes), the impurity (optional), samples, value and class."""
    parts = []
    if tree.left[node] != LEAF and _is_multiway(tree, node):
        parts.append(f"{names[int(tree.feature[node])]} = ?")
    elif tree.left[node] != LEAF:
        parts.append(_split_text(tree, node, names, number, show_missing)[0])
    if impurity:
        parts.append(f"{tree.criterion or 'impurity'} = {number(tree.impurity[node])}")
    parts.append(f"samples = {int(tree.n_node_samples[node])}")
    value = ", ".join(number(v) for v in tree.value[node])
    parts.append(f"value = [{value}]")
    if tree.task == "classification":  # a regression value is the line above
        parts.append(_leaf_text(tree, node, labels, number).replace(": ", " = "))
    return parts


def _options(tree, feature_names, class_names, decimals):
    tree = _tree_of(tree)
    names = _feature_names(tree, feature_names)
    labels = _class_names(tree, class_names) if tree.task == "classification" else None
    if isinstance(decimals, bool) or not isinstance(decimals, (int, np.integer)) or decimals < 0:
        raise ValueError(f"decimals must be an int >= 0, got {decimals!r}")
    fmt = f"{{:.{int(decimals)}f}}"
    return tree, names, labels, fmt.format


def to_dict(tree, *, feature_names=None, class_names=None):
    """The tree as nested dicts of plain Python values (``json.dumps`` takes it).

    Every node has ``id``, ``samples``, ``weight``, ``impurity`` and ``value`` (class
    fractions, or the mean), plus ``class`` for classification. An internal node adds
    ``feature``, either ``threshold`` (go left iff ``x <= threshold``; ``inf``: every
    present value goes left) or ``categories`` (the levels that go left), ``missing``
    (``"left"``/``"right"``: where a missing value goes; ``"both"`` for a
    ``missing="fractional"`` tree), ``surrogates`` (``[feature, threshold, left_if_le]``
    lists, in order), and ``left``/``right``; a multiway split (ID3/C4.5) has
    ``children`` instead, one per category in order, each with its ``category``. The
    top level also holds the tree's ``task``, ``criterion``, ``classes`` and
    ``feature_names``.
    """
    tree, names, labels, _ = _options(tree, feature_names, class_names, 3)
    fractional = tree.params.get("missing") == "fractional"
    out = {}
    stack = [(0, out)]
    while stack:  # explicit stack: any depth
        node, d = stack.pop()
        d.update({
            "id": int(node), "samples": int(tree.n_node_samples[node]),
            "weight": float(tree.weighted_n_node_samples[node]),
            "impurity": float(tree.impurity[node]),
            "value": [float(v) for v in tree.value[node]],
        })
        if labels is not None:
            d["class"] = _predicted_class(tree, node, labels)
        if tree.left[node] == LEAF:
            continue
        f = int(tree.feature[node])
        d["feature"] = names[f]
        if _is_multiway(tree, node):
            levels = tree.categories[f]
            d["missing"] = "all"
            d["children"] = [{"category": levels[c]} for c in range(len(levels))]
            for c, child in enumerate(d["children"]):
                stack.append((int(tree.left[node]) + c, child))
            continue
        if tree.cat_offset[node] >= 0:
            levels = tree.categories[f] if tree.categories is not None else None
            d["categories"] = [levels[c] if levels else c
                               for c in _left_categories(tree, node, f)]
        else:
            d["threshold"] = float(tree.threshold[node])
        d["missing"] = "both" if fractional else (
            "left" if tree.missing_go_left[node] else "right")
        s0, s1 = tree.surrogate_ptr[node], tree.surrogate_ptr[node + 1]
        d["surrogates"] = [[names[int(tree.surrogate_feature[k])],
                            float(tree.surrogate_threshold[k]),
                            bool(tree.surrogate_left_if_le[k])] for k in range(s0, s1)]
        d["left"], d["right"] = {}, {}
        stack.append((int(tree.right[node]), d["right"]))
        stack.append((int(tree.left[node]), d["left"]))
    return {
        "task": tree.task, "criterion": tree.criterion,
        "classes": (None if tree.classes is None else tree.classes.tolist()
                    if tree.n_outputs == 1 else [c.tolist() for c in tree.classes]),
        "feature_names": names, "tree": out,
    }


def export_graphviz(tree, *, feature_names=None, class_names=None, decimals=3,
                    show_missing=True):
    """The tree in Graphviz DOT (``dot -Tpng``): one box per node with its split (as
    :func:`export_text` words it), samples, value and class; edges to the left child
    are labelled ``True``, to the right ``False``, as scikit-learn's ``export_graphviz``.
    """
    tree, names, labels, number = _options(tree, feature_names, class_names, decimals)
    lines = ["digraph Tree {", 'node [shape=box, fontname="helvetica"] ;',
             'edge [fontname="helvetica"] ;']
    for node in range(tree.node_count):
        parts = _node_lines(tree, node, names, labels, number, show_missing)
        label = "\\n".join(p.replace("\\", "\\\\").replace('"', '\\"') for p in parts)
        lines.append(f'{node} [label="{label}"] ;')
    for node in np.flatnonzero(tree.left != LEAF):
        if _is_multiway(tree, node):  # one edge per category, labelled with it
            for child, level in _levels(tree, node):
                level = level.replace("\\", "\\\\").replace('"', '\\"')
                lines.append(f'{node} -> {child} [label="{level}"] ;')
            continue
        lines.append(f'{node} -> {tree.left[node]} [label="True"] ;')
        lines.append(f'{node} -> {tree.right[node]} [label="False"] ;')
    lines.append("}")
    return "\n".join(lines) + "\n"


def export_mermaid(tree, *, feature_names=None, class_names=None, decimals=3,
                   show_missing=True):
    """The tree as a Mermaid ``flowchart TB``: one node per condition (the left
    branch's condition, as :func:`export_text` words it, with a question mark) and per
    leaf, edges labelled ``yes`` (to the left child) and ``no`` (to the right); a
    multiway split is ``name?`` with one edge per category, labelled with it::

        flowchart TB
            n0{"legs <= 2.000?"}
            n0 -->|yes| n1["class: chicken"]
            n0 -->|no| n2{"eyes <= 2.000?"}
            ...
    """
    tree, names, labels, number = _options(tree, feature_names, class_names, decimals)

    def shape(node):
        if tree.left[node] == LEAF:
            text = _leaf_text(tree, node, labels, number)
            return f'n{node}["{_mermaid_escape(text)}"]'
        if _is_multiway(tree, node):
            text = names[int(tree.feature[node])] + "?"
        else:
            text = _split_text(tree, node, names, number, show_missing)[0] + "?"
        return f'n{node}{{"{_mermaid_escape(text)}"}}'

    lines = ["flowchart TB"]
    if tree.left[0] == LEAF:
        lines.append("    " + shape(0))
    for node in np.flatnonzero(tree.left != LEAF):
        lines.append(f"    {shape(node)}")
        if _is_multiway(tree, node):
            for child, level in _levels(tree, node):
                label = _mermaid_escape(level).replace("|", "#124;")
                lines.append(f'    n{node} -->|"{label}"| n{child}')
            continue
        lines.append(f"    n{node} -->|yes| n{tree.left[node]}")
        lines.append(f"    n{node} -->|no| n{tree.right[node]}")
    for node in np.flatnonzero(tree.left == LEAF):
        if node != 0:
            lines.append(f"    {shape(node)}")
    return "\n".join(lines) + "\n"


def _mermaid_escape(text):
    """Mermaid labels: quotes and angle brackets as entity codes."""
    return (text.replace('"', "#quot;").replace("<", "#lt;").replace(">", "#gt;"))
