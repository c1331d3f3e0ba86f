#!/usr/bin/env python3
"""Means over seeds of run.sh's part hashrecipes: per configuration and image, each training
recipe's PSNR on the 8-bit image, mean (standard error, n), and its difference from the first
recipe's, paired seed by seed (the same seed draws the same initial weights and samples in every
recipe).

  python3 bench/gpu/recipes.py $OUT/results.txt
"""
import math
import sys
from collections import defaultdict

from seeds import stats, tagged_events


def read(path):
    """(config, image) -> recipe -> {seed: psnr}, recipes in the order they ran."""
    runs = defaultdict(lambda: defaultdict(dict))
    order = []
    for tag, event in tagged_events(path):
        if tag[0] == "hashrecipe" and event.get("event") == "result":
            _, config, image, recipe, seed = tag
            runs[(config, image)][recipe][int(seed)] = event["psnr_8bit"]
            if recipe not in order:
                order.append(recipe)
    return runs, order


def mean_se(values):
    mean, var, n = stats(values)
    return mean, math.sqrt(var / n), n


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    runs, order = read(sys.argv[1])
    print("| config | image | recipe | PSNR (s.e., n) | minus " + (order[0] if order else "-") + ", paired (s.e.) |")
    print("|---|---|---|---|---|")
    for (config, image), by_recipe in sorted(runs.items()):
        base = by_recipe.get(order[0], {})
        for recipe in order:
            seeds = by_recipe.get(recipe, {})
            if not seeds:
                continue
            mean, se, n = mean_se(list(seeds.values()))
            diffs = [seeds[k] - base[k] for k in sorted(seeds.keys() & base.keys())]
            paired = "-"
            if recipe != order[0] and len(diffs) > 1:
                d, dse, _ = mean_se(diffs)
                paired = f"{d:+.3f} ({dse:.3f})"
            print(f"| {config} | {image} | {recipe} | {mean:.3f} ({se:.3f}, {n}) | {paired} |")


if __name__ == "__main__":
    main()
