"""numba for fastdt's kernels: the JIT presets, the hygiene of the on-disk cache, the
notice of a first compilation, and the thread count of small inputs.

Only kernel modules (``_*.py`` modules with ``@njit`` code, and ``kernels.py``) import
this module; the public modules import kernel modules inside the functions that run
them, so ``import fastdt`` imports neither numba nor this module.

* **Presets.** Every kernel uses :data:`JIT` (``cache=True, nogil=True``) or
  :data:`PJIT` (the same, ``parallel=True``); :data:`INLINE` is for the few helpers
  called per row or per candidate in a hot loop, :data:`NOREF` (no reference counting)
  for the helpers a kernel calls per node or per feature that take arrays and make
  none. No ``fastmath``: reassociated sums would break parity with scikit-learn.
  ``tests/test_jit_policy.py`` enforces this.
* **Stale code never runs.** numba keys a cached kernel on its own source file only:
  a kernel that calls a kernel of another module keeps the old callee compiled in
  after that module changes. :func:`_drop_stale_caches` keeps a fingerprint of every
  module of the package beside the cache and deletes fastdt's cached kernels when it
  differs, in every directory numba may use for them (``NUMBA_CACHE_DIR``, the
  package's ``__pycache__``, the user-wide cache).
* **Read-only installs.** Without a writable cache location, numba refuses
  ``cache=True``; fastdt then compiles without a cache, with one warning.
* **First compilation.** The first time a process compiles a fastdt kernel (the cache
  had none), one line on stderr says so; ``FASTDT_QUIET=1`` silences it.

Kernels are serial; :mod:`fastdt._parallel` runs them on threads.
"""

import hashlib
import os
import sys
import warnings
from pathlib import Path

import numba
from numba import njit
from numba.core import event

# The package's path as numba sees it: numba names a kernel's cache directory after
# ``os.path.abspath`` of its source file (``numba.core.caching``), symbolic links kept,
# so a package imported through a link has its cache under the link's name.
PACKAGE = Path(os.path.abspath(__file__)).parent

# ----------------------------------------------------------------------- stale caches

_STAMP = "fastdt-kernels.sha1"


def fingerprint(package=PACKAGE):
    """SHA-1 of the path and contents of every module of the package (kernels and the
    modules their constants come from)."""
    digest = hashlib.sha1()
    for src in sorted(package.rglob("*.py")):
        digest.update(src.relative_to(package).as_posix().encode())
        digest.update(src.read_bytes())
    return digest.hexdigest()


def cache_dirs(package=PACKAGE):
    """Where numba may keep cached kernels of ``package``: per folder of kernel modules,
    ``NUMBA_CACHE_DIR``'s subdirectory for it (when set), its ``__pycache__`` and the
    user-wide cache's subdirectory, from numba's own cache locators
    (``numba.core.caching``), in numba's order. Returns ``(path, used)`` pairs: ``used``
    marks the one numba writes to (the first it can use; numba's check creates it).
    """
    from numba.core import caching

    kinds = ["InTreeCacheLocator", "UserWideCacheLocator"]
    if numba.config.CACHE_DIR:
        kinds.insert(0, "UserProvidedCacheLocator")
    out = []
    # the folders whose modules define kernels (a subpackage that only composes them,
    # such as ensemble/, has no cache of its own)
    with_kernels = {p.parent for p in package.rglob("*.py") if "_jit import" in p.read_text()}
    for folder in sorted(with_kernels):
        src = str(folder / "__init__.py")
        chosen = None
        for kind in kinds:
            cls = getattr(caching, kind, None) or getattr(caching, "_" + kind)
            path = Path(cls(fingerprint, src).get_cache_path())
            if chosen is None and cls.from_function(fingerprint, src) is not None:
                chosen = path
            out.append((path, path == chosen))
    return out


def _drop_stale_caches(package=PACKAGE):
    """Delete fastdt's cached kernels wherever the package's fingerprint changed, and
    stamp the directory numba writes to with the current one."""
    stamp = fingerprint(package)
    for d, used in cache_dirs(package):
        try:
            mark = d / _STAMP
            if mark.is_file() and mark.read_text() == stamp:
                continue
            if not d.is_dir():
                continue
            for cached in [*d.glob("*.nbi"), *d.glob("*.nbc")]:
                cached.unlink()
            if used or mark.is_file():
                mark.write_text(stamp)
        except OSError:  # read-only: numba cannot write there either
            pass


_drop_stale_caches()

# ----------------------------------------------------------------------- presets


def _cache_works():
    """Whether numba finds a writable place for a cache of this package's kernels."""
    def probe():
        pass

    probe.__module__ = __name__
    try:
        njit(cache=True)(probe)
    except RuntimeError:  # "cannot cache function ...: no locator available"
        warnings.warn(
            "fastdt: numba finds no writable place for its cache (the package "
            "directory, NUMBA_CACHE_DIR and the user cache directory are read-only), so "
            "fastdt's kernels are compiled again in every process. Set NUMBA_CACHE_DIR "
            "to a writable directory to keep them.", RuntimeWarning, stacklevel=2)
        return False
    return True


CACHE = _cache_works()
# cache: compile once per machine; nogil: callable from threads.
JIT_OPTIONS = dict(cache=CACHE, nogil=True)
PJIT_OPTIONS = dict(cache=CACHE, nogil=True, parallel=True)
JIT = njit(**JIT_OPTIONS)
PJIT = njit(**PJIT_OPTIONS)
# Small helpers called per candidate or per row in the hot loops: inlined into the
# caller's numba IR (an ordinary call passes arrays with reference counting, which
# doubled the exact scan's time). Each call site types and lowers the body again, so
# only hot loops use it.
INLINE_OPTIONS = dict(inline="always", **JIT_OPTIONS)
INLINE = njit(**INLINE_OPTIONS)
# Helpers that take arrays and allocate none, called per node or per feature by a
# kernel: compiled without numba's reference counting. With it, a call increfs every
# array argument on entry and decrefs it on exit (two calls of an atomic add each), which
# took 11% of an exact random forest's fit (perf, Adult). Such a helper may not create an
# array, nor call a function that does (numba compiles the functions it calls without
# reference counting too, and refuses the allocation), and is never called from Python.
NOREF_OPTIONS = dict(_nrt=False, **JIT_OPTIONS)
NOREF = njit(**NOREF_OPTIONS)

# ----------------------------------------------------------------------- first compile

NOTICE = (
    "fastdt: compiling numba kernels for this kind of fit or prediction (first use in "
    "this environment; typically 5-15 s). They are cached on disk, so later runs start "
    "at once; `python -m fastdt warmup` compiles them all ahead of time. Set "
    "FASTDT_QUIET=1 to silence this note."
)


class _FirstCompile(event.Listener):
    """Prints :data:`NOTICE` once, when a fastdt kernel is compiled (numba fires
    ``numba:compile`` only when the cache has no such kernel)."""

    shown = False

    def on_start(self, ev):
        if self.shown:
            return
        module = getattr(ev.data["dispatcher"].py_func, "__module__", "") or ""
        if module.startswith("fastdt."):
            type(self).shown = True
            if os.environ.get("FASTDT_QUIET", "") in ("", "0"):
                print(NOTICE, file=sys.stderr, flush=True)

    def on_end(self, ev):
        pass


event.register("numba:compile", _FirstCompile())
