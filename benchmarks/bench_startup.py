"""Start-up cost: import, and import + first fit/predict with an empty or filled
numba cache (``NUMBA_CACHE_DIR``), each in a fresh interpreter."""

import os
import tempfile

from .common import startup_times


def _threads():
    env = os.environ.get("FASTDT_BENCH_THREADS", "").strip()
    return int(env) if env and int(env) > 0 else None


class Startup:
    timeout = 900
    rounds = 1
    repeat = 1
    unit = "seconds"

    def track_cold_start(self):
        with tempfile.TemporaryDirectory(prefix="fastdt-numba-cold-") as d:
            return startup_times(d, threads=_threads())["total"]

    def track_warm_start(self):
        with tempfile.TemporaryDirectory(prefix="fastdt-numba-warm-") as d:
            startup_times(d, threads=_threads())
            return startup_times(d, threads=_threads())["total"]

    def track_import_time(self):
        with tempfile.TemporaryDirectory(prefix="fastdt-numba-import-") as d:
            return startup_times(d, fit=False, threads=_threads())["import"]
