#!/usr/bin/env python3
"""bench/gpu/tables.py's tables for the recipes peer, paths and large (jobs) on the tags run.sh
writes: ours against the peer with the time ratio, each model's kernel paths compared with the
PSNR difference of the two paths' runs, and a job's wall against its training."""
import json
import sys

from bench_tool import run_on_results, verdict


def result(**fields):
    base = {"event": "result", "steps": 40000, "tile": 128, "us_per_step_wall": 12.5, "us_per_step_gpu": 12.3,
            "train_seconds": 0.5, "psnr_8bit": 31.18, "render_gpu_us": 80.0, "kernel_path": "coopmat"}
    base.update(fields)
    return json.dumps(base)


def main(tables_py):
    check = {"event": "check_paths", "forward_max_abs_diff": 0.0015, "render_max_abs_diff": 0.0027,
             "grad_mlp_rel_l2": 0.004, "grad_grid_rel_l2": 0.002}
    lines = ["# date 2026-12-01", "# gpu NVIDIA H200, 580.159.04",
             "# run ours leuvenA default", result(),
             "# run ours leuvenA portable", result(kernel_path="portable", train_seconds=2.0, psnr_8bit=31.2),
             "# run peer leuvenA", json.dumps({"peer": "pytorch-graph", "steps": 40000, "us_per_step": 223.1,
                                                "psnr": 30.86, "render_us": 500.0}),
             "# run paths lake graf1 default", result(psnr_8bit=32.42), json.dumps(check),
             "# run paths lake graf1 portable", result(kernel_path="portable", psnr_8bit=32.48),
             "# run paths hash leuvenA default", json.dumps({"event": "error", "message": "device lost"}),
             "# run job 8192x8192", json.dumps({"event": "job", "exit": 0, "wall_seconds": 14.46, "train_seconds": 0.8,
                                                 "peak_rss_bytes": 6_100_000_000, "report_bytes": 5_280_000})]
    out = run_on_results(tables_py, lines)
    failures = []
    expected = [
        # 40,000 steps of the peer at 223.1 us: 8.92 s, 17.8 times ours' 0.5 s.
        "| pytorch-graph | leuvenA | 223.1 | 8.92 | 30.86 | 500.0 | 17.8x |",
        "| fieldflow portable (tile 128) | leuvenA | 12.5 | 2.00 | 31.20 | 80.0 | 4.0x |",
        "| fieldflow coopmat (tile 128) | leuvenA | 12.5 | 0.50 | 31.18 | 80.0 | — |",
        "| lake | graf1 | 0.0015 | 0.0027 | 0.004 | 0.002 | 32.42 | 32.48 | -0.06 |",
        "| hash | leuvenA | error: device lost | | | | — | — | — |",
        "| 8192x8192 | 0 | 14.46 | 0.800 | 18.07 | 6100 | 5.28 |",
    ]
    for row in expected:
        if row not in out.splitlines():
            failures.append("missing row: " + row)
    if "Date 2026-12-01, GPU NVIDIA H200, 580.159.04." not in out:
        failures.append("the date and GPU line")
    if "Scaling" in out:
        failures.append("a scaling table without scaling runs")
    return verdict(out, failures)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
