"""Weka's J48 (C4.5 in Java) as a reference: tables to ARFF, one J48 run, its figures.

Used by ``tests/test_multiway.py`` (parity) and ``compare.py --section multiway``
(speed). Needs ``java`` and Weka's jar (Debian: ``apt-get install weka``, which puts
it at ``/usr/share/java/weka.jar``; ``WEKA_JAR`` overrides); :func:`weka_jar` is None
without them.
"""

import os
import re
import shutil
import subprocess

import numpy as np

_JARS = ("/usr/share/java/weka.jar", "/usr/share/java/weka/weka.jar")


def weka_jar():
    """Path of Weka's jar, or None when Java or Weka is missing."""
    if shutil.which("java") is None:
        return None
    for path in (os.environ.get("WEKA_JAR"), *_JARS):
        if path and os.path.exists(path):
            return path
    return None


def _quote(v):
    return "'" + str(v).replace("\\", "\\\\").replace("'", "\\'") + "'"


def write_arff(path, X, y, classes, levels=None):
    """Write DataFrame ``X`` and labels ``y`` (values of ``classes``) as ARFF.

    Category and bool columns become nominal attributes (their categories, in order,
    or ``levels[name]``), the others numeric; NaN is ``?``. The class is the last
    attribute.
    """
    import pandas as pd

    lines = ["@relation fastdt"]
    cols = []
    for name in X.columns:
        s = X[name]
        if isinstance(s.dtype, pd.CategoricalDtype) or s.dtype == bool:
            lv = list(levels[name]) if levels and name in levels else (
                list(s.cat.categories) if s.dtype != bool else [False, True])
            lines.append(f"@attribute {_quote(name)} {{{','.join(_quote(v) for v in lv)}}}")
            cols.append([None if pd.isna(v) else _quote(v) for v in s.astype(object)])
        else:
            lines.append(f"@attribute {_quote(name)} numeric")
            cols.append([None if np.isnan(v) else repr(float(v))
                         for v in s.to_numpy(dtype=np.float64)])
    lines.append(f"@attribute __target__ {{{','.join(_quote(c) for c in classes)}}}")
    lines.append("@data")
    labels = [_quote(v) for v in y]
    for i in range(len(labels)):
        lines.append(",".join("?" if c[i] is None else c[i] for c in cols) + "," + labels[i])
    with open(path, "w") as fh:
        fh.write("\n".join(lines) + "\n")


def run_j48(train, test, confidence=0.25, min_leaf=2, jar=None, timeout=600):
    """Run J48 (``-C confidence -M min_leaf``) on ARFF files; returns a dict: ``leaves``,
    ``size`` (nodes), ``accuracy`` (on ``test``), ``build_s`` (Weka's own build time,
    without the JVM's start), ``tree`` (its text)."""
    jar = jar or weka_jar()
    cmd = ["java", "-Xmx4g", "-cp", jar, "weka.classifiers.trees.J48",
           "-C", str(confidence), "-M", str(min_leaf), "-t", str(train), "-T", str(test)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, check=True).stdout
    tree = out.split("------------------", 1)[1].split("Number of Leaves", 1)[0].strip()
    test_part = out.split("=== Error on test data ===", 1)[1]
    return {
        "leaves": int(re.search(r"Number of Leaves\s*:\s*(\d+)", out).group(1)),
        "size": int(re.search(r"Size of the tree\s*:\s*(\d+)", out).group(1)),
        "accuracy": float(re.search(r"Correctly Classified Instances\s+\S+\s+([\d.]+)\s*%",
                                    test_part).group(1)) / 100,
        "build_s": float(re.search(r"Time taken to build model:\s*([\d.]+)", out).group(1)),
        "tree": tree,
    }


def top_attributes(tree_text, depth=1):
    """The attributes J48's tree tests at depth < ``depth`` (the root is depth 0), as
    a set of names, from its text (``|   `` per level, ``name = v`` / ``name <= t``)."""
    names = set()
    for line in tree_text.splitlines():
        level = line.count("|   ")
        m = re.match(r"^(?:\|   )*([^=<>:]+?) (?:=|<=|>) ", line)
        if m and level < depth:
            names.add(m.group(1).strip().strip("'"))
    return names
