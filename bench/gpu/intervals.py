#!/usr/bin/env python3
"""GPU us/step in each --report-every interval of every run in a bench/gpu/run.sh results file: how
a step's cost moves through a run (late.py gives one figure for the last two thirds).
    python3 bench/gpu/intervals.py RESULTS.txt"""
import sys

from late import progress_of, runs_in


def intervals(events):
    progress = progress_of(events)
    out = []
    for a, b in zip(progress, progress[1:]):
        steps = b["step"] - a["step"]
        if steps > 0:
            out.append(1e6 * (b["gpu_seconds"] - a["gpu_seconds"]) / steps)
    return out


def main(path):
    print("| run | us/step in each interval (GPU) |")
    print("|---|---|")
    for tag, events in runs_in(path):
        values = intervals(events)
        if values:
            print(f"| {tag} | {', '.join(f'{v:.1f}' for v in values)} |")


if __name__ == "__main__":
    main(sys.argv[1])
