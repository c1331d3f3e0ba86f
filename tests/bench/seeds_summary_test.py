#!/usr/bin/env python3
"""bench/gpu/seeds.py on a results file it could be given: the unpaired means and their Welch
standard error for every configuration, and the per-seed paired differences only where the peer
started from the engine's weights (its result lines name an init)."""
import json
import sys

from bench_tool import run_on_results, verdict


def main(seeds_py):
    ours = {1: 33.0, 2: 33.5, 3: 33.2}
    peer = {1: 33.1, 2: 33.3, 3: 33.2}
    lines = []
    for seed, psnr in ours.items():
        lines += [f"# run hashseeds small leuvenA {seed}", json.dumps({"event": "result", "psnr_8bit": psnr})]
        lines += [f"# run hashseeds small graf1 {seed}", json.dumps({"event": "result", "psnr_8bit": psnr})]
    lines.append("# run peer hashseeds small leuvenA 1-3")
    lines += [json.dumps({"peer": "pytorch-graph", "seed": s, "psnr": p, "init": f"/tmp/x_s{s}"}) for s, p in peer.items()]
    lines.append("# run peer hashseeds small graf1 1-3")
    lines += [json.dumps({"peer": "pytorch-graph", "seed": s, "psnr": p, "init": "torch"}) for s, p in peer.items()]
    # A second peer recipe (run.sh's HASH_PEER_RECIPES) gets its own row against the same engine runs.
    lines.append("# run peer hashseeds small graf1 1-3 issue")
    lines += [json.dumps({"peer": "pytorch-graph", "seed": s, "psnr": p - 0.5, "init": "torch"}) for s, p in peer.items()]
    out = run_on_results(seeds_py, lines)
    rows = {line.split("|")[2].strip(): line for line in out.splitlines()
            if line.startswith("| small") and "| engine |" in line}
    issue_row = next((line for line in out.splitlines() if "| issue |" in line), "(no row)")
    # ours 33.233 against the issue peer's 32.700: +0.533, Welch s.e. 0.156 as below.
    if "| graf1 | issue |" not in issue_row or "| +0.533 (0.156) | - |" not in issue_row:
        failures_issue = ["the issue recipe's row: " + issue_row]
    else:
        failures_issue = []
    failures = failures_issue
    # Differences -0.1, +0.2, 0.0: mean +0.033, s.d. 0.153, s.e. 0.088; one seed above, one below.
    if "| +0.033 (0.088), 1 / 1 |" not in rows.get("leuvenA", ""):
        failures.append("leuvenA's paired column: " + rows.get("leuvenA", "(no row)"))
    if not rows.get("graf1", "").rstrip().endswith("| - |"):
        failures.append("graf1 was not paired, yet: " + rows.get("graf1", "(no row)"))
    # Unpaired: means 33.233 and 33.200, Welch s.e. sqrt(0.0633/3 + 0.01/3) = 0.156.
    for image in ("leuvenA", "graf1"):
        if "| +0.033 (0.156) |" not in rows.get(image, ""):
            failures.append(f"{image}'s unpaired difference: " + rows.get(image, "(no row)"))
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
