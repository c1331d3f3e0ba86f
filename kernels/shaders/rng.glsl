// Counter-based random numbers: every value is a pure hash of (sample, step, seed), so the same
// seed draws the same samples on any device, with no RNG state to store or advance.
// A 4D PCG-style integer hash (Jarzynski & Olano, "Hash Functions for GPU Rendering", 2020).
uvec4 rng_hash4(uvec4 v) {
    v = v * 1664525u + 1013904223u;
    v.x += v.y * v.w; v.y += v.z * v.x; v.z += v.x * v.y; v.w += v.y * v.z;
    v ^= v >> 16u;
    v.x += v.y * v.w; v.y += v.z * v.x; v.z += v.x * v.y; v.w += v.y * v.z;
    return v;
}

// Uniform index in [0, count) for sample `sample_id` of training step `step`.
uint rng_index(uint seed_lo, uint seed_hi, uint step, uint sample_id, uint count) {
    uvec4 h = rng_hash4(uvec4(sample_id, step, seed_lo, seed_hi ^ 0x9E3779B9u));
    uint hi, lo;
    umulExtended(h.x ^ (h.z >> 7u), count, hi, lo); // multiply-high: no modulo bias to speak of
    return hi;
}
