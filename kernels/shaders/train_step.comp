#version 450
// One training step, fused: draw samples (counter-based RNG), fetch targets, encode, forward, MSE
// loss, backward. Persistent workgroups: a fixed number of workgroups (at most one per tile, see
// Trainer) loop over the batch's tiles of TILE samples, so memory and the final reduction do not
// grow with the batch. Weight gradients are reduced over each tile and accumulated into the
// workgroup's own partial row (no atomics; summed deterministically by optimizer.comp); encoding
// gradients are scattered with float atomics, and each cell the step touches is listed once for
// the optimizer (optimizer.comp), whose cost then follows the batch, not the grid.
// With EXPLICIT_SAMPLES the uvs and targets come from buffers and outputs are written (tests).
// COOPMAT=1 runs the MLP body on tensor cores (mlp_coopmat.glsl); everything else is shared.
#ifndef COOPMAT
#define COOPMAT 0
#endif
#extension GL_EXT_shader_atomic_float : require
#extension GL_GOOGLE_include_directive : require
#extension GL_KHR_shader_subgroup_basic : require
#extension GL_KHR_shader_subgroup_ballot : require
#if COOPMAT
#extension GL_NV_cooperative_matrix : require
#extension GL_KHR_memory_scope_semantics : require
#extension GL_EXT_shader_explicit_arithmetic_types_float16 : require
#extension GL_KHR_shader_subgroup_arithmetic : require
#extension GL_EXT_control_flow_attributes : require
#endif

#include "common.glsl"
#include "sampling.glsl"

#ifndef TILE
#error "TILE (samples per workgroup) must be defined"
#endif
layout(local_size_x = TILE) in;

layout(std430, binding = 0) readonly buffer MlpParams { float mlp_params[]; };
layout(std430, binding = 1) readonly buffer EncodingParams { float enc_params[]; };
layout(std430, binding = 2) buffer EncodingGrad { float enc_grad[]; };
layout(std430, binding = 3) buffer EncodingTouched { uint enc_touched[]; };
layout(std430, binding = 4) buffer MlpPartials { float mlp_partials[]; };
layout(std430, binding = 5) buffer LossPartials { float loss_partials[]; };
#ifdef EXPLICIT_SAMPLES
layout(std430, binding = 6) readonly buffer SampleUv { vec2 sample_uv[]; };
layout(std430, binding = 7) readonly buffer SampleTarget { float sample_target[]; };
layout(std430, binding = 8) writeonly buffer SampleOut { float sample_out[]; };
#else
// RGBA8 (one uint a pixel), or RGBA16 (two: RG, BA) for sources deeper than 8 bits.
layout(std430, binding = 6) readonly buffer Image { uint image_rgba[]; };
#if OUT_DIM != 3
#error "training on an image needs OUT_DIM == 3"
#endif
#endif

#define ENC_PARAM(i) enc_params[i]
#define ENC_GRAD_ADD(i, v) atomicAdd(enc_grad[i], v)
// The touched buffer: per encoding cell the Adam step that last touched it, two list lengths
// (alternate steps use alternate ones, so the optimizer can reset the next step's), then the list
// of the cells this step touched.
#ifndef TOUCH_LIST
#define TOUCH_LIST 1
#endif
void enc_touch(uint cell) {
    const uint t = pc.step + 1u;
#if !TOUCH_LIST
    enc_touched[cell] = t; // eager dense Adam visits every cell and needs only this step's mark
#else
    const bool first = atomicExchange(enc_touched[cell], t) != t;
    // One list-length atomic per subgroup rather than per cell: tens of thousands of cells a step
    // on one counter would be served one at a time.
    const uvec4 firsts = subgroupBallot(first);
    const uint n = subgroupBallotBitCount(firsts);
    if (n == 0u) return;
    uint base = 0u;
    if (subgroupElect()) base = atomicAdd(enc_touched[pc.cells + (pc.step & 1u)], n);
    base = subgroupBroadcastFirst(base);
    if (first) enc_touched[pc.cells + 2u + base + subgroupBallotExclusiveBitCount(firsts)] = cell;
#endif
}
#define ENC_TOUCH(cell) enc_touch(cell)
#include "encoding.glsl"

#if COOPMAT
#define CM_TRAINING
#include "mlp_coopmat.glsl"
#else
#if WEIGHTS_IN_SHARED
shared float s_w[MLP_PARAMS];
#define MLP_W(i) s_w[i]
#else
#define MLP_W(i) mlp_params[i]
#endif
shared float s_act[MAX_IN][TILE + 1];   // +1: odd stride, conflict-free column reads
shared float s_delta[MAX_OUT][TILE + 1];
shared float s_loss[TILE];
#include "mlp.glsl"
#endif

// The workgroup's partial row takes this tile's sum: written by its first tile, added to after.
#define ACCUMULATE(dst, v) dst = first ? (v) : dst + (v)

// One tile of TILE samples (workgroup-uniform call: it passes barriers).
void train_tile(uint tile, bool first, bool last) {
    const uint t = gl_LocalInvocationID.x;
    const uint wg = gl_WorkGroupID.x;
    const uint s = tile * TILE + t;
    const bool in_batch = s < pc.batch;

    // ---- sample and target
    vec2 uv = vec2(0.5);
    float target[OUT_PAD];
    for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
    if (in_batch) {
#ifdef EXPLICIT_SAMPLES
        uv = sample_uv[s];
        for (int o = 0; o < OUT_DIM; ++o) target[o] = sample_target[s * OUT_DIM + o];
#else
        const uint pixel = training_pixel(pc.step, s);
        uv = pixel_uv(pixel);
#ifdef IMAGE_RGBA16
        vec2 rg = unpackUnorm2x16(image_rgba[2 * pixel]), ba = unpackUnorm2x16(image_rgba[2 * pixel + 1]);
        target[0] = rg.x; target[1] = rg.y; target[2] = ba.x;
#else
        vec4 rgba = unpackUnorm4x8(image_rgba[pixel]);
        target[0] = rgba.r; target[1] = rgba.g; target[2] = rgba.b;
#endif
#endif
    }

    // ---- forward
    float x[IN_PAD];
    encode(uv, x);
#if COOPMAT
    cm_put_input(t, x);
    barrier();
    cm_forward(t);
#define NET_OUT(o) cm_out[o]
#define NET_DACT_OUT(o) cm_dact_out[o]
#else
    for (int i = 0; i < IN_PAD; ++i) mlp_act[0][i] = x[i];
    mlp_forward();
#define NET_OUT(o) mlp_out[o]
#define NET_DACT_OUT(o) mlp_dact[LAYERS][o]
#endif

    // ---- loss: mean over the batch and the output channels of the squared error
    // (the coopmat path leaves the 2 / (batch * out) factor to the fp32 sums: see mlp_coopmat.glsl)
    float delta[MAXW];
    float sq = 0.0;
    const float scale = 2.0 / float(pc.batch * OUT_DIM);
#if COOPMAT
    const float delta_scale = 1.0;
#else
    const float delta_scale = scale;
#endif
    for (int o = 0; o < MAXW; ++o) delta[o] = 0.0;
    for (int o = 0; o < OUT_DIM; ++o) {
        float diff = NET_OUT(o) - target[o];
        sq += diff * diff;
        delta[o] = in_batch ? delta_scale * diff * NET_DACT_OUT(o) : 0.0;
    }
#ifdef EXPLICIT_SAMPLES
    if (in_batch)
        for (int o = 0; o < OUT_DIM; ++o) sample_out[s * OUT_DIM + o] = NET_OUT(o);
#endif
#if COOPMAT
    float out_delta[OUT_PAD];
    for (int o = 0; o < OUT_PAD; ++o) out_delta[o] = delta[o];
    cm_put_output_delta(t, out_delta);
    float tile_loss = cm_workgroup_sum(in_batch ? sq : 0.0); // its barrier also publishes the deltas
    if (t == 0) ACCUMULATE(loss_partials[wg], tile_loss);
    float dx[ENC_GRAD_DIM];
    cm_backward(t, wg * uint(MLP_PARAMS), scale / CM_LOSS_SCALE, first, last, dx);
#else
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
                for (int k = 0; k < TILE; ++k) sum += s_delta[o][k] * s_act[i][k];
                ACCUMULATE(mlp_partials[base + W_OFF(l) + o * IN_PAD_L(l) + i], sum);
            } else {
                int o = e - n_out * n_in;
                for (int k = 0; k < TILE; ++k) sum += s_delta[o][k];
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
#endif

    // ---- encoding gradients
    if (in_batch) {
        float dparams[ENC_GRAD_DIM];
        for (int c = 0; c < ENC_GRAD_DIM; ++c) dparams[c] = dx[c];
        encode_backward(uv, dparams);
    }
}

void main() {
#if COOPMAT
    cm_load_weights(gl_LocalInvocationID.x);
#elif WEIGHTS_IN_SHARED
    for (uint i = gl_LocalInvocationID.x; i < MLP_PARAMS; i += TILE) s_w[i] = mlp_params[i];
#endif
    barrier();
    const uint tiles = (pc.batch + TILE - 1) / TILE;
    for (uint tile = gl_WorkGroupID.x; tile < tiles; tile += gl_NumWorkGroups.x) {
        train_tile(tile, tile == gl_WorkGroupID.x, tile + gl_NumWorkGroups.x >= tiles);
        barrier(); // the next tile rewrites the shared arrays
    }
}
