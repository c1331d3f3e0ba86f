#!/usr/bin/env python3
"""bench/peers/engine_sampler.py, which the PyTorch peer draws its samples with, against the
engine's own: `ff-engine-bench --save-init` writes the pixels a run's samples take at steps 0 and 1,
for the dense grid and the hash grid, batches of a power of two and not (both of sampling.glsl's
divisions), each with its blocks dealt out (the blocks smaller than the batch)."""
import math
import os
import struct
import subprocess
import sys
import tempfile


def write_ppm(path, w, h):
    pixels = bytearray()
    for y in range(h):
        for x in range(w):
            pixels += bytes([(7 * x) % 256, (11 * y) % 256, (x * y) % 256])
    with open(path, "wb") as f:
        f.write(b"P6\n%d %d\n255\n" % (w, h) + bytes(pixels))


def main(bench, peers_dir):
    sys.path.insert(0, peers_dir)
    import engine_sampler as es

    w, h, seed = 96, 72, 5
    hash_levels = [math.floor(16 * 1.3 ** level) for level in range(16)]  # the engine's defaults
    cases = [("dense_grid", max(2, w // 4)), ("hash_grid", es.hash_cells_across(hash_levels))]
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        image = os.path.join(tmp, "image.ppm")
        write_ppm(image, w, h)
        for encoding, cells in cases:
            for batch in (4096, 5000):
                prefix = os.path.join(tmp, f"{encoding}_{batch}")
                subprocess.run([bench, "--image", image, "--steps", "1", "--batch", str(batch), "--seed",
                                str(seed), "--encoding", encoding, "--save-init", prefix, "--report-every", "1"],
                               check=True, stdout=subprocess.DEVNULL)
                with open(prefix + ".idx.u32", "rb") as f:
                    data = f.read()
                want = list(struct.unpack(f"<{len(data) // 4}I", data))
                shift = es.sample_block_shift(batch, w, h, cells)
                if (1 << shift) >= batch or shift == 5:
                    failures.append(f"{encoding} {batch}: blocks of 2^{shift} deal nothing out")
                ids = list(range(batch))
                strata = [es.sample_stratum(i, batch, shift) for i in ids]
                if sorted(strata) != ids:
                    failures.append(f"{encoding} {batch}: the strata are not a permutation")
                for step in (0, 1):
                    got = [es.training_pixels(seed, step, i, s, batch, w * h) for i, s in zip(ids, strata)]
                    if got != want[step * batch:(step + 1) * batch]:
                        first = next(i for i in ids if got[i] != want[step * batch + i])
                        failures.append(f"{encoding} {batch} step {step}: sample {first} takes pixel "
                                        f"{got[first]}, the engine's {want[step * batch + first]}")
    if failures:
        print("FAIL: " + "; ".join(failures))
        return 1
    print("ok: the peer's sampler draws the engine's pixels (dense and hash grids, batches 4096 and 5000)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2]))
