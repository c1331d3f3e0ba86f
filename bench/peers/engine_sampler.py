"""The engine's training samples in Python (kernels/shaders/rng.glsl, sampling.glsl and
kernels/src/field/sampling.cpp), on ints or on int64 tensors alike: a peer that draws them trains on
the engine's pixels, step by step. Needs nothing beyond Python (tests/bench/engine_sampler_test.py
holds it to the engine's own indices)."""
import math

MASK32 = 0xFFFFFFFF


def pcg4d(x, y, z, w):
    """rng.glsl's rng_hash4 on values holding uint32s (products wrap and are masked back to 32
    bits, which is exactly uint32 arithmetic)."""
    v = [(c * 1664525 + 1013904223) & MASK32 for c in (x, y, z, w)]
    for _ in range(2):
        v[0] = (v[0] + v[1] * v[3]) & MASK32
        v[1] = (v[1] + v[2] * v[0]) & MASK32
        v[2] = (v[2] + v[0] * v[1]) & MASK32
        v[3] = (v[3] + v[1] * v[2]) & MASK32
        if _ == 0:
            v = [c ^ (c >> 16) for c in v]
    return v


def sample_block_shift(batch, width, height, cells_across):
    """sampling.cpp's sample_block_shift: log2 of the blocks whose strata put a subgroup's 32
    samples 3 encoding cells apart along a row."""
    pixels = float(width) * float(height)
    if cells_across == 0 or batch == 0 or pixels == 0:
        return 5
    strata = 3.0 * (float(width) / cells_across) * float(batch) / pixels
    if strata <= 1.0:
        return 5
    return min(5 + math.ceil(math.log2(strata)), 30)


def hash_cells_across(resolutions):
    """A hash grid's cells_across (hash_grid.cpp): its levels' geometric-mean resolution."""
    logs = [math.log(max(int(r), 1)) for r in resolutions]
    return int(math.floor(math.exp(sum(logs) / len(logs)) + 0.5))


def sample_stratum(ids, batch, block_shift):
    """sampling.glsl's sample_stratum: each whole block's strata dealt out column-wise to its
    32-sample rows; samples past the last whole block keep their index."""
    block = 1 << block_shift
    i = ids & (block - 1)
    dealt = (ids & ~(block - 1)) | ((i & 31) << (block_shift - 5)) | (i >> 5)
    return ids + (dealt - ids) * (ids < (batch & ~(block - 1)))


def training_pixels(seed, step, ids, stratum, batch, pixels):
    """sampling.glsl's training_pixel for samples `ids` (their strata given) at step `step`."""
    h = pcg4d(ids, step, seed & MASK32, ((seed >> 32) ^ 0x9E3779B9) & MASK32)
    offset = ((h[0] ^ (h[2] >> 7)) * pixels) >> 32
    return (stratum * pixels + offset) // batch
