// The portable training step (train_step.comp with COOPMAT=0): fp32 MLP in shared memory, a tile
// of TILE samples a workgroup (mlp.glsl). Included once, by train_step.comp.
#if WEIGHTS_IN_SHARED
shared float s_w[MLP_PARAMS];
#define MLP_W(i) s_w[i]
#else
#define MLP_W(i) mlp_params[i]
#endif
// The arrays' sizes come from the host (tile_memory.hpp's PortableTileLayout): the widest matrix
// input and output, TILE + 1 floats a row (an odd stride: conflict-free column reads).
shared float s_act[TILE_INPUT_ROWS][TILE_ROW_FLOATS];
shared float s_delta[TILE_DELTA_ROWS][TILE_ROW_FLOATS];
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
