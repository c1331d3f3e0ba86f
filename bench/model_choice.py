#!/usr/bin/env python3
"""Which model should the main job learn: the dense grid or the hash grid, at equal parameter counts.

For each photo and scale, bench/model_choice.yaml learns (one model a `fieldflow run`, so no two
models train side by side and each one's device time is its own):

  dense default   the lake graph's grid (the photo / 4: its parameter count grows with the photo)
  hash default    `--set encoding=hash` (16 levels x 2 features, 2^12 rows a level)
  dense = hash    a dense grid sized to the hash default's parameter count (the photo's aspect)
  hash near dense the hash table (2^10 .. 2^20 rows) whose count is nearest the dense default's,
                  and a dense grid sized to that count (left out when that table is 2^12)

each stored as fp16 (the lake graph's default) and fp32, rendered and scored against the scaled
photo. One table (table.md, table.csv, table.json under --out) holds every model; the pairs at
equal parameter counts are summarised under it (hash - dense, dB). The table is rewritten after
each photo, so a run cut short leaves what it measured.

  python3 bench/model_choice.py [--small] [--fieldflow PATH] [--photos DIR] [--out DIR]
  python3 bench/model_choice.py --list-photos [--photos DIR]

--small: two photos at 1/8 scale, 10 steps at batch 256, for a CPU driver (lavapipe) or a check
that the benchmark runs; the figures then say nothing about the models. Only the Python standard
library: the GPU machine has no OpenCV for Python (bench/gpu/model_choice.sh runs it there).
"""

import argparse
import csv
import json
import math
import os
import shutil
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
GRAPH = os.path.join(HERE, "model_choice.yaml")
DEBIAN_PHOTOS = "/usr/share/doc/opencv-doc/examples/data"
# Debian's opencv-doc photos: the two the benchmark always uses, then seven of the mosaic samples,
# 493x356 to 1282x1110 (fine texture, flat regions, a face, a building), few enough bytes (0.8 MB)
# that the app bundle with them and the working tree stay within what the GPU machine is sent.
PHOTOS = ["leuvenA.jpg", "graf1.png", "home.jpg", "butterfly.jpg", "messi5.jpg", "fruits.jpg",
          "baboon.jpg", "building.jpg", "aloeL.jpg"]
SMALL_PHOTOS = PHOTOS[:2]

# Train's hash grid besides its table size (kernels/include/fieldflow/engine/engine.hpp,
# HashGridConfig): only to choose the table nearest a dense count; every run's count is read back
# from Train's stats and checked against this.
HASH_LEVELS, HASH_FEATURES, HASH_BASE, HASH_SCALE = 16, 2, 16, 1.2999999523162842  # 1.3f
DEFAULT_LOG2 = 12
LOG2_RANGE = range(10, 21)


def hash_encoding_count(log2_table):
    """Learnable floats of the hash tables: coarse levels that fit the table are dense."""
    table, rows = 1 << log2_table, 0
    for level in range(HASH_LEVELS):
        resolution = math.floor(HASH_BASE * HASH_SCALE ** level)
        rows += min((resolution + 1) ** 2, table)
    return rows * HASH_FEATURES


def fail(message):
    print(f"model_choice: {message}", file=sys.stderr)
    sys.exit(1)


def run_model(args, photo, scale, name, sets, work):
    """One `fieldflow run` of the graph; returns (stats, scores by precision, bytes by precision)."""
    folder = os.path.join(work, name)
    shutil.rmtree(folder, ignore_errors=True)
    command = [args.fieldflow, "run", GRAPH, "--no-cache", "--quiet",
               "--set", f"input={photo}", "--set", f"output={folder}", "--set", f"scale={scale}",
               "--set", f"steps={args.steps}", "--set", f"batch={args.batch}"]
    for key, value in sets.items():
        command += ["--set", f"{key}={value}"]
    print("$ " + " ".join(command), file=sys.stderr, flush=True)
    try:
        done = subprocess.run(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                              timeout=args.run_timeout)
    except subprocess.TimeoutExpired:
        fail(f"{name}: fieldflow ran past {args.run_timeout} s")
    if done.returncode != 0:
        fail(f"{name}: fieldflow exited {done.returncode}:\n{done.stdout[-3000:]}")
    with open(os.path.join(folder, "stats.json")) as f:
        stats = json.load(f)
    with open(os.path.join(folder, "scores.json")) as f:
        scores = {row["image"]: row for row in json.load(f)["images"]}
    sizes = {p: os.path.getsize(os.path.join(folder, f"model_{p}.ffm")) for p in ("fp16", "fp32")}
    for p in ("fp16", "fp32"):  # the model files are measured; only the figures are kept
        os.remove(os.path.join(folder, f"model_{p}.ffm"))
    return stats, scores, sizes


def dense_grid_for(count, mlp_count, channels, width, height):
    """The grid of the photo's aspect whose dense model's count is nearest `count`."""
    cells = max(4.0, (count - mlp_count) / channels)
    best = None
    base_w = math.sqrt(cells * width / height)
    for gw in range(max(2, int(base_w) - 3), int(base_w) + 4):
        for gh in {max(2, math.floor(cells / gw)), max(2, math.ceil(cells / gw))}:
            total = gw * gh * channels + mlp_count
            key = (abs(total - count), abs(gw / gh - width / height))
            if best is None or key < best[0]:
                best = (key, gw, gh)
    return best[1], best[2]


def measure_photo(args, photo, scale, work):
    rows = []
    label = os.path.basename(photo)

    def add(model, pair, sets):
        stats, scores, sizes = run_model(args, photo, scale, f"{label}-{scale}-{len(rows)}", sets, work)
        if stats.get("steps") != args.steps:
            fail(f"{label}: Train ran {stats.get('steps')} steps, not {args.steps} (a CPU budget?)")
        row = {
            "photo": label, "scale": scale,
            "size": f"{stats['image_width']}x{stats['image_height']}",
            "model": model, "pair": pair, "summary": stats["model_summary"],
            "params": stats["parameter_count"],
            "bytes_fp16": sizes["fp16"], "psnr_fp16": scores["fp16"]["psnr"], "ssim_fp16": scores["fp16"]["ssim"],
            "bytes_fp32": sizes["fp32"], "psnr_fp32": scores["fp32"]["psnr"], "ssim_fp32": scores["fp32"]["ssim"],
            "train_device_s": stats["gpu_seconds"], "train_wall_s": stats["train_seconds"],
            "steps": stats["steps"], "batch": stats["batch"], "device": stats["device"],
        }
        rows.append(row)
        return stats

    dense = add("dense default", "", {"encoding": "dense", "grid": "auto"})
    width, height = dense["image_width"], dense["image_height"]
    channels = dense["grid_channels"]
    mlp_count = dense["parameter_count"] - dense["grid_width"] * dense["grid_height"] * channels
    chosen = min(LOG2_RANGE, key=lambda t: abs(hash_encoding_count(t) - dense["parameter_count"]))
    for log2 in [DEFAULT_LOG2] + ([chosen] if chosen != DEFAULT_LOG2 else []):
        pair = f"hash 2^{log2}"
        model = "hash default" if log2 == DEFAULT_LOG2 else "hash near dense"
        hashed = add(model, pair, {"encoding": "hash", "hash_log2": log2})
        expected = hash_encoding_count(log2)
        if hashed["parameter_count"] - expected <= 0 or hashed["parameter_count"] - expected > 100000:
            fail(f"{label}: hash 2^{log2} has {hashed['parameter_count']} parameters, its tables "
                 f"{expected} by this script's rule: Train's hash defaults changed?")
        gw, gh = dense_grid_for(hashed["parameter_count"], mlp_count, channels, width, height)
        add(f"dense = {pair}", pair, {"encoding": "dense", "grid": f"{gw}x{gh}"})
    return rows


COLUMNS = [("photo", "Photo"), ("size", "Size"), ("model", "Model"), ("summary", "Configuration"),
           ("params", "Params"), ("bytes_fp16", "Bytes (fp16)"), ("psnr_fp16", "PSNR fp16 (dB)"),
           ("ssim_fp16", "SSIM fp16"), ("psnr_fp32", "PSNR fp32 (dB)"), ("bytes_fp32", "Bytes (fp32)"),
           ("train_device_s", "Train device (s)"), ("train_wall_s", "Train wall (s)")]


def cell(key, value):
    if isinstance(value, float):
        return f"{value:.4f}" if key.startswith("ssim") else f"{value:.3f}" if key.startswith("train") else f"{value:.2f}"
    if isinstance(value, int) and key in ("params", "bytes_fp16", "bytes_fp32"):
        return f"{value:,}"
    return str(value)


def pairs(rows):
    """(photo, size, pair, dense row, hash row) for each pair at equal parameter counts."""
    found = []
    for r in rows:
        if r["pair"] and r["model"].startswith("hash"):
            match = [d for d in rows if d["photo"] == r["photo"] and d["scale"] == r["scale"]
                     and d["pair"] == r["pair"] and d["model"].startswith("dense")]
            if match:
                found.append((r["photo"], r["size"], r["pair"], match[0], r))
    return found


def write_tables(args, rows, elapsed, complete):
    os.makedirs(args.out, exist_ok=True)
    with open(os.path.join(args.out, "table.json"), "w") as f:
        json.dump({"steps": args.steps, "batch": args.batch, "complete": complete, "rows": rows}, f, indent=1)
    with open(os.path.join(args.out, "table.csv"), "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0].keys()) if rows else ["photo"])
        writer.writeheader()
        writer.writerows(rows)
    device = rows[0]["device"] if rows else "?"
    lines = [f"# Dense grid against hash grid at equal parameter counts", "",
             f"Device: {device}. Train: {args.steps} steps at batch {args.batch}, Train's seed, the lake "
             f"graph's settings otherwise; one model a run. PSNR and SSIM of the model as stored, on 8-bit "
             f"values; bytes: the .ffm file. Took {elapsed:.0f} s"
             + ("." if complete else " (cut short: the photos below are those measured)."), "",
             "| " + " | ".join(title for _, title in COLUMNS) + " |",
             "|" + "|".join("---:" if k not in ("photo", "size", "model", "summary") else "---" for k, _ in COLUMNS) + "|"]
    for r in rows:
        lines.append("| " + " | ".join(cell(k, r[k]) for k, _ in COLUMNS) + " |")
    found = pairs(rows)
    lines += ["", "## Equal parameter counts: hash - dense", "",
              "| Photo | Size | Budget | Params dense / hash | PSNR dense (dB) | PSNR hash (dB) | hash - dense (dB) | Device s dense / hash |",
              "|---|---|---|---:|---:|---:|---:|---:|"]
    wins = 0
    for photo, size, pair, d, h in found:
        delta = h["psnr_fp16"] - d["psnr_fp16"]
        wins += delta > 0
        lines.append(f"| {photo} | {size} | {pair} | {d['params']:,} / {h['params']:,} | {d['psnr_fp16']:.2f} | "
                     f"{h['psnr_fp16']:.2f} | {delta:+.2f} | {d['train_device_s']:.3f} / {h['train_device_s']:.3f} |")
    lines += ["", f"Hash better in {wins} of {len(found)} pairs."]
    with open(os.path.join(args.out, "table.md"), "w") as f:
        f.write("\n".join(lines) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--small", action="store_true", help="two photos at 1/8, 10 steps at batch 256")
    parser.add_argument("--fieldflow", default=os.path.join(HERE, "..", "build", "bin", "fieldflow"))
    parser.add_argument("--photos", default=DEBIAN_PHOTOS, help="folder holding the photos")
    parser.add_argument("--names", help="comma-separated photo file names (default: the benchmark's)")
    parser.add_argument("--scales", help="comma-separated scales of each photo (default 1,0.5)")
    parser.add_argument("--steps", type=int)
    parser.add_argument("--batch", type=int)
    parser.add_argument("--out", default=os.path.join(os.environ.get("OUT", "/tmp"), "model_choice"))
    parser.add_argument("--work", default="/tmp/ff-model-choice", help="the runs' folders (model files deleted)")
    parser.add_argument("--run-timeout", type=int, default=300, help="seconds one run may take")
    parser.add_argument("--list-photos", action="store_true", help="print the photos' paths and stop")
    args = parser.parse_args()
    names = args.names.split(",") if args.names else SMALL_PHOTOS if args.small else PHOTOS
    paths = [os.path.join(args.photos, n) for n in names]
    if args.list_photos:
        print("\n".join(paths))
        return
    missing = [p for p in paths if not os.path.isfile(p)]
    if missing:
        fail("photos not found: " + ", ".join(missing))
    if not os.access(args.fieldflow, os.X_OK):
        fail(f"no fieldflow at {args.fieldflow} (--fieldflow PATH)")
    scales = [float(s) for s in (args.scales or ("0.125" if args.small else "1,0.5")).split(",")]
    args.steps = args.steps or (10 if args.small else 40000)
    args.batch = args.batch or (256 if args.small else 16384)
    if not args.small:  # the GPU's clocks up, its first kernels compiled: not measured
        run_model(args, paths[0], scales[0], "warm-up", {}, args.work)
    start, rows = time.monotonic(), []
    for photo in paths:
        for scale in scales:
            rows += measure_photo(args, photo, scale, args.work)
            write_tables(args, rows, time.monotonic() - start, complete=False)
    write_tables(args, rows, time.monotonic() - start, complete=True)
    print(open(os.path.join(args.out, "table.md")).read())


if __name__ == "__main__":
    main()
