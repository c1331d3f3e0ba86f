#!/usr/bin/env python3
"""Runs one fieldflow job and prints it as a JSON line for bench/gpu/run.sh's results: its exit
status, wall time, peak resident memory (getrusage of the waited-for process, so no sampling can
miss the peak), the training's own seconds from metrics.json and the report page's bytes.

    python3 bench/gpu/timed_job.py OUTPUT_DIR -- fieldflow run graphs/lake.yaml ... --set output=OUTPUT_DIR
"""
import json
import os
import resource
import subprocess
import sys
import time


def main(argv):
    if len(argv) < 3 or argv[1] != "--":
        raise SystemExit(__doc__)
    output, command = argv[0], argv[2:]
    start = time.monotonic()
    with open(output.rstrip("/") + ".log", "w") as log:
        code = subprocess.call(command, stdout=log, stderr=subprocess.STDOUT)
    wall = time.monotonic() - start
    event = {"event": "job", "exit": code, "wall_seconds": round(wall, 3),
             "peak_rss_bytes": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss * 1024}
    try:
        with open(os.path.join(output, "metrics.json")) as f:
            event["train_seconds"] = json.load(f)["train_seconds"]
    except (OSError, KeyError, ValueError):
        event["train_seconds"] = None
    page = os.path.join(output, "report.html")
    event["report_bytes"] = os.path.getsize(page) if os.path.exists(page) else None
    print(json.dumps(event))
    return code


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
