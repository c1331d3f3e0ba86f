#!/usr/bin/env python3
"""Quality over seeds from bench/gpu/run.sh's results file (recipe seeds): per model and image, the
engine's PSNR on the 8-bit image, mean (min-max, n), the PyTorch peer's where it ran, and the
difference of the means with its standard error (Welch), so that a gap inside the seed spread
reads as one.

    python3 bench/gpu/seeds.py RESULTS.txt
"""
import math
import sys
from collections import defaultdict

import results_file


def tagged_events(path):
    """(tag words, JSON event) for every JSON line of the results file."""
    for tag, events in results_file.read(path)[1]:
        for event in events:
            yield tag.split(), event


def summarize(path):
    """(model, image) -> {"ours": {seed: psnr}, "peer": {seed: psnr}}, in the order they ran."""
    runs = defaultdict(lambda: {"ours": {}, "peer": {}})
    for tag, event in tagged_events(path):
        if tag[:2] == ["peer", "seeds"] and "peer" in event:
            runs[(tag[2], tag[3])]["peer"][event["seed"]] = event["psnr"]
        elif tag[0] == "seeds" and event.get("event") == "result":
            runs[(tag[1], tag[2])]["ours"][int(tag[3])] = event["psnr_8bit"]
    return runs


def stats(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, var, n


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    print("| model | image | ours, PSNR (min-max, n) | peer | ours - peer (s.e.) |")
    print("|---|---|---|---|---|")
    for (model, image), by_who in summarize(sys.argv[1]).items():
        cells, moments = [], []
        for who in ("ours", "peer"):
            values = list(by_who[who].values())
            if not values:
                cells.append("-")
                continue
            mean, var, n = stats(values)
            moments.append((mean, var, n))
            cells.append(f"{mean:.3f} ({min(values):.2f}-{max(values):.2f}, n={n})")
        diff = "-"
        if len(moments) == 2:
            (m1, v1, n1), (m2, v2, n2) = moments
            diff = f"{m1 - m2:+.3f} ({math.sqrt(v1 / n1 + v2 / n2):.3f})"
        print(f"| {model} | {image} | {cells[0]} | {cells[1]} | {diff} |")


if __name__ == "__main__":
    main()
