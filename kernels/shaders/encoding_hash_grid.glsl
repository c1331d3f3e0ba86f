// Multiresolution hash encoding (Instant-NGP, Mueller et al. 2022) in 2D. Level l has
// hash_resolution[l] cells per side; its (res + 1)^2 vertices each own a row of HASH_F learnable
// floats in the level's part of the table (rows hash_offset[l] ...). A level whose vertices fit
// the table indexes it densely, a finer one hashes (x * 1) XOR (y * 2654435761) mod T. Each level
// is sampled bilinearly; the levels' features are concatenated (IN_DIM = HASH_LEVELS * HASH_F).
// The host side (sizes, offsets, CPU reference) is kernels/src/encodings/hash_grid.cpp.
#if HASH_LEVELS * HASH_F != IN_DIM
#error "IN_DIM does not match HASH_LEVELS * HASH_F"
#endif

const int ENC_GRAD_DIM = HASH_LEVELS * HASH_F;
// The loops over the levels, unrolled where the including kernel defines ENC_LEVEL_LOOP as
// [[unroll]] (train_step.comp, for narrow MLPs). Left to the compiler, the 16-level loops stay
// loops, so the per-level tables and the feature arrays are indexed at run time and the NVIDIA
// driver places them in local memory (the 64-wide hash model's training kernel: 320 bytes a lane,
// none without the encoding's backward pass; bench/archive/RESULTS.md, "gradient replicas measured
// and left out"). The optimizer's visit
// of a sample's cells keeps its loop: unrolled, each of the 64 cells would inline an Adam step.
#ifndef ENC_LEVEL_LOOP
#define ENC_LEVEL_LOOP
#endif
const uint hash_resolution[HASH_LEVELS] = uint[](HASH_RESOLUTIONS);
const uint hash_offset[HASH_LEVELS] = uint[](HASH_OFFSETS);
const bool hash_dense[HASH_LEVELS] = bool[](HASH_DENSE);

struct HashCorners {
    uint row[4];  // table rows of the four vertices (whole-table index)
    float w[4];   // bilinear weights
};

// The fixed-point gradients' groups (encoding_state.glsl): the levels.
uint enc_cell_group(uint row) {
    uint level = 0u;
    for (uint l = 1u; l < uint(HASH_LEVELS); ++l)
        if (row >= hash_offset[l]) level = l;
    return level;
}
uint enc_group_cells(uint level) {
    const uint res = hash_resolution[level];
    return hash_dense[level] ? (res + 1u) * (res + 1u) : HASH_T_MASK + 1u;
}

HashCorners hash_corners(int level, vec2 uv) {
    const uint res = hash_resolution[level];
    vec2 p = uv * float(res);
    vec2 c = clamp(floor(p), vec2(0.0), vec2(float(res) - 1.0));
    vec2 f = p - c;
    uvec2 v0 = uvec2(c);
    HashCorners k;
    for (int i = 0; i < 4; ++i) {
        uvec2 v = v0 + uvec2(i & 1, i >> 1);
        uint row = hash_dense[level] ? v.y * (res + 1u) + v.x : (v.x ^ (v.y * 2654435761u)) & HASH_T_MASK;
        k.row[i] = hash_offset[level] + row;
    }
    k.w[0] = (1.0 - f.x) * (1.0 - f.y);
    k.w[1] = f.x * (1.0 - f.y);
    k.w[2] = (1.0 - f.x) * f.y;
    k.w[3] = f.x * f.y;
    return k;
}

void encode(vec2 uv, out float x[IN_PAD]) {
    ENC_LEVEL_LOOP for (int l = 0; l < HASH_LEVELS; ++l) {
        HashCorners k = hash_corners(l, uv);
        for (int f = 0; f < HASH_F; ++f) {
            float v = 0.0;
            for (int i = 0; i < 4; ++i) v += k.w[i] * ENC_PARAM(k.row[i] * HASH_F + f);
            x[l * HASH_F + f] = v;
        }
    }
    for (int i = IN_DIM; i < IN_PAD; ++i) x[i] = 0.0;
}

#ifdef ENC_CELL_GRAD
// The levels it scatters: all, or around the deferred ones (encoding.glsl).
#ifdef ENC_DEFERRED_PASS
const int hash_backward_levels[2] = int[](0, ENC_DEFERRED_GROUPS);
#else
const int hash_backward_levels[2] = int[](ENC_DEFERRED_GROUPS, HASH_LEVELS);
#endif
void encode_backward(vec2 uv, float dx[ENC_GRAD_DIM]) {
    ENC_LEVEL_LOOP for (int l = hash_backward_levels[0]; l < hash_backward_levels[1]; ++l) {
#ifdef ENC_DEFERRED_PASS
        if (!enc_deferred_pass_takes(uint(l))) continue;
#endif
        HashCorners k = hash_corners(l, uv);
        for (int i = 0; i < 4; ++i) {
            float g[HASH_F];
            for (int f = 0; f < HASH_F; ++f) g[f] = k.w[i] * dx[l * HASH_F + f];
            ENC_CELL_GRAD(k.row[i], uint(l), g);
        }
    }
}
#endif
