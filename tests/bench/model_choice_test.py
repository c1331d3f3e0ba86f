#!/usr/bin/env python3
"""bench/model_choice.py, dense against hash at equal parameter counts, driven against a stand-in
fieldflow (no training: it writes the files bench/model_choice.yaml writes, with Train's parameter
counts for the configuration it is given): each hash model gets a dense partner within 0.1% of its
parameters, the table's rows and differences are the stand-in's scores, a failing run stops the
benchmark with its message and exit 1.

    model_choice_test.py MODEL_CHOICE_PY"""
import json
import os
import subprocess
import sys
import tempfile

# The stand-in: the dense model's MLP (3 grid channels + 2 sub-cell inputs, 32x2) and the hash
# model's (32 inputs, 32x2) as Train counts them; PSNR a function of the configuration, so the
# table's differences are known here.
FAKE = r'''#!/usr/bin/env python3
import json, math, os, sys
sets = dict(a.split("=", 1) for a in sys.argv if "=" in a and not a.startswith("-"))
sys.path.insert(0, os.path.dirname(sys.argv[0]))
if "fail.jpg" in sets["input"]:
    print("error: photo is broken"); sys.exit(1)
w, h = round(1600 * float(sets["scale"])), round(1200 * float(sets["scale"]))
out = sets["output"]; os.makedirs(out)
if sets.get("encoding", "dense") == "hash":
    import model_choice
    t = int(sets.get("hash_log2", 12))
    params, psnr, summary = model_choice.hash_encoding_count(t) + 2211, 30.0 + t / 10, f"hash 2^{t}"
    gw = gh = 0
else:
    grid = sets.get("grid", "auto")
    gw, gh = (w // 4, h // 4) if grid == "auto" else map(int, grid.split("x"))
    params, psnr, summary = gw * gh * 3 + 1603, 28.0, f"{gw}x{gh}x3 grid"
stats = {"steps": int(sets["steps"]), "batch": int(sets["batch"]), "image_width": w, "image_height": h,
         "parameter_count": params, "grid_width": gw, "grid_height": gh, "grid_channels": 3,
         "model_summary": summary, "gpu_seconds": 0.5, "train_seconds": 0.6, "device": "stand-in"}
json.dump(stats, open(f"{out}/stats.json", "w"))
json.dump({"images": [{"image": "fp16", "psnr": psnr, "ssim": 0.9}, {"image": "fp32", "psnr": psnr + 0.01, "ssim": 0.9}]},
          open(f"{out}/scores.json", "w"))
for p, n in (("fp16", 2), ("fp32", 4)):
    open(f"{out}/model_{p}.ffm", "wb").write(b"x" * (params * n))
'''


def main(script):
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        fake = os.path.join(tmp, "fieldflow")
        with open(fake, "w") as f:
            f.write(FAKE)
        os.chmod(fake, 0o755)
        os.symlink(os.path.abspath(script), os.path.join(tmp, "model_choice.py"))
        photos = os.path.join(tmp, "photos")
        os.makedirs(photos)
        for name in ("a.jpg", "fail.jpg"):
            open(os.path.join(photos, name), "wb").close()
        out = os.path.join(tmp, "out")
        common = [sys.executable, script, "--fieldflow", fake, "--photos", photos, "--out", out,
                  "--work", os.path.join(tmp, "work"), "--steps", "7", "--batch", "64"]
        done = subprocess.run(common + ["--names", "a.jpg", "--scales", "1,0.5"], capture_output=True, text=True)
        if done.returncode != 0:
            failures.append(f"exit {done.returncode}: {done.stderr[-2000:]}")
        else:
            table = json.load(open(os.path.join(out, "table.json")))
            rows = table["rows"]
            # 1600x1200: dense 400x300 (361,603 parameters), nearest table 2^14: 5 models; 800x600:
            # 200x150 (91,603), nearest 2^12, the hash default's: 3 models.
            if len(rows) != 8 or not table["complete"]:
                failures.append(f"{len(rows)} rows (complete {table['complete']}), expected 8")
            for row in rows:
                if row["steps"] != 7 or row["bytes_fp16"] != 2 * row["params"]:
                    failures.append(f"row not read from its run: {row}")
                if row["model"].startswith("dense = "):
                    partner = [r for r in rows if r["scale"] == row["scale"] and r["pair"] == row["pair"]
                               and r["model"].startswith("hash")][0]
                    if abs(row["params"] - partner["params"]) > 0.001 * partner["params"]:
                        failures.append(f"{row['summary']}: {row['params']} parameters against {partner['params']}")
            pairs = sorted(r["pair"] for r in rows if r["model"].startswith("hash"))
            if pairs != ["hash 2^12", "hash 2^12", "hash 2^14"]:
                failures.append(f"hash models: {pairs}")
            md = open(os.path.join(out, "table.md")).read()
            if "| 1600x1200 | hash 2^14 |" not in md or "| +3.40 |" not in md or "Hash better in 3 of 3 pairs." not in md:
                failures.append("table.md's pairs:\n" + md)
        bad = subprocess.run(common + ["--names", "fail.jpg"], capture_output=True, text=True)
        if bad.returncode != 1 or "photo is broken" not in bad.stderr:
            failures.append(f"a failing run: exit {bad.returncode}, {bad.stderr[-500:]!r}")
        missing = subprocess.run(common + ["--names", "none.jpg"], capture_output=True, text=True)
        if missing.returncode != 1 or "photos not found" not in missing.stderr:
            failures.append(f"a missing photo: exit {missing.returncode}, {missing.stderr[-500:]!r}")
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print("ok: equal-parameter pairs, the table from the runs, failures stop the benchmark")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
