#!/usr/bin/env python3
"""bench/gpu/recipes.py on a results file it could be given: each recipe's mean PSNR with its
standard error, and its seed-by-seed difference from the recipe that ran first."""
import json
import sys

from bench_tool import run_on_results, verdict


def main(recipes_py):
    psnr = {"engine": {1: 33.0, 2: 33.5, 3: 33.2}, "final0.1": {1: 33.1, 2: 33.7, 3: 33.2}}
    lines = []
    for recipe, by_seed in psnr.items():
        for seed, value in by_seed.items():
            lines += [f"# run hashrecipe small leuvenA {recipe} {seed}",
                      json.dumps({"event": "progress", "step": 5000}),
                      json.dumps({"event": "result", "psnr_8bit": value})]
    lines += ["# run hashseeds small leuvenA 1", json.dumps({"event": "result", "psnr_8bit": 99.0})]
    out = run_on_results(recipes_py, lines)
    rows = {line.split("|")[3].strip(): line for line in out.splitlines() if line.startswith("| small")}
    failures = []
    # engine: mean 33.233, s.d. 0.252, s.e. 0.145; first, so no difference.
    if "| 33.233 (0.145, 3) | - |" not in rows.get("engine", ""):
        failures.append("engine's row: " + rows.get("engine", "(no row)"))
    # final0.1: mean 33.333, s.d. 0.321, s.e. 0.186; minus engine +0.1, +0.2, 0.0: mean +0.100,
    # s.d. 0.1, s.e. 0.058.
    if "| 33.333 (0.186, 3) | +0.100 (0.058) |" not in rows.get("final0.1", ""):
        failures.append("final0.1's row: " + rows.get("final0.1", "(no row)"))
    if len(rows) != 2:
        failures.append(f"expected the two recipes' rows alone (other parts' runs left out), got {len(rows)}")
    if "minus engine" not in out:
        failures.append("the header does not name the recipe the differences are from")
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
