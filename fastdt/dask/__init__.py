"""fastdt on a Dask cluster: histogram trees fitted where the partitions live.

``pip install 'fastdt[dask]'``, then, with a ``distributed.Client`` running::

    import fastdt.dask
    tree = fastdt.dask.fit(ddf[features], ddf["label"], max_depth=8)
    pred = fastdt.dask.predict(tree, ddf[features])   # a dask collection

The design is Spark MLlib's level-wise one (PLANET) on Dask's own primitives (tasks on
persisted partitions, tree reductions; no sockets, no tracker): the partitions are
binned once (:mod:`fastdt.dask._partitions`); per round of splits each partition builds
the histograms of the new nodes with the same kernels as one machine, the histograms
are summed, the driver chooses the splits (:mod:`fastdt.dask._splitter`) and only
those travel back. The result is an ordinary :class:`fastdt.Tree`. See docs/dask.md.
"""

from .api import fit, fit_forest, predict, predict_proba
from .boosting import fit_boosting

__all__ = ["fit", "fit_forest", "fit_boosting", "predict", "predict_proba"]
