#!/usr/bin/env python3
"""ff-engine-bench trains with every encoding it names (`--encoding`): on a small image, each run
exits cleanly, reports the encoding it was asked for, and ends with a lower loss than its first
step's. The encodings other than the dense grid take no grid, which the benchmark must not size
from the image.

    engine_encodings_test.py FF_ENGINE_BENCH"""
import json
import os
import re
import subprocess
import sys
import tempfile


def write_ppm(path, w, h):
    pixels = bytearray()
    for y in range(h):
        for x in range(w):
            pixels += bytes([(7 * x) % 256, (11 * y) % 256, 255 * (((x // 8) + (y // 8)) % 2)])
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + bytes(pixels))


def encodings(bench):
    """The names the benchmark's --encoding takes, from its refusal of one it does not."""
    r = subprocess.run([bench, "--image", "none.ppm", "--encoding", "none"], capture_output=True, text=True)
    m = re.search(r"--encoding expects (.+?), got", r.stdout + r.stderr)
    if not m:
        raise SystemExit(f"FAIL: no list of encodings in: {(r.stdout + r.stderr)[:300]}")
    return re.split(r", | or ", m.group(1))


def main(bench):
    names = encodings(bench)
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "image.ppm")
        write_ppm(image, 32, 24)
        for name in names:
            r = subprocess.run([bench, "--image", image, "--steps", "60", "--batch", "256", "--encoding", name,
                                "--trace-steps", "1", "--device", "cpu"], capture_output=True, text=True)
            if r.returncode != 0:
                said = (r.stderr + r.stdout).strip().splitlines() or [""]
                failures.append(f"{name}: exit {r.returncode}: {said[0][:300]}")
                continue
            events = [json.loads(line) for line in r.stdout.splitlines() if line.startswith("{")]
            setup = next((e for e in events if e["event"] == "setup"), {})
            first = next((e for e in events if e["event"] == "progress" and e["step"] == 1), None)
            result = next((e for e in events if e["event"] == "result"), None)
            if setup.get("encoding") != name:
                failures.append(f"{name}: the setup says encoding {setup.get('encoding')}")
            if not first or not result:
                failures.append(f"{name}: no first step or no result in the output")
            elif not result["final_loss"] < 0.75 * first["loss"]:
                failures.append(f"{name}: loss {first['loss']} at step 1, {result['final_loss']} at step 60")
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print(f"ok: ff-engine-bench trains with {', '.join(names)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
