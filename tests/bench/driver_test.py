#!/usr/bin/env python3
"""bench/gpu/run.sh, the benchmark's driver: at most six named recipes, each of which, printed
with --dry-run at both sizes, sets no FIELDFLOW_* variable and passes ff-engine-bench only flags
that the built ff-engine-bench accepts (its usage text); an unknown recipe is refused.

    driver_test.py RUN_SH FF_ENGINE_BENCH"""
import re
import shlex
import subprocess
import sys

RECIPES = ["peer", "scaling", "seeds", "large", "gigapixel", "paths"]


def bench_flags(bench):
    usage = subprocess.run([bench, "--help"], capture_output=True, text=True).stderr
    return set(re.findall(r"--[a-z0-9][a-z0-9-]*", usage))


def main(run_sh, bench):
    failures = []
    listed = subprocess.run(["bash", run_sh, "--list"], capture_output=True, text=True, check=True).stdout.split()
    if listed != RECIPES:
        failures.append(f"--list: {listed}, expected {RECIPES}")
    with open(run_sh) as f:
        if "FIELDFLOW_" in f.read():
            failures.append("run.sh names a FIELDFLOW_ variable")
    known = bench_flags(bench)
    if "--image" not in known or "--kernel-path" not in known:
        failures.append(f"ff-engine-bench's usage lists no --image or --kernel-path: {sorted(known)}")
    for size in ([], ["--small"]):
        done = subprocess.run(["bash", run_sh, "--dry-run", *size, *RECIPES], capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"--dry-run {size}: exit {done.returncode}: {done.stderr}")
            continue
        heads = [line[3:] for line in done.stdout.splitlines() if line.startswith("## ")]
        if heads != RECIPES:
            failures.append(f"--dry-run {size}: recipes {heads}")
        runs = 0
        for line in done.stdout.splitlines():
            if "FIELDFLOW_" in line:
                failures.append("sets a FIELDFLOW_ variable: " + line)
            words = shlex.split(re.sub(r"^\[[^]]*\] ", "", line))
            if not words or not words[0].endswith("ff-engine-bench"):
                continue
            runs += 1
            for word in words[1:]:
                if word.startswith("--") and word not in known:
                    failures.append(f"ff-engine-bench has no {word}: {line}")
        if runs < 20:
            failures.append(f"--dry-run {size}: only {runs} ff-engine-bench commands")
    refused = subprocess.run(["bash", run_sh, "ablate8k"], capture_output=True, text=True)
    if refused.returncode != 2 or "unknown recipe" not in refused.stderr:
        failures.append(f"an unknown recipe: exit {refused.returncode}, {refused.stderr!r}")
    if failures:
        print("FAIL:\n" + "\n".join(failures[:20]))
        return 1
    print(f"ok: {len(RECIPES)} recipes, only ff-engine-bench flags it accepts, no FIELDFLOW_ variable")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
