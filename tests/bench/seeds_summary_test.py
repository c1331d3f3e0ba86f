#!/usr/bin/env python3
"""bench/gpu/seeds.py on a results file it could be given: per model and image the engine's mean
over seeds, the peer's where it ran, and the difference with its Welch standard error; a model
without a peer run has no difference, and other recipes' runs are left out."""
import json
import sys

from bench_tool import run_on_results, verdict


def main(seeds_py):
    ours = {1: 33.0, 2: 33.5, 3: 33.2}
    peer = {1: 33.1, 2: 33.3, 3: 33.2}
    lines = []
    for seed, psnr in ours.items():
        lines += [f"# run seeds hash-small leuvenA {seed}", json.dumps({"event": "result", "psnr_8bit": psnr})]
        lines += [f"# run seeds lake graf1 {seed}", json.dumps({"event": "result", "psnr_8bit": psnr - 1})]
    lines.append("# run peer seeds hash-small leuvenA 1-3")
    lines += [json.dumps({"peer": "pytorch-graph", "seed": s, "psnr": p}) for s, p in peer.items()]
    lines += ["# run large leuvenA", json.dumps({"event": "result", "psnr_8bit": 99.0})]
    out = run_on_results(seeds_py, lines)
    rows = {tuple(c.strip() for c in line.split("|")[1:3]): line for line in out.splitlines()
            if line.startswith("| ") and not line.startswith("| model")}
    failures = []
    # Means 33.233 and 33.200, Welch s.e. sqrt(0.0633/3 + 0.01/3) = 0.156.
    hash_row = rows.get(("hash-small", "leuvenA"), "(no row)")
    if "| 33.233 (33.00-33.50, n=3) | 33.200 (33.10-33.30, n=3) | +0.033 (0.156) |" not in hash_row:
        failures.append("hash-small leuvenA: " + hash_row)
    lake_row = rows.get(("lake", "graf1"), "(no row)")
    if "| 32.233 (32.00-32.50, n=3) | - | - |" not in lake_row:
        failures.append("lake graf1 (no peer): " + lake_row)
    if len(rows) != 2:
        failures.append(f"expected two rows (the large recipe's run left out), got {len(rows)}")
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
