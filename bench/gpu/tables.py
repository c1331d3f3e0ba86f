#!/usr/bin/env python3
"""Prints the GPU benchmark's tables (markdown) from run.sh's results file.

The file holds '# run TAG' lines, each followed by the JSON lines of that run (ff-engine-bench events
or the PyTorch peer's lines). Totals for 40,000 steps are measured where the run trained 40,000 steps
and extrapolated from us/step otherwise (marked '~').
"""
import json
import sys

STEPS = 40000
TCNN = {"us": 40.0, "total": 3.3}  # tiny-cuda-nn on the same H100 (issue 5), not run here


def load(path):
    runs, meta, tag = {}, {}, None
    for line in open(path):
        line = line.strip()
        if line.startswith("# run "):
            tag = line[6:]
            runs[tag] = []
        elif line.startswith("# "):
            k, _, v = line[2:].partition(" ")
            meta[k] = v
        elif line.startswith("{") and tag is not None:
            try:
                runs[tag].append(json.loads(line))
            except json.JSONDecodeError:
                pass
    return runs, meta


def event(lines, name):
    for j in lines:
        if j.get("event") == name:
            return j
    return None


def fmt(x, spec):
    return "—" if x is None else format(x, spec)


def main():
    runs, meta = load(sys.argv[1])
    print(f"Date {meta.get('date', '?')}, GPU {meta.get('gpu', '?')}.\n")
    print("| implementation | image | us/step | 40k steps (s) | PSNR (dB) | render (us) | coopmat speed-up |")
    print("|---|---|---|---|---|---|---|")
    for img in ("leuvenA", "graf1"):
        ours = event(runs.get(f"ours {img} coopmat", []), "result")
        base_total = None
        if ours:
            base_total = ours["train_seconds"] * STEPS / ours["steps"]
        rows = []
        for path in ("coopmat", "portable"):
            r = event(runs.get(f"ours {img} {path}", []), "result")
            if not r:
                rows.append((f"fieldflow {path}", None, None, None, None, False))
                continue
            total = r["train_seconds"] * STEPS / r["steps"]
            rows.append((f"fieldflow {r['kernel_path']} (tile {r['tile']})", r["us_per_step_wall"], total,
                         r["psnr_8bit"], r["render_gpu_us"], r["steps"] != STEPS))
        for j in runs.get(f"peer {img}", []):
            if "peer" not in j:
                continue
            total = j["us_per_step"] * STEPS / 1e6
            psnr = j["psnr"] if j["steps"] == STEPS else None
            rows.append((j["peer"], j["us_per_step"], total, psnr, j["render_us"], j["steps"] != STEPS))
        rows.append(("tiny-cuda-nn (issue figures, not run)", TCNN["us"], TCNN["total"], None, None, False))
        for name, us, total, psnr, render, extrapolated in rows:
            speed = None if (base_total is None or total is None) else total / base_total
            print(f"| {name} | {img} | {fmt(us, '.1f')} | {'~' if extrapolated else ''}{fmt(total, '.2f')} | "
                  f"{fmt(psnr, '.2f')} | {fmt(render, '.1f')} | "
                  f"{'—' if speed is None or name.startswith('fieldflow coopmat') else format(speed, '.1f') + 'x'} |")

    print("\nGPU time per dispatch (timestamps, a barrier after each; us), and the variants:\n")
    print("| run | train_step | optimizer | step | us/step in the run (GPU) | 40k steps wall (s) | PSNR | render (us) |")
    print("|---|---|---|---|---|---|---|---|")
    for tag, lines in runs.items():
        if not tag.startswith("ours"):
            continue
        p, r = event(lines, "profile"), event(lines, "result")
        if not r:
            continue
        total = r["train_seconds"] * STEPS / r["steps"]
        print(f"| {tag[5:]} ({r['kernel_path']}, tile {r['tile']}) | {fmt(p and p['train_step_us'], '.1f')} | "
              f"{fmt(p and p['optimizer_us'], '.1f')} | {fmt(p and p['step_us'], '.1f')} | "
              f"{r['us_per_step_gpu']:.1f} | {'~' if r['steps'] != STEPS else ''}{total:.2f} | "
              f"{r['psnr_8bit']:.2f} | {r['render_gpu_us']:.1f} |")

    print("\nKernel paths agree (coopmat vs portable on the model trained with coopmat; 40k-step PSNRs):\n")
    print("| image | forward max abs diff (batch) | render max abs diff | grad MLP rel L2 | grad grid rel L2 "
          "| PSNR coopmat | PSNR portable | difference |")
    print("|---|---|---|---|---|---|---|---|")
    for img in ("leuvenA", "graf1"):
        c = event(runs.get(f"ours {img} coopmat", []), "check_paths")
        a = event(runs.get(f"ours {img} coopmat", []), "result")
        b = event(runs.get(f"ours {img} portable", []), "result")
        if c:
            pa, pb = (a or {}).get("psnr_8bit"), (b or {}).get("psnr_8bit")
            diff = None if pa is None or pb is None else pa - pb
            print(f"| {img} | {c['forward_max_abs_diff']:.2g} | {c['render_max_abs_diff']:.2g} | "
                  f"{c['grad_mlp_rel_l2']:.2g} | {c['grad_grid_rel_l2']:.2g} | {fmt(pa, '.2f')} | "
                  f"{fmt(pb, '.2f')} | {fmt(diff, '+.2f')} |")

    # run.sh tags its scaling runs "scaling ENCODING HIDDEN BATCH" (dense 16-128, hash 64).
    scaling = [t.split() for t in runs if t.startswith("scaling ")]
    batches = sorted({int(t[3]) for t in scaling})
    if batches:
        print("\nScaling (leuvenA, samples/s in millions from GPU timestamps; path and tile per cell; trainer "
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
                    cells.append(f"{r['samples_per_second'] / 1e6:.0f} ({tag}{r['tile']})")
                    memory = r.get("trainer_device_bytes", memory)
                else:
                    cells.append("error" if e else "—")
            print(f"| {encoding} {hidden} | " + " | ".join(cells) + f" | {fmt(memory and memory / 1e6, '.1f')} |")
        errors = [(t, event(l, "error")["message"]) for t, l in runs.items() if t.startswith("scaling") and event(l, "error")]
        for t, m in errors:
            print(f"\n- {t}: {m}")


if __name__ == "__main__":
    main()
