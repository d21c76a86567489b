"""Profiles the overhead case (stub transport, no network) with valgrind's callgrind.

Instruction counts do not depend on what else the machine is doing, so this part of the report
is stable where the timings are not. Two runs of different lengths are profiled and every figure
is their difference divided by the extra requests: the cost of one request, with the process's
start-up (dynamic linking, metadata) and warm-up cancelled out line by line.
"""

import os
import re
import shutil
import subprocess

# A line of callgrind_annotate's function table: "  26,649,034 ( 3.97%)  file:function [object]"
LINE = re.compile(r"^\s*([\d,]+)\s+\(\s*[\d.]+%\)\s+(.*?)(?:\s+\[(.+)\])?\s*$")


def _callgrind(binary, work, count, warmup):
    output = os.path.join(work, f"callgrind.{count}.out")
    subprocess.run(
        ["valgrind", "--tool=callgrind", f"--callgrind-out-file={output}", binary, "overhead",
         "--client", "callback", "--count", str(count), "--warmup", str(warmup)],
        check=True, capture_output=True, text=True, timeout=900)
    return _annotate(output, inclusive=False), _annotate(output, inclusive=True)


def _annotate(output, inclusive):
    """(total, {(file, function, object): cost}) from callgrind_annotate's function table."""
    annotated = subprocess.run(
        ["callgrind_annotate", "--auto=no", f"--inclusive={'yes' if inclusive else 'no'}", "--threshold=100", output],
        check=True, capture_output=True, text=True, timeout=300).stdout
    costs = {}
    total = None
    in_table = False
    for line in annotated.splitlines():
        if line.strip().endswith("file:function"):
            in_table = True
            continue
        match = LINE.match(line)
        if not match:
            continue
        cost = int(match.group(1).replace(",", ""))
        where = match.group(2)
        if where == "PROGRAM TOTALS":
            total = cost
            continue
        if not in_table:
            continue
        file, function = where.split(":", 1) if ":" in where else ("", where)
        # callgrind_annotate sometimes leaves the object out; the source path still says where it is.
        key = (file, function, match.group(3) or _object_from_source(file))
        costs[key] = costs.get(key, 0) + cost
    return total, costs


def _object_from_source(file):
    if "/elf/" in file or "/sysdeps/" in file and "dl-" in file:
        return "ld-linux (from source path)"
    if file.startswith("./"):
        return "libc.so (from source path)"
    if "Sources/Courier/" in file:
        return "Courier (from source path)"
    return "?"


def _demangle(names):
    demangler = shutil.which("swift-demangle")
    if not demangler or not names:
        return names
    result = subprocess.run([demangler, "--simplified"], input="\n".join(names), capture_output=True, text=True)
    lines = result.stdout.splitlines()
    return lines if len(lines) == len(names) else names


def _library(object_path, binary):
    """A short name for where code lives; Courier is linked statically into the benchmark binary."""
    if not object_path or object_path == "?":
        return "unknown"
    if object_path.startswith("Courier") or os.path.realpath(object_path) == os.path.realpath(binary):
        return "Courier + benchmark driver"
    name = os.path.basename(object_path)
    for prefix, label in (("libswiftCore", "Swift runtime and stdlib"), ("libswiftDispatch", "libdispatch"),
                          ("libdispatch", "libdispatch"), ("libBlocksRuntime", "libdispatch"),
                          ("libFoundationNetworking", "FoundationNetworking"),
                          ("libFoundationEssentials", "FoundationEssentials"),
                          ("libFoundation", "Foundation"), ("libc.so", "glibc (malloc, locks)"),
                          ("ld-linux", "dynamic linker")):
        if name.startswith(prefix):
            return label
    return name


def _per_request(short, long, count):
    """Per-request cost of every entry: (long − short) / count, dropping what did not grow."""
    keys = set(short) | set(long)
    return {key: (long.get(key, 0) - short.get(key, 0)) / count for key in keys
            if long.get(key, 0) - short.get(key, 0) > 0}


def _without_debug_info(binary, work):
    """A copy of `binary` without its DWARF: valgrind 3.19 cannot read the debug info Swift 6.3
    writes ("Possibly corrupted debuginfo file ... Giving up"), and needs only the symbol table
    to attribute costs to functions. Courier's functions are then told by their mangled module
    prefix instead of their source file."""
    stripped = os.path.join(work, "Benchmarks-without-debug-info")
    subprocess.run(["strip", "--strip-debug", "-o", stripped, binary], check=True, capture_output=True, timeout=120)
    return stripped


def profile_overhead(binary, work, count):
    """Returns a dict for the report, or one with an "error" when callgrind could not run."""
    warmup = 200
    try:
        binary = _without_debug_info(binary, work)
        (short_total, short_self), (_, short_inclusive) = _callgrind(binary, work, count, warmup)
        (long_total, long_self), (_, long_inclusive) = _callgrind(binary, work, 2 * count, warmup)
    except (subprocess.CalledProcessError, subprocess.TimeoutExpired, OSError) as error:
        return {"error": str(error)}
    if short_total is None or long_total is None:
        return {"error": "callgrind_annotate gave no totals"}
    per_request = (long_total - short_total) / count
    self_costs = _per_request(short_self, long_self, count)
    inclusive_costs = _per_request(short_inclusive, long_inclusive, count)

    libraries = {}
    for (_, _, object_path), cost in self_costs.items():
        library = _library(object_path, binary)
        libraries[library] = libraries.get(library, 0) + cost
    top = sorted(self_costs.items(), key=lambda item: -item[1])[:15]
    names = _demangle([function for (_, function, _), _ in top])

    # Courier's own functions, inclusive (callees counted): where a regression in our code shows.
    # callgrind lists a function once per source file it has code in; keep the largest.
    courier = {}
    for (file, function, _), cost in inclusive_costs.items():
        if "Sources/Courier/" in file or function.startswith("$s7Courier"):
            courier[function] = max(cost, courier.get(function, 0))
    ranked = sorted(courier.items(), key=lambda item: -item[1])[:15]
    courier_names = _demangle([function for function, _ in ranked])
    return {
        "requests": count,
        "instructions_per_request": per_request,
        "libraries": sorted(([name, cost] for name, cost in libraries.items()), key=lambda item: -item[1]),
        "functions": [[name, cost, _library(object_path, binary)]
                      for ((_, _, object_path), cost), name in zip(top, names)],
        "courier_functions": [[name, cost] for (_, cost), name in zip(ranked, courier_names)],
    }
