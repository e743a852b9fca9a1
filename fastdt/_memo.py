"""Preparations kept for refits on the same data (cross-validation, grid searches).

A grid search fits every setting on the same folds: ``GridSearchCV`` over 18 settings
and 5 folds prepares each fold 18 times. An exact fit's preparation (its labels coded,
its few-valued integer features coded and the others presorted,
:func:`fastdt._engine.prepare`) depends on the data alone, and on Adult it is about a
third of a fit of depth 8 (3.4 of about 9 ms). So fastdt keeps the last preparations of
small data and gives a fit on the same data a copy of them, the same arrays, bit for
bit, as a new preparation:

* data is known by its content: a fit's X and class codes are compared in full, byte for
  byte, with the copies kept of them (not by a hash); labels in an object array
  (strings) by their objects, the same objects as the kept entry's (which holds them, so
  that no other object can take their addresses);
* data is kept from the second time it is seen (the first time only its fingerprint, a
  few of its values): a single fit pays nothing but the fingerprint;
* only data of at most :data:`MAX_VALUES` values is kept, at most :data:`MAX_BYTES` in
  all (copies of the data included), the least recently used dropped first;
* what :func:`recall` returns is a copy, the caller's own to rearrange (the growth
  partitions its layout in place).

``fastdt.set_prepare_cache(0)`` turns this off and frees what is kept.
"""

import threading

import numpy as np

#: The most bytes kept in all (the kept copies of the data and the preparations).
MAX_BYTES = 64 * 2**20
#: Data of more values than this (X's rows times features) is not kept: a larger fit's
#: preparation is a small part of it.
MAX_VALUES = 1 << 21
#: Fingerprints of data seen once, kept to know it the second time.
_SEEN = 32
#: Values of each array read for its fingerprint.
_PROBES = 64

_lock = threading.Lock()
_entries = []  # most recent first: [kind, keys, value, nbytes]
_seen = []  # most recent first: fingerprints
_limit = [MAX_BYTES]


def set_prepare_cache(max_bytes):
    """Set the most bytes that fastdt keeps of recent preparations, for refits on the same
    data (cross-validation folds, grid searches; see :mod:`fastdt._memo`), and return the
    previous setting. ``0`` turns the cache off and frees what it holds. The default is
    64 MiB; data of more than about 2 million values is never kept."""
    if isinstance(max_bytes, bool) or not isinstance(max_bytes, (int, np.integer)) \
            or max_bytes < 0:
        raise ValueError(f"max_bytes must be an int >= 0, got {max_bytes!r}")
    with _lock:
        previous = _limit[0]
        _limit[0] = int(max_bytes)
        _fit_in(_limit[0])
        if not _limit[0]:
            _seen.clear()
    return previous


def kept_bytes():
    """Bytes held now by the kept preparations."""
    with _lock:
        return sum(e[3] for e in _entries)


def recall(kind, keys):
    """A copy of the value kept for ``keys`` (a tuple of arrays) under ``kind`` (a
    string), or None."""
    if not _usable(keys):
        return None
    with _lock:
        for pos, entry in enumerate(_entries):
            if entry[0] == kind and all(_same(a, b) for a, b in zip(keys, entry[1])):
                _entries.insert(0, _entries.pop(pos))
                return _copy(entry[2])
    return None


def keep(kind, keys, value):
    """Keep ``value`` (arrays, in tuples, or None; copied) for ``keys`` under ``kind``,
    when the same data was seen before (else its fingerprint only) and fits the limits.
    Call it before the caller changes ``value``."""
    if not _usable(keys):
        return
    mark = (kind,) + tuple(_fingerprint(a) for a in keys)
    with _lock:
        if not _limit[0]:
            return
        if mark not in _seen:
            _seen.insert(0, mark)
            del _seen[_SEEN:]
            return
        kept = tuple(_key_copy(a) for a in keys)
        stored = _copy(value)
        nbytes = sum(_nbytes(a) for a in kept) + _nbytes(stored)
        if nbytes > _limit[0]:
            return
        _entries.insert(0, [kind, kept, stored, nbytes])
        _fit_in(_limit[0])


def _fit_in(limit):
    """Drop the least recently used entries until the rest take at most ``limit``."""
    total = sum(e[3] for e in _entries)
    while _entries and total > limit:
        total -= _entries.pop()[3]


def _usable(keys):
    """Arrays small enough and laid out to be compared as they are (C order; plain
    dtypes, or plain object arrays)."""
    return (_limit[0] > 0
            and all(isinstance(a, np.ndarray) and a.flags.c_contiguous
                    and (a.dtype == object or not a.dtype.hasobject) for a in keys)
            and sum(a.size for a in keys) <= MAX_VALUES)


def _words(a):
    """``a``'s bytes as unsigned integers (an object array: its objects' addresses),
    a view: valid while ``a`` lives."""
    flat = a.reshape(-1)
    if a.dtype.hasobject:
        if not flat.shape[0]:
            return np.zeros(0, dtype=np.uintp)
        import ctypes  # here: 2.4 ms of import fastdt otherwise

        return np.ctypeslib.as_array((ctypes.c_size_t * flat.shape[0]).from_address(
            flat.ctypes.data))
    if a.dtype.itemsize in (1, 2, 4, 8):
        return flat.view(f"u{a.dtype.itemsize}")
    return flat.view(np.uint8)


def _same(a, b):
    """Whether ``a`` has the dtype, the shape and the bytes of the kept ``b`` (an object
    array: the same objects)."""
    if a.dtype != b[0].dtype or a.shape != b[0].shape:
        return False
    return np.array_equal(_words(a), b[1])


def _key_copy(a):
    """What a kept key holds: a copy of the array (of an object array, its objects'
    references, which keep them alive) and its words."""
    c = a.copy()
    return c, (_words(c).copy() if c.dtype.hasobject else _words(c))


def _fingerprint(a):
    """The dtype, shape and a few evenly spaced values (as words) of ``a``."""
    w = _words(a)
    step = max(1, w.shape[0] // _PROBES)
    return a.dtype.str, a.shape, w[::step].tobytes(), w[-1:].tobytes()


def _copy(value):
    if isinstance(value, np.ndarray):
        return value.copy()
    if isinstance(value, tuple):
        return tuple(_copy(v) for v in value)
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    raise TypeError(f"cannot keep a {type(value).__name__}")


def _nbytes(value):
    if isinstance(value, np.ndarray):
        return value.nbytes
    if isinstance(value, tuple):
        return sum(_nbytes(v) for v in value)
    return 0
