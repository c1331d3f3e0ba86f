#!/usr/bin/env python3
"""Late us/step of each run in a bench/gpu/run.sh results file: the GPU time of the last two thirds
of a run's --report-every intervals over their steps (the first third left out: clocks and caches
settle), with the run's PSNR, gradient sums, trainer memory and setup time.
    python3 bench/gpu/late.py RESULTS.txt"""
import sys

import results_file


def runs_in(path):
    """The runs of a results file, as (tag, events) pairs."""
    return results_file.read(path)[1]


def progress_of(events):
    return [e for e in events if e.get("event") == "progress"]


def late_us(events):
    progress = progress_of(events)
    if len(progress) < 3:
        return None
    first = progress[len(progress) // 3]
    last = progress[-1]
    steps = last["step"] - first["step"]
    return 1e6 * (last["gpu_seconds"] - first["gpu_seconds"]) / steps if steps > 0 else None


def main(path):
    print("| run | late us/step | whole us/step | PSNR (8-bit) | local cells | deferred cells | trainer MB | setup s |")
    print("|---|---|---|---|---|---|---|---|")
    for tag, events in runs_in(path):
        result = next((e for e in events if e.get("event") == "result"), None)
        setup = next((e for e in events if e.get("event") == "setup"), {})
        error = next((e for e in events if e.get("event") == "error"), None)
        if result is None:
            print(f"| {tag} | error: {error.get('message', '?') if error else 'no result'} | | | | | | |")
            continue
        late = late_us(events)
        print(f"| {tag} | {'' if late is None else f'{late:.2f}'} | {result['us_per_step_gpu']:.2f} | "
              f"{result['psnr_8bit']:.3f} | {setup.get('local_gradient_cells', '')} | "
              f"{setup.get('deferred_gradient_cells', '')} | {result.get('trainer_device_bytes', 0) / 1e6:.1f} | "
              f"{setup.get('setup_seconds', '')} |")


if __name__ == "__main__":
    main(sys.argv[1])
