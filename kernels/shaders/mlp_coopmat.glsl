// The MLP on tensor cores through GL_NV_cooperative_matrix: fp16 operands, fp32 accumulation, one
// workgroup of TILE invocations (one sample each, TILE / 32 subgroups) per tile of samples. The
// encoding, RNG, loss and optimizers are the portable path's; only the MLP body lives here.
//
// Shared memory holds the tile's activations feature-major ("slices": column c of the tile is
// s_slice[c * TS + sample]), so each invocation touches its own sample with conflict-free strides and
// the same memory serves as the row-major or column-major operand of every product:
//   slice 0            inputs of matrix 0 (IN_PAD wide, written by the encoding)
//   slice l (1..L)     outputs of matrix l-1 after the activation = inputs of matrix l (HIDDEN wide)
//   slice L+1          dLoss/dz at the outputs of the last matrix (OUT_PAD wide)
// Backward runs in place: once matrix l's weight gradient is taken, its input slice l is free and
// receives dLoss/d(input), which the activation derivative turns into the delta of matrix l-1.
// The last matrix's pre-activations stay fp32 (s_out) so the prediction keeps full precision.
//
// Gradient range: deltas travel in fp16 as (y - t) * act'(z) * CM_LOSS_SCALE, the per-sample error
// times a constant (2^7) that lifts small errors out of fp16's subnormal range; the 2 / (batch * out)
// mean-squared-error factor and 1 / CM_LOSS_SCALE are applied in fp32 to the accumulated sums
// (weight and bias gradients, grid gradients). Products accumulate in fp32; max |delta| at the
// output is 0.25 * 2^7 = 32 for a sigmoid, far inside fp16's 65504.
//
// The including kernel declares `mlp_params` (fp32 master weights, readable) and, for training,
// `mlp_partials`; it enables GL_NV_cooperative_matrix, GL_KHR_memory_scope_semantics,
// GL_EXT_shader_explicit_arithmetic_types_float16, GL_KHR_shader_subgroup_{basic,arithmetic} and
// GL_EXT_control_flow_attributes (layer loops are unrolled so per-layer register arrays stay in
// registers).
#ifndef FF_MLP_COOPMAT_GLSL
#define FF_MLP_COOPMAT_GLSL

#if (TILE % 32) != 0 || (IN_PAD % 16) != 0 || (HIDDEN % 16) != 0 || (OUT_PAD % 16) != 0
#error "the cooperative-matrix MLP needs TILE % 32 == 0 and 16-aligned widths"
#endif

#define CM_H fcoopmatNV<16, gl_ScopeSubgroup, 16, 16>
#define CM_F fcoopmatNV<32, gl_ScopeSubgroup, 16, 16>
#define CM_LOSS_SCALE 128.0

#define TS (TILE + 8) // fp16 slice stride: a multiple of 8 halves keeps every 16x16 block 16-byte aligned
#define OS (TILE + 4) // fp32 output stride, likewise
#define SLICE_COL(l) ((l) == 0 ? 0 : IN_PAD + ((l) - 1) * HIDDEN)
#define SLICE_COLS (IN_PAD + LAYERS * HIDDEN + OUT_PAD)
#define ROW_BLOCKS (TILE / 16)

shared float16_t s_w16[MLP_PARAMS];          // fp16 copy of the weights (biases stay fp32)
shared float16_t s_slice[SLICE_COLS * TS];
shared float s_out[OUT_PAD * OS];             // last matrix's output, fp32
shared float s_subgroup_sum[TILE / 16];       // one loss sum per subgroup (subgroups >= 16 wide)

#ifdef CM_TRAINING
// Per invocation, d act / d z at each matrix's outputs, kept for the backward pass. Hidden ReLU
// layers keep one bit per unit (z > 0) instead of a float: at width 64 the float arrays alone
// were 3 x 64 registers per invocation, which spilled and cut occupancy.
#define CM_RELU_MASKS (HIDDEN_ACT == ACT_RELU)
#if CM_RELU_MASKS
uint cm_relu_mask[LAYERS][(HIDDEN + 31) / 32];
#else
float cm_dact_hidden[LAYERS][HIDDEN];
#endif
float cm_dact_out[OUT_PAD];
#endif
float cm_out[OUT_PAD];         // per invocation: the network output

void cm_load_weights(uint t) {
    for (uint i = t; i < MLP_PARAMS; i += TILE) s_w16[i] = float16_t(mlp_params[i]);
}

void cm_put_input(uint t, float x[IN_PAD]) {
    for (int i = 0; i < IN_PAD; ++i) s_slice[i * TS + t] = float16_t(x[i]);
}

// Pre-activations of matrix l for the whole tile: X_l (slice l) times W_l^T.
void cm_matmul_forward(int l) {
    const uint KB = IN_PAD_L(l) / 16, NB = OUT_PAD_L(l) / 16;
    for (uint job = gl_SubgroupID; job < ROW_BLOCKS * NB; job += gl_NumSubgroups) {
        uint r0 = (job % ROW_BLOCKS) * 16, n0 = (job / ROW_BLOCKS) * 16;
        CM_F acc = CM_F(0.0);
        for (uint kb = 0; kb < KB; ++kb) {
            CM_H a, b;
            coopMatLoadNV(a, s_slice, (SLICE_COL(l) + kb * 16) * TS + r0, TS, true);
            coopMatLoadNV(b, s_w16, W_OFF(l) + n0 * IN_PAD_L(l) + kb * 16, IN_PAD_L(l), true);
            acc = coopMatMulAddNV(a, b, acc);
        }
        if (l < LAYERS) coopMatStoreNV(CM_H(acc), s_slice, (SLICE_COL(l + 1) + n0) * TS + r0, TS, true);
        else coopMatStoreNV(acc, s_out, n0 * OS + r0, OS, true);
    }
}

// Bias + activation for this invocation's sample, in place (hidden) or into cm_out (last matrix).
void cm_activate(int l, uint t) {
    const int kind = l == LAYERS ? OUTPUT_ACT : HIDDEN_ACT;
    [[unroll]] for (int o = 0; o < OUT_L(l); ++o) {
        uint idx = (SLICE_COL(l + 1) + o) * TS + t;
        float z = mlp_params[B_OFF(l) + o] + (l < LAYERS ? float(s_slice[idx]) : s_out[o * OS + t]);
        const float omega = OMEGA_L(l);
        z *= omega;
        float y = act_apply(kind, z);
#ifdef CM_TRAINING
        if (l == LAYERS) cm_dact_out[o] = omega * act_derivative(kind, z, y);
#if CM_RELU_MASKS
        else if (z > 0.0) cm_relu_mask[l][o / 32] |= 1u << (o % 32);
#else
        else cm_dact_hidden[l][o] = omega * act_derivative(kind, z, y);
#endif
#endif
        if (l < LAYERS) s_slice[idx] = float16_t(y);
        else cm_out[o] = y;
    }
}

// Slice 0 must be written and a barrier passed. Leaves every layer's input in its slice.
void cm_forward(uint t) {
#if defined(CM_TRAINING) && CM_RELU_MASKS
    [[unroll]] for (int l = 0; l < LAYERS; ++l)
        [[unroll]] for (int w = 0; w < (HIDDEN + 31) / 32; ++w) cm_relu_mask[l][w] = 0u;
#endif
    [[unroll]] for (int l = 0; l < MATRICES; ++l) {
        cm_matmul_forward(l);
        barrier();
        cm_activate(l, t);
        barrier();
    }
}

// delta: this sample's (y - t) * act'(z) per output (zero past OUT_DIM and outside the batch).
void cm_put_output_delta(uint t, float delta[OUT_PAD]) {
    for (int o = 0; o < OUT_PAD; ++o)
        s_slice[(SLICE_COL(LAYERS + 1) + o) * TS + t] = float16_t(delta[o] * CM_LOSS_SCALE);
}

// Sum over the workgroup of one value per invocation (call from uniform control flow; the result
// is valid in invocation 0).
float cm_workgroup_sum(float v) {
    float s = subgroupAdd(v);
    if (subgroupElect()) s_subgroup_sum[gl_SubgroupID] = s;
    barrier();
    float total = 0.0;
    if (gl_LocalInvocationID.x == 0)
        for (uint g = 0; g < gl_NumSubgroups; ++g) total += s_subgroup_sum[g];
    return total;
}

#ifdef CM_TRAINING
// Weight and bias gradients of matrix l over the tile (delta^T X_l, sum of delta), added to this
// workgroup's partial row at `base` (which its first tile starts from zero). The row holds the
// plain sums until the group's last tile, which multiplies them by `scale` once. The earlier sums
// are the multiply-add's accumulator, so no cooperative-matrix addition is needed: SPIRV-Tools'
// folder in Debian 12 crashes on an OpFAdd of two cooperative matrices.
void cm_weight_gradients(int l, uint base, float scale, bool first, bool last) {
    const uint OB = OUT_PAD_L(l) / 16, IB = IN_PAD_L(l) / 16;
    for (uint job = gl_SubgroupID; job < OB * IB; job += gl_NumSubgroups) {
        uint o0 = (job % OB) * 16, i0 = (job / OB) * 16;
        const uint at = base + W_OFF(l) + o0 * IN_PAD_L(l) + i0;
        CM_F acc = CM_F(0.0);
        if (!first) coopMatLoadNV(acc, mlp_partials, at, IN_PAD_L(l), false);
        for (uint kb = 0; kb < ROW_BLOCKS; ++kb) {
            CM_H a, b;
            coopMatLoadNV(a, s_slice, (SLICE_COL(l + 1) + o0) * TS + kb * 16, TS, false); // delta^T
            coopMatLoadNV(b, s_slice, (SLICE_COL(l) + i0) * TS + kb * 16, TS, true);      // X_l
            acc = coopMatMulAddNV(a, b, acc);
        }
        if (last) acc = acc * scale;
        coopMatStoreNV(acc, mlp_partials, at, IN_PAD_L(l), false);
    }
    for (uint o = gl_SubgroupID; o < OUT_L(l); o += gl_NumSubgroups) {
        float s = 0.0;
        for (uint k = gl_SubgroupInvocationID; k < TILE; k += gl_SubgroupSize)
            s += float(s_slice[(SLICE_COL(l + 1) + o) * TS + k]);
        s = subgroupAdd(s);
        if (subgroupElect()) {
            const uint at = base + B_OFF(l) + o;
            const float sum = first ? s : mlp_partials[at] + s;
            mlp_partials[at] = last ? sum * scale : sum;
        }
    }
}

// dLoss/d(input of matrix l) = delta W_l for the first in_blocks * 16 inputs, written over slice l
// (fp16, still carrying CM_LOSS_SCALE). Slice l must no longer be needed (weight gradient taken).
void cm_input_gradients(int l, uint in_blocks) {
    const uint OB = OUT_PAD_L(l) / 16;
    for (uint job = gl_SubgroupID; job < ROW_BLOCKS * in_blocks; job += gl_NumSubgroups) {
        uint r0 = (job % ROW_BLOCKS) * 16, i0 = (job / ROW_BLOCKS) * 16;
        CM_F acc = CM_F(0.0);
        for (uint ob = 0; ob < OB; ++ob) {
            CM_H a, b;
            coopMatLoadNV(a, s_slice, (SLICE_COL(l + 1) + ob * 16) * TS + r0, TS, true);   // delta
            coopMatLoadNV(b, s_w16, W_OFF(l) + ob * 16 * IN_PAD_L(l) + i0, IN_PAD_L(l), false); // W_l
            acc = coopMatMulAddNV(a, b, acc);
        }
        coopMatStoreNV(CM_H(acc), s_slice, (SLICE_COL(l) + i0) * TS + r0, TS, true);
    }
}

// Backward over the tile after cm_put_output_delta (and a barrier). `grad_scale` turns the scaled
// per-sample deltas into the loss's gradient. Returns this sample's dLoss/d(encoding input) for
// the first ENC_GRAD_DIM inputs, fp32, unscaled.
void cm_backward(uint t, uint base, float grad_scale, bool first, bool last,
                 out float dx[ENC_GRAD_DIM]) {
    [[unroll]] for (int l = LAYERS; l >= 0; --l) {
        cm_weight_gradients(l, base, grad_scale, first, last);
        barrier();
        cm_input_gradients(l, l > 0 ? uint(IN_PAD_L(l) / 16) : uint((ENC_GRAD_DIM + 15) / 16));
        barrier();
        if (l > 0) {
            [[unroll]] for (int i = 0; i < HIDDEN; ++i) {
                uint idx = (SLICE_COL(l) + i) * TS + t;
#if CM_RELU_MASKS
                const float d = (cm_relu_mask[l - 1][i / 32] & (1u << (i % 32))) != 0u ? OMEGA_L(l - 1) : 0.0;
#else
                const float d = cm_dact_hidden[l - 1][i];
#endif
                s_slice[idx] = float16_t(float(s_slice[idx]) * d);
            }
            barrier();
        }
    }
    for (int c = 0; c < ENC_GRAD_DIM; ++c) dx[c] = float(s_slice[c * TS + t]) * grad_scale;
}
#endif

#endif
