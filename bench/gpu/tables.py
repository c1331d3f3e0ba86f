#!/usr/bin/env python3
"""Prints the tables (markdown) of bench/gpu/run.sh's recipes peer, scaling, paths and large's
jobs from its results file; each table only where its runs are there.

The file holds '# run TAG' lines, each followed by the JSON lines of that run (ff-engine-bench
events, the PyTorch peer's lines, bench/gpu/timed_job.py's `job` line). Totals for 40,000 steps are
measured where the run trained 40,000 steps and extrapolated from us/step otherwise (marked '~').

    python3 bench/gpu/tables.py RESULTS.txt
"""
import sys

import results_file

STEPS = 40000


def load(path):
    meta, runs = results_file.read(path)
    return dict(runs), meta


def event(lines, name):
    for j in lines:
        if j.get("event") == name:
            return j
    return None


def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def peer_table(runs):
    print("| implementation | image | us/step | 40k steps (s) | PSNR (dB) | render (us) | time against ours |")
    print("|---|---|---|---|---|---|---|")
    for img in ("leuvenA", "graf1"):
        ours = event(runs.get(f"ours {img} default", []), "result")
        base_total = ours["train_seconds"] * STEPS / ours["steps"] if ours else None
        rows = []
        for path in ("default", "portable"):
            r = event(runs.get(f"ours {img} {path}", []), "result")
            if not r:
                continue
            total = r["train_seconds"] * STEPS / r["steps"]
            rows.append((f"fieldflow {r['kernel_path']} (tile {r['tile']})", r["us_per_step_wall"], total,
                         r["psnr_8bit"], r["render_gpu_us"], r["steps"] != STEPS, path == "default"))
        for j in runs.get(f"peer {img}", []):
            if "peer" not in j:
                continue
            total = j["us_per_step"] * STEPS / 1e6
            psnr = j["psnr"] if j["steps"] == STEPS else None
            rows.append((j["peer"], j["us_per_step"], total, psnr, j["render_us"], j["steps"] != STEPS, False))
        for name, us, total, psnr, render, extrapolated, is_base in rows:
            ratio = "—" if is_base or base_total is None else f"{total / base_total:.1f}x"
            print(f"| {name} | {img} | {fmt(us, '.1f')} | {'~' if extrapolated else ''}{fmt(total, '.2f')} | "
                  f"{fmt(psnr, '.2f')} | {fmt(render, '.1f')} | {ratio} |")
    print("\nGPU time per dispatch (timestamps, a barrier after each; us):\n")
    print("| run | train_step | optimizer | step | us/step in the run (GPU) |")
    print("|---|---|---|---|---|")
    for tag, lines in runs.items():
        p, r = event(lines, "profile"), event(lines, "result")
        if tag.startswith("ours ") and p and r:
            print(f"| {tag[5:]} ({r['kernel_path']}) | {fmt(p.get('train_step_us'), '.1f')} | "
                  f"{fmt(p.get('optimizer_us'), '.1f')} | {fmt(p.get('step_us'), '.1f')} | {r['us_per_step_gpu']:.1f} |")


def paths_table(runs):
    print("| model | image | forward max abs diff (batch) | render max abs diff | grad MLP rel L2 | "
          "grad encoding rel L2 | PSNR trained on the default path | on the portable path | difference |")
    print("|---|---|---|---|---|---|---|---|---|")
    for tag, lines in runs.items():
        words = tag.split()
        if words[0] != "paths" or words[-1] != "default":
            continue
        c, a = event(lines, "check_paths"), event(lines, "result")
        b = event(runs.get(" ".join(words[:-1] + ["portable"]), []), "result")
        pa, pb = (a or {}).get("psnr_8bit"), (b or {}).get("psnr_8bit")
        diff = None if pa is None or pb is None else pa - pb
        if c:
            cells = (f"{c['forward_max_abs_diff']:.2g} | {c['render_max_abs_diff']:.2g} | "
                     f"{c['grad_mlp_rel_l2']:.2g} | {c['grad_grid_rel_l2']:.2g}")
        else:
            error = event(lines, "error")
            cells = ("error: " + error["message"] if error else "no comparison") + " | | |"
        print(f"| {words[1]} | {words[2]} | {cells} | {fmt(pa, '.2f')} | {fmt(pb, '.2f')} | {fmt(diff, '+.2f')} |")


def scaling_table(runs):
    # run.sh tags its scaling runs "scaling ENCODING HIDDEN BATCH" (dense 16-128, hash 64).
    scaling = [t.split() for t in runs if t.startswith("scaling ")]
    batches = sorted({int(t[3]) for t in scaling})
    print("Scaling (leuvenA, samples/s in millions from GPU timestamps; path and tile per cell; trainer "
          "device memory at the largest batch):\n")
    print("| model | " + " | ".join(f"2^{b.bit_length() - 1}" for b in batches) + " | trainer MB |")
    print("|---|" + "---|" * (len(batches) + 1))
    models = sorted({(t[1], int(t[2])) for t in scaling}, key=lambda m: (m[0] != "dense", m[1]))
    for encoding, hidden in models:
        cells, memory = [], None
        for b in batches:
            lines = runs.get(f"scaling {encoding} {hidden} {b}", [])
            r, e = event(lines, "result"), event(lines, "error")
            if r:
                tag = "c" if r["kernel_path"] == "coopmat" else "p"
                rate = r["samples_per_second"] / 1e6  # a CPU driver's rates are below one million
                cells.append(f"{rate:.0f} ({tag}{r['tile']})" if rate >= 10 else f"{rate:.2g} ({tag}{r['tile']})")
                memory = r.get("trainer_device_bytes", memory)
            else:
                cells.append("error" if e else "—")
        print(f"| {encoding} {hidden} | " + " | ".join(cells) + f" | {fmt(memory and memory / 1e6, '.1f')} |")
    for t, lines in runs.items():
        if t.startswith("scaling") and event(lines, "error"):
            print(f"\n- {t}: {event(lines, 'error')['message']}")


def jobs_table(runs):
    print("The main job end to end (`fieldflow run graphs/lake.yaml --no-cache`, every default):\n")
    print("| photo | exit | wall (s) | training (s) | wall / training | peak host memory (MB) | report page (MB) |")
    print("|---|---|---|---|---|---|---|")
    for tag, lines in runs.items():
        j = event(lines, "job")
        if tag.startswith("job ") and j:
            train = j.get("train_seconds")
            ratio = j["wall_seconds"] / train if train else None
            page = j.get("report_bytes")
            print(f"| {tag[4:]} | {j['exit']} | {j['wall_seconds']:.2f} | {fmt(train, '.3f')} | {fmt(ratio, '.2f')} | "
                  f"{j['peak_rss_bytes'] / 1e6:.0f} | {fmt(page and page / 1e6, '.2f')} |")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__)
    runs, meta = load(sys.argv[1])
    print(f"Date {meta.get('date', '?')}, GPU {meta.get('gpu', '?')}.\n")
    tables = [("ours ", peer_table), ("paths ", paths_table), ("scaling ", scaling_table), ("job ", jobs_table)]
    for prefix, table in tables:
        if any(t.startswith(prefix) for t in runs):
            table(runs)
            print()


if __name__ == "__main__":
    main()
