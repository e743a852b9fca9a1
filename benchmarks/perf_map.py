"""Name fastdt's numba kernels in Linux ``perf`` profiles.

``perf record`` samples numba's compiled code at anonymous addresses: numba does not
tell perf where its functions are, so ``perf report`` lists them as hex addresses (or
not at all). :func:`write_perf_map` writes ``/tmp/perf-<pid>.map``, the file in which
perf looks up JIT-compiled code (one line per function: start, size, name), for every
compiled function of fastdt's kernels in the calling process; it can also dump each
function's machine code, to see which instructions the samples fall on.

The kernels must have been compiled in this process: a function loaded from numba's
cache has no LLVM module to list, so profile with an empty ``NUMBA_CACHE_DIR``::

    # probe.py: a small fit (the kernels compile), then
    #     import sys; sys.path.insert(0, "benchmarks"); import perf_map
    #     perf_map.write_perf_map(dump_dir="/tmp/code")
    # then the work to profile
    NUMBA_CACHE_DIR=$(mktemp -d) perf record -F 1999 -o perf.data python probe.py
    perf report -i perf.data --no-children --sort sym       # kernels by name
    perf script -i perf.data -F ip,sym | grep _split_rows | sort | uniq -c | sort -rn
    objdump -D -b binary -m i386:x86-64 --adjust-vma=0x<start> /tmp/code/<start>.bin

A plain module, not an asv benchmark (asv imports this folder; nothing runs on import).
"""

import ctypes
import os
import sys


def _mapped_ranges():
    """``(start, end)`` of this process's memory mappings."""
    ranges = []
    with open("/proc/self/maps") as fh:
        for line in fh:
            lo, hi = line.split()[0].split("-")
            ranges.append((int(lo, 16), int(hi, 16)))
    return ranges


def compiled_functions(prefix="fastdt"):
    """``{address: symbol}`` of every compiled function (callees included) of the numba
    dispatchers found in the modules whose name starts with ``prefix``."""
    from numba.core.registry import CPUDispatcher

    found = {}
    for name, module in list(sys.modules.items()):
        if module is None or not name.startswith(prefix):
            continue
        for obj in list(vars(module).values()):
            if not isinstance(obj, CPUDispatcher):
                continue
            for cres in obj.overloads.values():
                library = cres.library
                try:
                    functions = library._final_module.functions
                except (AttributeError, RuntimeError):  # loaded from the cache
                    continue
                for fn in functions:
                    if fn.is_declaration:
                        continue
                    address = library.get_pointer_to_function(fn.name)
                    if address:
                        found[address] = fn.name
    return found


def write_perf_map(prefix="fastdt", dump_dir=None):
    """Write ``/tmp/perf-<pid>.map`` for the compiled functions of :func:`compiled_functions`
    (each function's size: up to the next function or the end of its mapping) and, with
    ``dump_dir``, each function's machine code as ``<dump_dir>/<start, hex>.bin``.
    Returns the number of functions written."""
    functions = sorted(compiled_functions(prefix).items())
    ranges = _mapped_ranges()
    if dump_dir:
        os.makedirs(dump_dir, exist_ok=True)
    written = 0
    with open(f"/tmp/perf-{os.getpid()}.map", "w") as fh:
        for i, (start, symbol) in enumerate(functions):
            ends = [hi for lo, hi in ranges if lo <= start < hi]
            if not ends:
                continue
            end = ends[0]
            if i + 1 < len(functions):
                end = min(end, functions[i + 1][0])
            # the mangled name, from the module path on (perf shows the start)
            short = symbol[symbol.index(prefix):] if prefix in symbol else symbol
            fh.write(f"{start:x} {end - start:x} {short[:100]}\n")
            written += 1
            if dump_dir and "cpython" not in symbol and "cfunc" not in symbol:
                with open(os.path.join(dump_dir, f"{start:x}.bin"), "wb") as out:
                    out.write(ctypes.string_at(start, end - start))
    return written
