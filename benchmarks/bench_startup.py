"""Start-up cost, each phase on its own (``benchmarks/startup.py`` runs the same phases):
a fresh interpreter with an empty ``NUMBA_CACHE_DIR`` (cold), then another with the cache
it filled (warm). Phases run in order in one process: import, first exact fit, first
predict, first hist fit, first fit of a DataFrame with categories and missing values
(``missing="learn"``, ``"fractional"``, ``"surrogate"``)."""

import os
import tempfile

from .startup import PHASES, run_phases


def _threads():
    env = os.environ.get("FASTDT_BENCH_THREADS", "").strip()
    return int(env) if env and int(env) > 0 else None


class Startup:
    timeout = 1800
    rounds = 1
    repeat = 1
    number = 1
    unit = "seconds"

    def setup_cache(self):
        with tempfile.TemporaryDirectory(prefix="fastdt-asv-startup-") as d:
            cold = run_phases(d, PHASES, _threads())["times"]
            warm = run_phases(d, PHASES, _threads())["times"]
        return {"cold": cold, "warm": warm}

    def track_cold(self, times, phase):
        return times["cold"][phase]

    def track_warm(self, times, phase):
        return times["warm"][phase]

    track_cold.params = track_warm.params = list(PHASES)
    track_cold.param_names = track_warm.param_names = ["phase"]
