#version 450
// The deferred gradient sums of a training step (the host's TrainTiling::deferred; train_step.comp's
// ENC_DEFERRED_GROUPS), dispatched between the step and the optimizer. The step left the input
// gradients of the encoding's leading groups (a hash grid's coarsest levels) in a buffer, sample
// by sample; here each workgroup takes a contiguous share of the samples, scatters those gradients
// into the groups' cells as the step would have (the same fixed-point shares: encoding_state.glsl)
// but into sums in shared memory, and adds each cell's sums to its record once at its end
// (encoding_local_sums.glsl). Integer sums are the same in any order: the gradients are the same
// bit for bit as the step's own atomics would have left them.
//
// Why apart from the step: every sample adds to one cell of each coarse level, a few hundred
// cells, so the step's atomics there are many per cell, and the training tile leaves no shared
// memory to sum them in where the MLP is wide (the 64-wide hash model's tile takes 48,400 of
// 49,152 bytes); this pass has the whole of it.
#extension GL_EXT_shader_atomic_int64 : require
#extension GL_EXT_shader_explicit_arithmetic_types_int64 : require
#extension GL_EXT_buffer_reference : require
#extension GL_EXT_buffer_reference_uvec2 : require
#extension GL_GOOGLE_include_directive : require
#extension GL_EXT_control_flow_attributes : require

#include "common.glsl"
#include "sampling.glsl"

layout(local_size_x = GROUP_SIZE) in;

// The encoding's training state (encoding_state.glsl), as 64-bit words (gradient pairs) and uints.
#ifndef ENC_STATE_BY_ADDRESS // else encoding_state.glsl reaches it by address
layout(std430, binding = 0) buffer EncodingStatePairs { uint64_t enc_state_u64[]; };
layout(std430, binding = 1) buffer EncodingStateBits { uint enc_state_u[]; };
#endif
layout(std430, binding = 2) readonly buffer DeferredInputs { uint enc_deferred[]; };
#ifdef EXPLICIT_SAMPLES
layout(std430, binding = 3) readonly buffer SampleUv { vec2 sample_uv[]; };
#endif

#define ENC_ADDS_GRADIENTS
#include "encoding_state.glsl"
#include "encoding_deferred_inputs.glsl"

// The groups are summed a set at a time (the host's Deferred::set_*: each set's cells fit the
// shared memory), set s being groups [set_group_end[s - 1], set_group_end[s]), their cells and
// inputs likewise (set -1 ending at 0).
const uint set_group_end[ENC_DEFERRED_SETS] = uint[](ENC_DEFERRED_SET_GROUPS);
const uint set_cell_end[ENC_DEFERRED_SETS] = uint[](ENC_DEFERRED_SET_CELLS);
const uint set_input_end[ENC_DEFERRED_SETS] = uint[](ENC_DEFERRED_SET_INPUTS);
uint set_first_group, set_end_group, set_first_cell, set_cell_count; // the set being summed

// The sums of the set being summed, in the shared memory that the largest set fills.
#define ENC_LOCAL_CELLS ENC_DEFERRED_MOST_CELLS
#define ENC_LOCAL_WORDS (ENC_LOCAL_CELLS * ENC_CELL_FEATURES)
#define ENC_LOCAL_BASE set_first_cell
#define ENC_LOCAL_COUNT set_cell_count
shared uint s_enc_local[ENC_LOCAL_WORDS];
#include "encoding_local_sums.glsl"

void deferred_cell_grad(uint cell, uint group, float g[ENC_CELL_FEATURES]) {
    int q[ENC_CELL_FEATURES];
    enc_grad_fixed_shares(group, g, q);
    enc_local_add(cell - set_first_cell, q);
}
#define ENC_CELL_GRAD(cell, group, g) deferred_cell_grad(cell, group, g)
#define ENC_DEFERRED_PASS
// encode_backward takes the groups of the set being summed (encoding.glsl).
bool enc_deferred_pass_takes(uint group) { return group >= set_first_group && group < set_end_group; }
#define ENC_LEVEL_LOOP [[unroll]] // the levels' tables and dx indexed by constants: registers, not local memory
// encode() is compiled with the encoding but never called here: its parameters are not bound.
#define ENC_PARAM(i) 0.0
#include "encoding.glsl"

void main() {
    // This workgroup's samples: a contiguous share, sizes differing by at most one.
    const uint workers = gl_NumWorkGroups.x, me = gl_WorkGroupID.x;
    const uint share = pc.batch / workers, extra = pc.batch % workers;
    const uint first = me * share + min(me, extra), end = first + share + (me < extra ? 1u : 0u);
    [[unroll]] for (uint set = 0u; set < uint(ENC_DEFERRED_SETS); ++set) {
        set_first_group = set == 0u ? 0u : set_group_end[set - 1u];
        set_end_group = set_group_end[set];
        set_first_cell = set == 0u ? 0u : set_cell_end[set - 1u];
        set_cell_count = set_cell_end[set] - set_first_cell;
        const uint first_input = set == 0u ? 0u : set_input_end[set - 1u], end_input = set_input_end[set];
        if (set > 0u) barrier(); // the last set's flush read the sums
        enc_local_clear();
        barrier();
        for (uint s = first + gl_LocalInvocationIndex; s < end; s += gl_WorkGroupSize.x) {
#ifdef EXPLICIT_SAMPLES
            const vec2 uv = sample_uv[s];
#else
            const vec2 uv = pixel_uv(training_pixel(pc.step, s));
#endif
            float dx[ENC_GRAD_DIM];
            [[unroll]] for (int d = 0; d < ENC_GRAD_DIM; ++d)
                dx[d] = uint(d) >= first_input && uint(d) < end_input ? enc_deferred_input(s, d) : 0.0;
            encode_backward(uv, dx);
        }
        enc_local_flush();
    }
}
