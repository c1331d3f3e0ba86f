#version 450
// One training step, fused: draw samples (counter-based RNG), fetch targets, encode, forward, MSE
// loss, backward. Persistent workgroups: a fixed number of workgroups (see Trainer) loop over the
// batch's tiles, so memory and the final reduction do not grow with the batch. Each workgroup
// (each subgroup, on the tensor cores) leaves its weight gradients, summed over its tiles, in its
// own partial row (no atomics; the rows are summed in a fixed order by optimizer.comp); encoding
// gradients are scattered with atomics (fixed-point pairs or floats: encoding_state.glsl) into
// the cells' records; an optimizer that steps only the cells a step touched (sparse, lazy dense
// Adam) finds them again from the step's samples, so nothing here marks or lists them.
// With EXPLICIT_SAMPLES the uvs and targets come from buffers and outputs are written (tests).
//
// Two bodies share the sampling, loss and encoding code:
//   COOPMAT=0 (portable): a tile is TILE samples, one per invocation, layers separated by
//     workgroup barriers (mlp.glsl);
//   COOPMAT=1 (tensor cores, mlp_coopmat.glsl): every 32-wide subgroup takes its own tiles of 32
//     samples and keeps its gradient sums to itself until the step's end, then writes them as its
//     own row (and its loss as its own partial), which the optimizer sums with all the others.
#ifndef COOPMAT
#define COOPMAT 0
#endif
#extension GL_EXT_shader_atomic_float : require
#if ENC_GRAD_FIXED
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#endif
#ifdef ENC_STATE_BY_ADDRESS // the encoding's state by its address (encoding_state.glsl)
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#endif
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#if COOPMAT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_EXT_shader_16bit_storage : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#if defined(CM_SHARED_BLOCKS) && CM_SHARED_BLOCKS
#extension GL_EXT_shared_memory_block : require
#endif
#endif

#include "common.glsl"
#include "sampling.glsl"

#ifndef TILE
#error "TILE (samples per workgroup) must be defined"
#endif
layout(local_size_x = TILE) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
// The encoding's training state (encoding_state.glsl), as floats and as uints (and, for fixed-point
// gradients, as 64-bit words).
#ifndef ENC_STATE_BY_ADDRESS // else encoding_state.glsl reaches it by address
layout(std430, binding = 2) buffer EncodingState { float enc_state[]; };
layout(std430, binding = 3) buffer EncodingStateBits { uint enc_state_u[]; };
#if ENC_GRAD_FIXED
layout(std430, binding = 2) buffer EncodingStatePairs { uint64_t enc_state_u64[]; }; // gradient pairs
#endif
#endif
layout(std430, binding = 4) buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 5) buffer LossPartials { float loss_partials[]; };
#ifdef EXPLICIT_SAMPLES
layout(std430, binding = 6) readonly buffer SampleUv { vec2 sample_uv[]; };
layout(std430, binding = 7) readonly buffer SampleTarget { float sample_target[]; };
layout(std430, binding = 8) writeonly buffer SampleOut { float sample_out[]; };
#else
#include "target_image.glsl" // the image's parts from binding 6 (IMAGE_BINDING)
#if OUT_DIM != 3
#error "training on an image needs OUT_DIM == 3"
#endif
#endif

#define ENC_ADDS_GRADIENTS
#include "encoding_state.glsl"

#if ENC_PARAMS_IN_RECORD
// Parameter i in its cell's record (encoding_state.glsl), beside the gradient words the step adds
// to: one record's first sector a cell.
#define ENC_PARAM(i) enc_state[ENC_WORD_AT(uint(i) / uint(ENC_CELL_FEATURES), ENC_PARAM_WORD(uint(i) % uint(ENC_CELL_FEATURES)))]
#else
#define ENC_PARAM(i) enc_params[i]
#endif

// ENC_LOCAL_CELLS (the host's TrainTiling::local_gradient_cells): cells [0, ENC_LOCAL_CELLS), the
// most-read ones (a hash grid's coarsest levels, where every sample adds to one of a few hundred
// cells), take their fixed-point shares in the workgroup's shared memory, and each of their sums
// goes to device memory once, at the workgroup's end (enc_local_flush). Integer sums are the same
// in any order: so are the gradients, bit for bit.
#ifndef ENC_LOCAL_CELLS
#define ENC_LOCAL_CELLS 0
#endif
#if ENC_LOCAL_CELLS
#if !ENC_GRAD_FIXED
#error "local gradient sums (ENC_LOCAL_CELLS) take fixed-point gradients"
#endif
#define ENC_LOCAL_WORDS (ENC_LOCAL_CELLS * ENC_CELL_FEATURES) // a 32-bit sum a feature
void enc_local_add(uint cell, int q[ENC_CELL_FEATURES]); // beside the sums' declaration, below
#endif

// Adds one sample's gradient of an encoding cell (of fixed-point group `group`). Nothing marks the
// cell touched: the optimizer finds the step's cells again from its samples (optimizer.comp).
void enc_cell_grad(uint cell, uint group, float g[ENC_CELL_FEATURES]) {
#if ENC_GRAD_FIXED
    int q[ENC_CELL_FEATURES];
    enc_grad_fixed_shares(group, g, q);
#if ENC_LOCAL_CELLS
    if (cell < uint(ENC_LOCAL_CELLS)) {
        enc_local_add(cell, q);
        return;
    }
#endif
    for (int f = 0; f + 1 < ENC_CELL_FEATURES; f += 2)
        atomicAdd(enc_state_u64[ENC_GRAD_AT(cell, f) / 2u], enc_grad_fixed_addend(q[f], q[f + 1]));
#if ENC_CELL_FEATURES % 2 == 1
    atomicAdd(enc_state_u[ENC_GRAD_AT(cell, ENC_CELL_FEATURES - 1)], uint(q[ENC_CELL_FEATURES - 1]));
#endif
#else
    for (int f = 0; f < ENC_CELL_FEATURES; ++f) atomicAdd(enc_state[ENC_GRAD_AT(cell, f)], g[f]);
#endif
}
// CM_LATE_ENCODING (the host's TrainTiling::late_encoding; mlp_coopmat_split.glsl): a tile's
// encoding backward pass is taken by the subgroups that neither hold samples nor stage the next
// tile's, while the next tile's sample subgroups take its last forward product; the tile's
// sample i by invocations CM_ROWS * (2 + k) + i, k < CM_LATE_SHARES, each adding of the cell
// gradients the encoding adds for it (its calls of ENC_CELL_GRAD, in their order) every
// CM_LATE_SHARES-th from the k-th on: width 128's two shares a sample, the dense grid's corners
// two an invocation, where the sample subgroups took all four at the tile's end while six
// subgroups of eight waited. Fixed-point sums are the same in any order: so are the gradients,
// bit for bit. (The measurements without the MLP take their own; those without the encoding's
// backward pass, none.)
#ifndef CM_LATE_ENCODING
#define CM_LATE_ENCODING 0
#endif
#if CM_LATE_ENCODING && !defined(ABLATE_MLP) && !defined(ABLATE_BACKWARD) && !defined(ABLATE_ENCODING_BACKWARD)
#define CM_LATE_BACKWARD 1
#else
#define CM_LATE_BACKWARD 0
#endif
#if CM_LATE_BACKWARD
#if !defined(CM_SPLIT) || !CM_SPLIT
#error "the late encoding backward pass takes shared tiles (CM_SPLIT)"
#endif
#define CM_LATE_SHARES (uint(TILE) / uint(CM_ROWS) - 2u)
#define CM_LATE_SHARE (gl_LocalInvocationIndex / uint(CM_ROWS) - 2u)
#define CM_LATE_ROW (gl_LocalInvocationIndex % uint(CM_ROWS))
uint enc_visits; // the sample's cell gradients visited so far (late_encoding_backward sets it to 0)
void enc_cell_grad_share(uint cell, uint group, float g[ENC_CELL_FEATURES]) {
    if (enc_visits % CM_LATE_SHARES == CM_LATE_SHARE) enc_cell_grad(cell, group, g);
    ++enc_visits;
}
#define ENC_CELL_GRAD(cell, group, g) enc_cell_grad_share(cell, group, g)
#else
#define ENC_CELL_GRAD(cell, group, g) enc_cell_grad(cell, group, g)
#endif
// encoding_hash_grid.glsl's level loops unrolled where the MLP leaves registers to spare: the
// hash grid with a 32-wide MLP trained 3% faster on the H100 (2^14 31.9 against 32.9 us/step,
// 2^20 1,190 against 1,229), with a 64-wide one 5% slower (1,343 against 1,276 at 2^20: its
// registers are all taken, and the unrolled code still spilled, 272 bytes a lane against 320;
// bench/RESULTS.md, session 12).
#if HIDDEN <= 32
#define ENC_LEVEL_LOOP [[unroll]]
#endif
#include "encoding.glsl"

// ENC_DEFERRED_GROUPS (the host's TrainTiling::deferred): the input gradients of the encoding's
// leading groups, [0, ENC_DEFERRED_INPUTS), go to a buffer for every sample
// (encoding_deferred_inputs.glsl), and after the step encoding_deferred_sums.comp adds them up in
// shared memory, cell by cell; encode_backward leaves those groups out here. For the coarse levels
// that the tile's shared memory has no room to sum (ENC_LOCAL_CELLS), whose cells each take
// thousands of a step's atomics.
#if ENC_DEFERRED_GROUPS
layout(std430, binding = ENC_DEFERRED_BINDING) writeonly buffer DeferredInputs { uint enc_deferred[]; };
#define ENC_DEFERRED_STORES
#include "encoding_deferred_inputs.glsl"
void enc_defer(uint s, float dx[ENC_GRAD_DIM]) { enc_deferred_store(s, dx); }
#else
void enc_defer(uint s, float dx[ENC_GRAD_DIM]) {}
#endif
#if ENC_DEFERRED_GROUPS && ENC_LOCAL_CELLS
#error "deferred sums (ENC_DEFERRED_GROUPS) stand in for local ones (ENC_LOCAL_CELLS): one or the other"
#endif


// The tiles [x, y) of `tiles` that worker `me` of `workers` takes: a contiguous share, sizes
// differing by at most one (every worker gets one while workers <= tiles).
uvec2 tile_range(uint me, uint workers, uint tiles) {
    const uint share = tiles / workers, extra = tiles % workers;
    const uint first = me * share + min(me, extra);
    return uvec2(first, first + share + (me < extra ? 1u : 0u));
}

// Sample s of this step as loaded: its uv and its target's words as stored (explicit samples:
// the target itself). Apart from sample_finish, which unpacks them, so that the tensor-core step
// can load a tile ahead.
struct SampleFetch {
    vec2 uv;
#ifdef EXPLICIT_SAMPLES
    float target[OUT_DIM];
#else
    uvec2 target;
#endif
};

#ifndef EXPLICIT_SAMPLES
// The sample drawn at `pixel`.
SampleFetch pixel_fetch(uint pixel) {
    SampleFetch f;
    f.uv = pixel_uv(pixel);
    f.target = target_words(pixel);
    return f;
}
#endif

SampleFetch sample_fetch(uint s) {
#ifdef EXPLICIT_SAMPLES
    SampleFetch f;
    f.uv = sample_uv[s];
    for (int o = 0; o < OUT_DIM; ++o) f.target[o] = sample_target[s * OUT_DIM + o];
    return f;
#else
    return pixel_fetch(training_pixel(pc.step, s));
#endif
}

// The fetched sample's target, zero past OUT_DIM.
void sample_finish(SampleFetch f, out float target[OUT_PAD]) {
    for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
#ifdef EXPLICIT_SAMPLES
    for (int o = 0; o < OUT_DIM; ++o) target[o] = f.target[o];
#else
    const vec3 rgb = target_from_words(f.target);
    target[0] = rgb.r; target[1] = rgb.g; target[2] = rgb.b;
#endif
}

// Sample s's uv alone (no image read): the samples are drawn by counter, so any invocation can
// draw any of them again. With ABLATE_INPUTS, the measurement's uv (train_tile).
vec2 drawn_uv(uint s) {
#ifdef ABLATE_INPUTS
    return vec2(float(s & 1023u), float(s >> 10)) / 1024.0;
#elif defined(EXPLICIT_SAMPLES)
    return sample_uv[s];
#else
    return pixel_uv(training_pixel(pc.step, s));
#endif
}

// Sample s of this step: its uv and target (zero past OUT_DIM).
void training_sample(uint s, out vec2 uv, out float target[OUT_PAD]) {
    const SampleFetch f = sample_fetch(s);
    uv = f.uv;
    sample_finish(f, target);
}


#if COOPMAT
#define CM_TRAINING
#ifndef CM_STAGE_INPUTS
#define CM_STAGE_INPUTS 0
#endif
#ifndef CM_SPLIT
#define CM_SPLIT 0
#endif
// CM_STAGE_TARGETS (the host's TrainTiling::stage_targets; with CM_STAGE_INPUTS): the staging
// subgroups fetch the next tile's samples whole, their targets' image reads beside the encoding's
// reads, and leave the targets in shared memory, where the sample subgroups read them after the
// tile's last forward product. Otherwise every subgroup draws a sample and waits on its image
// read at the tile's start, before the first product, while no other work is in flight.
#ifndef CM_STAGE_TARGETS
#define CM_STAGE_TARGETS 0
#endif
#if CM_STAGE_TARGETS && !CM_STAGE_INPUTS
#error "staged targets (CM_STAGE_TARGETS) are the staging subgroups' (CM_STAGE_INPUTS)"
#endif
// (The measurements without the inputs or the MLP take none: their tiles take their own.)
#if CM_STAGE_TARGETS && !defined(ABLATE_INPUTS) && !defined(ABLATE_MLP)
#define CM_STAGED_TARGETS 1
#else
#define CM_STAGED_TARGETS 0
#endif
#if CM_SPLIT
// The kernel's own shared memory: the local gradient sums; CM_STAGE_TARGETS's targets, in two
// sets of a tile's by tile parity, and CM_STAGE_PIXELS's pixels.
#if ENC_LOCAL_CELLS
#define CM_SHARED_LOCAL_SUMS uint s_enc_local[ENC_LOCAL_WORDS];
#else
#define CM_SHARED_LOCAL_SUMS
#endif
// CM_STAGE_PIXELS (with staged targets from an image): the staging subgroups draw each sample's
// pixel a tile ahead of fetching it, while their reads are in flight, into shared memory (four
// tiles' sets, by tile & 3), where they and the late subgroups take it instead of drawing it.
#if CM_STAGED_TARGETS && !defined(EXPLICIT_SAMPLES)
#ifndef CM_STAGE_PIXELS
#define CM_STAGE_PIXELS 1
#endif
#else
#undef CM_STAGE_PIXELS
#define CM_STAGE_PIXELS 0
#endif
#if CM_STAGED_TARGETS
// A sample's target as SampleFetch holds it: explicit samples' floats, an image's words.
#ifdef EXPLICIT_SAMPLES
#define CM_TARGET_WORDS OUT_DIM
#elif defined(IMAGE_RGBA16)
#define CM_TARGET_WORDS 2
#else
#define CM_TARGET_WORDS 1
#endif
#if CM_STAGE_PIXELS
#define CM_SHARED_TARGETS uint s_target[2 * CM_TARGET_WORDS * CM_ROWS]; uint s_pixel[4 * CM_ROWS];
#define CM_PIXEL_AT(tile, row) (((tile) & 3u) * uint(CM_ROWS) + (row))
#else
#define CM_SHARED_TARGETS uint s_target[2 * CM_TARGET_WORDS * CM_ROWS];
#endif
#else
#define CM_SHARED_TARGETS
#endif
#define CM_SHARED_EXTRA CM_SHARED_LOCAL_SUMS CM_SHARED_TARGETS
#include "mlp_coopmat_split.glsl" // one tile a workgroup, its subgroups owning output columns
#else
#include "mlp_coopmat.glsl"       // one tile a subgroup
#define CM_TILE_SAMPLES WT
#define CM_ROW CM_LANE
#define CM_HOLDS_SAMPLES true
#endif
#ifndef CM_PREFETCH
#define CM_PREFETCH 1
#endif
#if ENC_LOCAL_CELLS && !CM_SPLIT
#error "local gradient sums (ENC_LOCAL_CELLS) take the portable or the shared-tile kernels"
#endif
#include "encoding_local_sums.glsl"

// A tile's inputs as loaded for this invocation's sample: loaded one tile ahead (main), so that a
// subgroup's loads of the next tile (image, encoding parameters) are in flight while it trains on
// this one instead of each tile waiting on its own (the step is short of subgroups to hide them:
// one workgroup a multiprocessor).
struct TileFetch {
    SampleFetch drawn;
    EncFetch enc;
};

// (With CM_STAGE_INPUTS the encoding's part is the staging subgroups', below: enc is unset; but
// the measurement without the MLP takes its inputs' own encoding.)
#if !CM_STAGE_INPUTS || defined(ABLATE_MLP)
#define CM_ENCODES_OWN_INPUTS 1
#else
#define CM_ENCODES_OWN_INPUTS 0
#endif
TileFetch tile_fetch(uint tile) {
    const uint s = tile * CM_TILE_SAMPLES + CM_ROW;
    TileFetch t;
#if CM_STAGED_TARGETS // the staging subgroups fetched the tile's samples (stage_tile_inputs)
    t.drawn.uv = vec2(0.0);
#else
    t.drawn = sample_fetch(CM_HOLDS_SAMPLES && s < pc.batch ? s : 0u);
#endif
#if CM_ENCODES_OWN_INPUTS
    t.enc = encode_fetch(t.drawn.uv);
#endif
    return t;
}

// The measurement's inputs (ABLATE_INPUTS): no encoding reads, terms of uv.
void ablated_inputs(vec2 uv, out float x[IN_PAD]) {
    [[unroll]] for (int i = 0; i < IN_PAD; ++i) x[i] = i < IN_DIM ? sin(uv.x * float(i + 1)) : 0.0;
}

#if CM_STAGE_PIXELS
// A staged pixel's word: its column and row, 16 bits each, where the image allows (SAMPLES_XY16,
// the host's sampling_defines), so that its readers take its uv and its index without an integer
// division, which the drawing subgroups do while their reads are in flight; else its index.
#ifdef SAMPLES_XY16
uint cm_pixel_word(uint pixel) { return ((pixel / pc.width) << 16u) | (pixel % pc.width); }
vec2 cm_pixel_uv(uint word) {
    const uint px = word & 0xffffu, py = word >> 16u;
    return COLUMN_ROW_UV(px, py);
}
SampleFetch cm_pixel_fetch(uint word) {
    SampleFetch f;
    f.uv = cm_pixel_uv(word);
    f.target = target_words((word >> 16u) * pc.width + (word & 0xffffu));
    return f;
}
#else
uint cm_pixel_word(uint pixel) { return pixel; }
vec2 cm_pixel_uv(uint word) { return pixel_uv(word); }
SampleFetch cm_pixel_fetch(uint word) { return pixel_fetch(word); }
#endif
#endif

#if CM_LATE_BACKWARD
// Late subgroups (CM_LATES): their share of the encoding's backward pass of `tile`'s sample
// CM_LATE_ROW, from the input gradients the tile's sample subgroups left (and, by share 0, its
// deferred inputs).
void late_encoding_backward(uint tile) {
    const uint s = tile * CM_TILE_SAMPLES + CM_LATE_ROW;
    if (s >= pc.batch) return;
    float dx[ENC_GRAD_DIM];
    cm_late_input_gradients(CM_LATE_ROW, LOSS_SCALE / CM_LOSS_SCALE, dx);
    if (CM_LATE_SHARE == 0u) enc_defer(s, dx);
    enc_visits = 0u;
#if CM_STAGE_PIXELS
    encode_backward(cm_pixel_uv(s_pixel[CM_PIXEL_AT(tile, CM_LATE_ROW)]), dx);
#else
    encode_backward(drawn_uv(s), dx);
#endif
}
#endif

#if CM_STAGED_TARGETS
// Word w of row `row`'s target in `tile`'s set: word-major, so a subgroup's lanes take
// consecutive words.
#define CM_TARGET_AT(tile, w, row) ((((tile) & 1u) * uint(CM_TARGET_WORDS) + uint(w)) * uint(CM_ROWS) + (row))
// Staging subgroups: their sample's target of `tile` as fetched.
void cm_put_staged_target(uint tile, SampleFetch f) {
#ifdef EXPLICIT_SAMPLES
    [[unroll]] for (int o = 0; o < OUT_DIM; ++o) s_target[CM_TARGET_AT(tile, o, CM_STAGE_ROW)] = floatBitsToUint(f.target[o]);
#else
    [[unroll]] for (int w = 0; w < CM_TARGET_WORDS; ++w) s_target[CM_TARGET_AT(tile, w, CM_STAGE_ROW)] = f.target[w];
#endif
}
// Sample subgroups: their sample's target of `tile`, as the staging subgroups left it.
void cm_staged_target(uint tile, out float target[OUT_PAD]) {
    SampleFetch f;
    f.uv = vec2(0.0); // sample_finish takes the target alone
#ifdef EXPLICIT_SAMPLES
    [[unroll]] for (int o = 0; o < OUT_DIM; ++o) f.target[o] = uintBitsToFloat(s_target[CM_TARGET_AT(tile, o, CM_ROW)]);
#else
    f.target = uvec2(0u);
    [[unroll]] for (int w = 0; w < CM_TARGET_WORDS; ++w) f.target[w] = s_target[CM_TARGET_AT(tile, w, CM_ROW)];
#endif
    sample_finish(f, target);
}
#endif
#if CM_STAGE_PIXELS
// Staging subgroups: the pixel of their sample of `tile` (outside the batch sample 0's).
void cm_draw_pixel(uint tile) {
    const uint s = tile * CM_TILE_SAMPLES + CM_STAGE_ROW;
    s_pixel[CM_PIXEL_AT(tile, CM_STAGE_ROW)] = cm_pixel_word(training_pixel(pc.step, s < pc.batch ? s : 0u));
}
#endif

#if CM_STAGE_INPUTS
// Staging subgroups (CM_STAGES): their sample of `tile`, encoded, into the staging slice (outside
// the batch sample 0's, as the sample subgroups take it); with CM_STAGE_TARGETS its target too,
// whose image read is in flight beside the encoding's.
void stage_tile_inputs(uint tile) {
    const uint s = tile * CM_TILE_SAMPLES + CM_STAGE_ROW;
#if CM_STAGE_PIXELS
    const SampleFetch fetched = cm_pixel_fetch(s_pixel[CM_PIXEL_AT(tile, CM_STAGE_ROW)]);
    const vec2 uv = fetched.uv;
    cm_draw_pixel(tile + 1u); // while the reads are in flight
#elif CM_STAGED_TARGETS
    const SampleFetch fetched = sample_fetch(s < pc.batch ? s : 0u);
    const vec2 uv = fetched.uv;
#else
    const vec2 uv = drawn_uv(s < pc.batch ? s : 0u);
#endif
    float x[IN_PAD];
#ifdef ABLATE_INPUTS
    ablated_inputs(uv, x);
#else
    encode(uv, x);
#endif
    cm_put_staged_input(tile, x);
#if CM_STAGED_TARGETS
    cm_put_staged_target(tile, fetched);
#endif
}
#endif

#if CM_STAGE_INPUTS
// The worker's tiles [x, y) (main): CM_STAGE_INPUTS stages the next one's inputs during a tile,
// CM_LATE_ENCODING takes the encoding backward pass of the one before.
uvec2 worker_tiles;
#endif

// One tile (of 32 samples for this subgroup, or shared by the workgroup's subgroups: a
// workgroup-uniform call), from its fetched inputs. Invocations that hold no sample of a shared
// tile (CM_HOLDS_SAMPLES false) take part in its products only.
void train_tile(uint tile, TileFetch fetched, inout float loss) {
    const uint s = tile * CM_TILE_SAMPLES + CM_ROW;
    const bool in_batch = CM_HOLDS_SAMPLES && s < pc.batch;
    vec2 uv = fetched.drawn.uv;
    float target[OUT_PAD];
    float x[IN_PAD];
#ifdef ABLATE_INPUTS // no image or encoding reads: uv from the sample index
    uv = drawn_uv(s);
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.25;
    ablated_inputs(uv, x);
#elif CM_STAGED_TARGETS // read after the last forward product, below
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
#else
    sample_finish(fetched.drawn, target);
#if CM_ENCODES_OWN_INPUTS
    encode_finish(uv, fetched.enc, x);
#endif
#endif
#ifdef ABLATE_MLP // no products: the outputs and the encoding's gradient straight from the inputs
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o) { cm_out[o] = x[o % IN_PAD]; cm_dact_out[o] = 1.0; }
#elif CM_STAGE_INPUTS
    cm_take_staged_inputs(tile);
    cm_forward_hidden_layers();
    // Beside the last product: the next tile's inputs, the tile before's encoding backward pass.
    if (CM_HOLDS_SAMPLES) {
        cm_forward_output();
#if CM_STAGED_TARGETS
        cm_staged_target(tile, target);
#endif
    } else if (CM_STAGES) {
        if (tile + 1u < worker_tiles.y) stage_tile_inputs(tile + 1u);
    }
#if CM_LATE_BACKWARD
    else if (tile > worker_tiles.x) late_encoding_backward(tile - 1u);
#endif
#else
    if (CM_HOLDS_SAMPLES) cm_put_input(x);
    cm_forward();
#endif

    // Deltas stay unscaled per sample: 2 / (batch * out) is applied to the fp32 sums.
    float delta[OUT_PAD];
    float sq = 0.0;
    [[unroll]] for (int o = 0; o < OUT_PAD; ++o) delta[o] = 0.0;
    [[unroll]] for (int o = 0; o < OUT_DIM; ++o) {
        float diff = cm_out[o] - target[o];
        sq += diff * diff;
        delta[o] = in_batch ? diff * cm_dact_out[o] : 0.0;
    }
#ifdef EXPLICIT_SAMPLES
    if (in_batch)
        for (int o = 0; o < OUT_DIM; ++o) sample_out[s * OUT_DIM + o] = cm_out[o];
#endif
    loss += in_batch ? sq : 0.0;
#ifndef ABLATE_MLP
    if (CM_HOLDS_SAMPLES) cm_put_output_delta(delta);
#endif
#ifndef ABLATE_BACKWARD
    float dx[ENC_GRAD_DIM];
#ifdef ABLATE_MLP
    [[unroll]] for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = delta[c % OUT_PAD] * LOSS_SCALE;
#else
    cm_backward(LOSS_SCALE / CM_LOSS_SCALE, dx);
#endif
#if !defined(ABLATE_ENCODING_BACKWARD) && !CM_LATE_BACKWARD
    if (in_batch) {
        enc_defer(s, dx);
#if CM_STAGED_TARGETS
        uv = drawn_uv(s); // drawn again here: no register held it through the tile
#endif
        encode_backward(uv, dx);
    }
#endif
#endif
}

// CM_EARLY_FRAGMENTS (the host's TrainTiling::early_fragments; shared tiles, whose weight blocks
// come from memory): a subgroup's held blocks loaded before the first tile's inputs are staged,
// their reads in flight beside those, rather than after the barrier that follows.
#ifndef CM_EARLY_FRAGMENTS
#define CM_EARLY_FRAGMENTS 0
#endif
#if CM_EARLY_FRAGMENTS && !CM_SPLIT
#error "CM_EARLY_FRAGMENTS takes the shared tiles' kernel (CM_SPLIT), whose weights are in memory"
#endif

void main() {
    enc_local_clear();
    cm_load_weights();
#if CM_EARLY_FRAGMENTS
    cm_load_weight_fragments();
#endif
#if CM_STAGE_INPUTS // the first tile's inputs, before the barrier (CM_SPLIT: a worker a workgroup)
    const uvec2 first = tile_range(gl_WorkGroupID.x, gl_NumWorkGroups.x, (pc.batch + CM_TILE_SAMPLES - 1) / CM_TILE_SAMPLES);
#if CM_STAGE_PIXELS
    if (CM_STAGES && first.x < first.y) cm_draw_pixel(first.x);
#endif
    if (CM_STAGES && first.x < first.y) stage_tile_inputs(first.x);
#endif
    barrier();
#if !CM_EARLY_FRAGMENTS
    cm_load_weight_fragments();
#endif
    const uint tiles = (pc.batch + CM_TILE_SAMPLES - 1) / CM_TILE_SAMPLES;
#if CM_SPLIT
    const uint workers = gl_NumWorkGroups.x, me = gl_WorkGroupID.x;
#else
    const uint workers = gl_NumWorkGroups.x * CM_WARPS, me = gl_WorkGroupID.x * CM_WARPS + gl_SubgroupID;
#endif
    cm_grad_begin(me);
    float loss = 0.0;
    const uvec2 mine = tile_range(me, workers, tiles);
#if CM_STAGE_INPUTS
    worker_tiles = mine;
#endif
#if CM_PREFETCH
    TileFetch next = tile_fetch(mine.x);
    for (uint tile = mine.x; tile < mine.y; ++tile) {
        const TileFetch current = next;
        if (tile + 1u < mine.y) next = tile_fetch(tile + 1u);
        train_tile(tile, current, loss);
    }
#else
    for (uint tile = mine.x; tile < mine.y; ++tile) train_tile(tile, tile_fetch(tile), loss);
#endif
#if CM_LATE_BACKWARD
    barrier(); // the last tile's input gradients are in
    if (CM_LATES && mine.x < mine.y) late_encoding_backward(mine.y - 1u);
#endif
    // The worker's row and loss partial are the optimizer's to sum: adding a workgroup's rows
    // here first, one parameter at a time, cost more than the optimizer reading them all (width 64
    // at 2^14: 20 of 49 us/step; bench/RESULTS.md).
#ifndef ABLATE_GRADIENT_ROWS
    cm_write_gradients(LOSS_SCALE / CM_LOSS_SCALE);
#endif
    cm_write_loss(loss, me);
    enc_local_flush();
}

#else // portable
#if WEIGHTS_IN_SHARED
shared float s_w[MLP_PARAMS];
#define MLP_W(i) s_w[i]
#else
#define MLP_W(i) mlp_params[i]
#endif
shared float s_act[MAX_IN][TILE + 1];   // +1: odd stride, conflict-free column reads
shared float s_delta[MAX_OUT][TILE + 1];
shared float s_loss[TILE];
#if ENC_LOCAL_CELLS
shared uint s_enc_local[ENC_LOCAL_WORDS];
#endif
#include "encoding_local_sums.glsl"
#include "mlp.glsl"

// The workgroup's partial row takes this tile's sum: written by its first tile, added to after.
#define ACCUMULATE(dst, v) dst = first ? (v) : dst + (v)

// One tile of TILE samples (workgroup-uniform call: it passes barriers).
void train_tile(uint tile, bool first) {
    const uint t = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupID.x;
    const uint s = tile * TILE + t;
    const bool in_batch = s < pc.batch;
    vec2 uv = vec2(0.5);
    float target[OUT_PAD];
    training_sample(in_batch ? s : 0u, uv, target);

    // ---- forward
    float x[IN_PAD];
    encode(uv, x);
    for (int i = 0; i < IN_PAD; ++i) mlp_act[0][i] = x[i];
    mlp_forward();

    // ---- loss
    float delta[MAXW];
    float sq = 0.0;
    for (int o = 0; o < MAXW; ++o) delta[o] = 0.0;
    for (int o = 0; o < OUT_DIM; ++o) {
        float diff = mlp_out[o] - target[o];
        sq += diff * diff;
        delta[o] = in_batch ? LOSS_SCALE * diff * mlp_dact[LAYERS][o] : 0.0;
    }
#ifdef EXPLICIT_SAMPLES
    if (in_batch)
        for (int o = 0; o < OUT_DIM; ++o) sample_out[s * OUT_DIM + o] = mlp_out[o];
#endif
    s_loss[t] = in_batch ? sq : 0.0;
    barrier();
    for (uint stride = TILE / 2; stride > 0; stride >>= 1) {
        if (t < stride) s_loss[t] += s_loss[t + stride];
        barrier();
    }
    if (t == 0) ACCUMULATE(loss_partials[wg], s_loss[0]);

    // ---- backward, last matrix first
    float dx[MAXW];
    for (int l = LAYERS; l >= 0; --l) {
        // Weight gradients of matrix l: sum over the tile of delta (x) input.
        for (int o = 0; o < OUT_L(l); ++o) s_delta[o][t] = delta[o];
        for (int i = 0; i < IN_L(l); ++i) s_act[i][t] = mlp_act[l][i];
        barrier();
        const int n_in = IN_L(l), n_out = OUT_L(l);
        const uint base = wg * uint(MLP_PARAMS);
        for (int e = int(t); e < n_out * n_in + n_out; e += TILE) {
            float sum = 0.0;
            if (e < n_out * n_in) {
                int o = e / n_in, i = e - o * n_in;
#if LOOPS_CAPPED // mlp.glsl: TILE is a multiple of 8
#define TILE_WEIGHT_TERM(j) s_delta[o][k + (j)] * s_act[i][k + (j)]
                for (int k = 0; k < TILE; k += 8) sum += MLP_SUM8(TILE_WEIGHT_TERM);
#undef TILE_WEIGHT_TERM
#else
                for (int k = 0; k < TILE; ++k) sum += s_delta[o][k] * s_act[i][k];
#endif
                ACCUMULATE(mlp_partials[base + W_OFF(l) + o * IN_PAD_L(l) + i], sum);
            } else {
                int o = e - n_out * n_in;
#if LOOPS_CAPPED
#define TILE_BIAS_TERM(j) s_delta[o][k + (j)]
                for (int k = 0; k < TILE; k += 8) sum += MLP_SUM8(TILE_BIAS_TERM);
#undef TILE_BIAS_TERM
#else
                for (int k = 0; k < TILE; ++k) sum += s_delta[o][k];
#endif
                ACCUMULATE(mlp_partials[base + B_OFF(l) + o], sum);
            }
        }
        barrier(); // the shared tile is rewritten by the next matrix

        // Input gradient of matrix l.
        if (l > 0) {
            mlp_backprop(l, delta, HIDDEN, dx);
            for (int i = 0; i < HIDDEN; ++i) delta[i] = dx[i] * mlp_dact[l - 1][i];
        } else {
            mlp_backprop(0, delta, ENC_GRAD_DIM, dx);
        }
    }

    // ---- encoding gradients
    if (in_batch) {
        float dparams[ENC_GRAD_DIM];
        for (int c = 0; c < ENC_GRAD_DIM; ++c) dparams[c] = dx[c];
        enc_defer(s, dparams);
        encode_backward(uv, dparams);
    }
}

void main() {
    enc_local_clear();
#if WEIGHTS_IN_SHARED
    for (uint i = gl_LocalInvocationID.x; i < MLP_PARAMS; i += TILE) s_w[i] = mlp_params[i];
#endif
    barrier();
    // This dispatch's tiles: [pc.first_row, pc.first_row + pc.count) (a CPU driver splits the step
    // into several dispatches, each starting at a multiple of the workgroup count: Trainer).
    const uint tiles = (pc.batch + TILE - 1) / TILE, end = min(tiles, pc.first_row + pc.count);
    const uvec2 mine = pc.first_row + tile_range(gl_WorkGroupID.x, gl_NumWorkGroups.x, end - pc.first_row);
    for (uint tile = mine.x; tile < mine.y; ++tile) {
        train_tile(tile, pc.first_row == 0u && tile == mine.x); // the group's first tile of the step
        barrier(); // the next tile rewrites the shared arrays
    }
    enc_local_flush();
}
#endif
