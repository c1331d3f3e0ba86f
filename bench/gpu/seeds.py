#!/usr/bin/env python3
"""Means over seeds from run.sh's results file (part hashseeds): per configuration and image, the
engine's and the PyTorch peer's PSNR on the 8-bit image, mean (min-max, n), and the difference of
the means with its standard error (Welch), so that a gap inside the seed spread reads as one. Where
the peer started from the engine's weights and drew its samples (HASH_PAIRED=1), also the mean of
the per-seed differences with its standard error, and how many seeds fell either way. A row per
peer recipe (HASH_PEER_RECIPES: "engine", the engine's own; "issue", issue 13's).

  python3 bench/gpu/seeds.py $OUT/results.txt
"""
import json
import math
import sys
from collections import defaultdict


def tagged_events(path):
    """(tag words, JSON event) for every result line of run.sh's results file, tag the words of
    the '# run TAG' line above it (bench/gpu/recipes.py reads its part the same way)."""
    tag = None
    with open(path) as f:
        for line in f:
            if line.startswith("# run "):
                tag = line[len("# run "):].split()
            elif line.startswith("{") and tag:
                yield tag, json.loads(line)


def summarize(path):
    """(config, image, who) -> {seed: psnr}, who "ours" or the peer's recipe, and the (config, image,
    recipe) triples whose peer runs were paired."""
    runs = defaultdict(dict)
    paired = set()
    for tag, event in tagged_events(path):
        if "hashseeds" not in tag:
            continue
        peer = tag[0] == "peer"
        if peer and "peer" in event:
            recipe = tag[5] if len(tag) > 5 else "engine"
            runs[(tag[2], tag[3], recipe)][event["seed"]] = event["psnr"]
            if event.get("init", "torch") != "torch":
                paired.add((tag[2], tag[3], recipe))
        elif not peer and event.get("event") == "result":
            runs[(tag[1], tag[2], "ours")][int(tag[3])] = event["psnr_8bit"]
    return runs, paired


def stats(values):
    n = len(values)
    mean = sum(values) / n
    var = sum((v - mean) ** 2 for v in values) / (n - 1) if n > 1 else 0.0
    return mean, var, n


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    runs, paired = summarize(sys.argv[1])
    rows = sorted({(c, i, who) for c, i, who in runs if who != "ours"})
    print("| config | image | peer's recipe | ours | peer | ours - peer (s.e.) | paired: mean of ours - peer (s.e.), seeds above / below |")
    print("|---|---|---|---|---|---|---|")
    for config, image, recipe in rows:
        cells, moments = [], []
        for who in ("ours", recipe):
            values = list(runs.get((config, image, who), {}).values())
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
        by_seed = "-"
        ours, peer = runs.get((config, image, "ours"), {}), runs.get((config, image, recipe), {})
        differences = [ours[k] - peer[k] for k in sorted(ours.keys() & peer.keys())]
        if (config, image, recipe) in paired and len(differences) > 1:
            mean, var, n = stats(differences)
            above = sum(d > 0 for d in differences)
            below = sum(d < 0 for d in differences)
            by_seed = f"{mean:+.3f} ({math.sqrt(var / n):.3f}), {above} / {below}"
        print(f"| {config} | {image} | {recipe} | {cells[0]} | {cells[1]} | {diff} | {by_seed} |")


if __name__ == "__main__":
    main()
