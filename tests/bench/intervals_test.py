#!/usr/bin/env python3
"""bench/gpu/intervals.py on a results file it could be given: one row a run, the GPU us/step of
each progress interval in order; a run without progress lines has no row."""
import json
import sys

from bench_tool import run_on_results, verdict


def main(intervals_py):
    lines = ["# run grow8k m8192 default"]
    # Intervals of 100 steps taking 3, 3.5 and 6 ms: a step growing dearer through the run.
    gpu = 0.0
    for i, ms in enumerate([0, 3, 3.5, 6]):
        gpu += ms / 1000
        lines.append(json.dumps({"event": "progress", "step": 100 * i, "gpu_seconds": gpu}))
    lines += ["# run grow8k m8192 sparse", json.dumps({"event": "error", "message": "out of memory"})]
    out = run_on_results(intervals_py, lines)
    rows = [line for line in out.splitlines() if line.startswith("| grow8k")]
    failures = []
    if rows != ["| grow8k m8192 default | 30.0, 35.0, 60.0 |"]:
        failures.append("rows: " + repr(rows))
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
