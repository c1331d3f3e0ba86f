// The encoding's training state, one record of ENC_RECORD words per optimizer cell (the layout of
// kernels/src/field/encoding_state.hpp, which the host reads and writes, and whose record size the
// host passes in as ENC_RECORD): the cell's gradient, Adam's m and v (ENC_CELL_FEATURES floats
// each) and the Adam steps it has taken (its stamp: which step it is at; the optimizers that step
// only what a step touched also claim a cell through it, optimizer.comp).
//
// One record rather than an array per quantity: a step's samples read and write a few cells at
// random, and each cell's gradient atomics, stamp and moments then share one or two 32-byte
// sectors instead of missing the cache in several arrays (with an array per quantity, a large
// photo's step grows with its dense grid, each array a miss; bench/archive/RESULTS.md, "the
// encoding's training state in one record per cell").
//
// The including kernel binds the buffer as floats (enc_state: the gradients' atomics) or as
// 16-byte words (enc_state4: whole records, encoding_adam.glsl), and as uints (enc_state_u: the
// stamps); and defines pc.cells.
//
// With ENC_STATE_BY_ADDRESS the kernel binds none of these: the state is larger than one storage
// buffer may be (maxStorageBufferRange is 128 MB on lavapipe, where a 2^19-entry hash table's state
// takes 270 MB), and the same names reach it through its device address (pc.buffer_address), the
// kernel enabling GL_EXT_buffer_reference and GL_EXT_buffer_reference_uvec2. Indices are the same;
// only where the words are found changes.
// ENC_PARAMS_IN_RECORD: the cell's parameters are in its record, after the gradient words (lazy
// dense Adam visiting the next step's cells, on an encoding that asks for it: optimizer.comp). Its
// kernels then read and write parameters there; enc_params, which render and the host read,
// becomes current when the settle pass copies them out (encoding_settle.comp).
// Where each quantity lies in a record (its word offsets), and word w of a cell's record
// (kernels/src/field/encoding_state.hpp computes the same).
#define ENC_GRAD_WORD(f) uint(f)
#if ENC_PARAMS_IN_RECORD
#define ENC_PARAM_WORD(f) (uint(ENC_CELL_FEATURES) + uint(f))
#define ENC_MOMENTS_WORD uint(2 * ENC_CELL_FEATURES)
#else
#define ENC_MOMENTS_WORD uint(ENC_CELL_FEATURES)
#endif
#define ENC_M_WORD(f) (ENC_MOMENTS_WORD + uint(f))
#define ENC_V_WORD(f) (ENC_MOMENTS_WORD + uint(ENC_CELL_FEATURES) + uint(f))
#define ENC_STAMP_WORD (ENC_MOMENTS_WORD + uint(2 * ENC_CELL_FEATURES))
#define ENC_WORD_AT(cell, w) ((cell) * uint(ENC_RECORD) + (w))
#define ENC_GRAD_AT(cell, f) ENC_WORD_AT(cell, ENC_GRAD_WORD(f))
#define ENC_STAMP_AT(cell) ENC_WORD_AT(cell, ENC_STAMP_WORD)

// The gradient words. With ENC_GRAD_FIXED (the device has 64-bit integer atomics) they hold 32-bit
// fixed-point sums, features f and f + 1 added by one 64-bit atomic (a pair's words are adjacent
// and 8-byte aligned: records are whole 16-byte words, f even); otherwise floats added by float
// atomics. The step's atomics are what its cost is made of on the hash model (128 float atomics
// a sample, half the step at 2^20); pairs halve them (bench/archive/RESULTS.md, "the encoding's
// gradients as fixed-point pairs"). Integer sums
// also do not depend on the order the atomics arrive in: a step's gradients are the same on
// every run.
//
// The scale: a cell of a group of n cells (encoding.glsl: a hash level, the dense grid's cells)
// is read about 4 batch / n times a step. Its sum holds at most 16 max(batch / n, 1) samples'
// shares (four times the expected reads, to spare) of at most ENC_GRAD_CLIP each in units of
// LOSS_SCALE (a share is (prediction - target) x d output / d feature x the bilinear weight: well
// under 1 in practice; larger ones are clipped); the units put that worst case at 2^30.
// The state by address (see the top).
#ifdef ENC_STATE_BY_ADDRESS
layout(buffer_reference, std430, buffer_reference_align = 16) buffer EncStateFloats { float words[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer EncStateUints { uint words[]; };
layout(buffer_reference, std430, buffer_reference_align = 16) buffer EncStateQuads { vec4 words[]; };
#define enc_state EncStateFloats(pc.buffer_address).words
#define enc_state_u EncStateUints(pc.buffer_address).words
#define enc_state4 EncStateQuads(pc.buffer_address).words
#if ENC_GRAD_FIXED && defined(ENC_ADDS_GRADIENTS)
layout(buffer_reference, std430, buffer_reference_align = 16) buffer EncStatePairs { uint64_t words[]; };
#define enc_state_u64 EncStatePairs(pc.buffer_address).words
#endif
#endif
// The encoding's groups (encoding.glsl), declared for the kernels that use them before the
// encoding's file is included.
uint enc_cell_group(uint cell);
uint enc_group_cells(uint group);
// Units of the fixed-point sums per unit of gradient (x), and the most one sample adds (y). With
// m = min(n, batch) the reads above are 16 batch / m, so the most a sample adds is 2^30 / reads =
// 2^26 m / batch, and the units (that over ENC_GRAD_CLIP x LOSS_SCALE) 2^25 OUT_DIM m /
// ENC_GRAD_CLIP: products only (the training step computes them for every cell it reaches).
vec2 enc_grad_fixed_scale(uint group_cells) {
    const float m = float(min(group_cells, pc.batch));
    return vec2(m * (33554432.0 * float(OUT_DIM) / ENC_GRAD_CLIP), m * (67108864.0 / float(pc.batch)));
}
// The two sums a pair's words hold: the low word's sum, and the high word's less the borrow that
// the 64-bit adds took from it for every negative low part (the low sum fits 32 bits, so its
// sign says whether the 64-bit total borrowed).
ivec2 enc_grad_fixed_pair(uint lo_word, uint hi_word) {
    const int lo = int(lo_word);
    return ivec2(lo, int(hi_word) + (lo < 0 ? 1 : 0));
}

#if ENC_GRAD_FIXED && defined(ENC_ADDS_GRADIENTS)
// Two fixed-point values as one 64-bit addend: hi * 2^32 + lo, lo sign-extended (the borrow of a
// negative lo comes off the high word; enc_grad_fixed_pair gives it back). For the kernels that
// add gradients (ENC_ADDS_GRADIENTS), which enable 64-bit integers.
uint64_t enc_grad_fixed_addend(int lo, int hi) {
    return (uint64_t(uint(hi - (lo < 0 ? 1 : 0))) << 32) | uint64_t(uint(lo));
}
#endif

// One sample's share of a cell of group `group` as the fixed-point values its gradient words add
// (the training step and the deferred sums, encoding_deferred_sums.comp, compute it alike, so that
// either gives the same sums).
void enc_grad_fixed_shares(uint group, float g[ENC_CELL_FEATURES], out int q[ENC_CELL_FEATURES]) {
    const vec2 scale = enc_grad_fixed_scale(enc_group_cells(group));
    for (int f = 0; f < ENC_CELL_FEATURES; ++f) q[f] = int(round(clamp(g[f] * scale.x, -scale.y, scale.y)));
}
