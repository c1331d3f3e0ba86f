// The tensor-core training step (train_step.comp with COOPMAT=1): a tile a subgroup
// (mlp_coopmat.glsl) or one tile a workgroup shared by its subgroups (mlp_coopmat_split.glsl,
// CM_SPLIT), the encoding's passes around the MLP, and the step's loop over the workgroup's tiles.
// Included once, by train_step.comp, after the bindings and the sample helpers it uses.
#define CM_TRAINING
// CM_STAGE_TARGETS (the host's TrainTiling::stage_targets; with CM_STAGE_INPUTS): the staging
// subgroups fetch the next tile's samples whole, their targets' image reads beside the encoding's
// reads, and leave the targets in shared memory, where the sample subgroups read them after the
// tile's last forward product. Otherwise every subgroup draws a sample and waits on its image
// read at the tile's start, before the first product, while no other work is in flight.
#if CM_SPLIT
// The kernel's own shared memory: the local gradient sums; CM_STAGE_TARGETS's targets, in two
// sets of a tile's by tile parity, and CM_STAGE_PIXELS's pixels.
#if ENC_LOCAL_CELLS
#define CM_SHARED_LOCAL_SUMS uint s_enc_local[ENC_LOCAL_WORDS];
#else
#define CM_SHARED_LOCAL_SUMS
#endif
// CM_STAGE_PIXELS (with staged targets from an image; tile_memory.hpp): the staging subgroups
// draw each sample's pixel a tile ahead of fetching it, while their reads are in flight, into
// shared memory (four tiles' sets, by tile & 3), where they and the late subgroups take it
// instead of drawing it.
#if CM_STAGE_TARGETS
// CM_TARGET_WORDS: a sample's target as SampleFetch holds it (explicit samples' floats, an
// image's words; tile_memory.hpp).
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
#include "encoding_local_sums.glsl"

// A tile's inputs as loaded for this invocation's sample: loaded one tile ahead (main), so that a
// subgroup's loads of the next tile (image, encoding parameters) are in flight while it trains on
// this one instead of each tile waiting on its own (the step is short of subgroups to hide them:
// one workgroup a multiprocessor).
struct TileFetch {
    SampleFetch drawn;
    EncFetch enc;
};

TileFetch tile_fetch(uint tile) {
    const uint s = tile * CM_TILE_SAMPLES + CM_ROW;
    TileFetch t;
    if (bool(CM_STAGE_TARGETS)) // the staging subgroups fetched the tile's samples (stage_tile_inputs)
        t.drawn.uv = vec2(0.0);
    else
        t.drawn = sample_fetch(CM_HOLDS_SAMPLES && s < pc.batch ? s : 0u);
    if (!bool(CM_STAGE_INPUTS)) // else the encoding's part is the staging subgroups' (below): enc is unset
        t.enc = encode_fetch(t.drawn.uv);
    return t;
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

#if CM_LATE_ENCODING
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

#if CM_STAGE_TARGETS
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
#elif CM_STAGE_TARGETS
    const SampleFetch fetched = sample_fetch(s < pc.batch ? s : 0u);
    const vec2 uv = fetched.uv;
#else
    const vec2 uv = drawn_uv(s < pc.batch ? s : 0u);
#endif
    float x[IN_PAD];
    encode(uv, x);
    cm_put_staged_input(tile, x);
#if CM_STAGE_TARGETS
    cm_put_staged_target(tile, fetched);
#endif
}
#endif

// The worker's tiles [x, y) (main): CM_STAGE_INPUTS stages the next one's inputs during a tile,
// CM_LATE_ENCODING takes the encoding backward pass of the one before.
uvec2 worker_tiles;

// One tile (of 32 samples for this subgroup, or shared by the workgroup's subgroups: a
// workgroup-uniform call), from its fetched inputs. Invocations that hold no sample of a shared
// tile (CM_HOLDS_SAMPLES false) take part in its products only.
void train_tile(uint tile, TileFetch fetched, inout float loss) {
    const uint s = tile * CM_TILE_SAMPLES + CM_ROW;
    const bool in_batch = CM_HOLDS_SAMPLES && s < pc.batch;
    vec2 uv = fetched.drawn.uv;
    float target[OUT_PAD];
    float x[IN_PAD];
    if (bool(CM_STAGE_TARGETS)) { // read after the last forward product, below
        [[unroll]] for (int o = 0; o < OUT_PAD; ++o) target[o] = 0.0;
    } else {
        sample_finish(fetched.drawn, target);
        if (!bool(CM_STAGE_INPUTS)) encode_finish(uv, fetched.enc, x);
    }
#if   CM_STAGE_INPUTS
    cm_take_staged_inputs(tile);
    cm_forward_hidden_layers();
    // Beside the last product: the next tile's inputs, the tile before's encoding backward pass.
    if (CM_HOLDS_SAMPLES) {
        cm_forward_output();
#if CM_STAGE_TARGETS
        cm_staged_target(tile, target);
#endif
    } else if (CM_STAGES) {
        if (tile + 1u < worker_tiles.y) stage_tile_inputs(tile + 1u);
    }
#if CM_LATE_ENCODING
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
    if (CM_HOLDS_SAMPLES) cm_put_output_delta(delta);
    float dx[ENC_GRAD_DIM];
    cm_backward(LOSS_SCALE / CM_LOSS_SCALE, dx);
    if (!bool(CM_LATE_ENCODING) && in_batch) {
        enc_defer(s, dx);
        if (bool(CM_STAGE_TARGETS)) uv = drawn_uv(s); // drawn again here: no register held it through the tile
        encode_backward(uv, dx);
    }
}

// With the ends by columns (shared tiles, whose weight blocks come from memory), a subgroup's held
// blocks are loaded before the first tile's inputs are staged, their reads in flight beside
// those, rather than after the barrier that follows.

void main() {
    enc_local_clear();
    cm_load_weights();
    if (bool(CM_ENDS_BY_COLUMNS)) cm_load_weight_fragments();
#if CM_STAGE_INPUTS // the first tile's inputs, before the barrier (CM_SPLIT: a worker a workgroup)
    const uvec2 first = tile_range(gl_WorkGroupID.x, gl_NumWorkGroups.x, (pc.batch + CM_TILE_SAMPLES - 1) / CM_TILE_SAMPLES);
#if CM_STAGE_PIXELS
    if (CM_STAGES && first.x < first.y) cm_draw_pixel(first.x);
#endif
    if (CM_STAGES && first.x < first.y) stage_tile_inputs(first.x);
#endif
    barrier();
    if (!bool(CM_ENDS_BY_COLUMNS)) cm_load_weight_fragments();
    const uint tiles = (pc.batch + CM_TILE_SAMPLES - 1) / CM_TILE_SAMPLES;
#if CM_SPLIT
    const uint workers = gl_NumWorkGroups.x, me = gl_WorkGroupID.x;
#else
    const uint workers = gl_NumWorkGroups.x * CM_WARPS, me = gl_WorkGroupID.x * CM_WARPS + gl_SubgroupID;
#endif
    cm_grad_begin(me);
    float loss = 0.0;
    const uvec2 mine = tile_range(me, workers, tiles);
    worker_tiles = mine;
    if (bool(CM_PREFETCH)) {
        TileFetch next = tile_fetch(mine.x);
        for (uint tile = mine.x; tile < mine.y; ++tile) {
            const TileFetch current = next;
            if (tile + 1u < mine.y) next = tile_fetch(tile + 1u);
            train_tile(tile, current, loss);
        }
    } else {
        for (uint tile = mine.x; tile < mine.y; ++tile) train_tile(tile, tile_fetch(tile), loss);
    }
#if CM_LATE_ENCODING
    barrier(); // the last tile's input gradients are in
    if (CM_LATES && mine.x < mine.y) late_encoding_backward(mine.y - 1u);
#endif
    // The worker's row and loss partial are the optimizer's to sum: adding a workgroup's rows
    // here first, one parameter at a time, stores each sum before loading the next (the same
    // buffer), which costs more than the optimizer reading them all (bench/archive/RESULTS.md,
    // "gradient rows summed by the optimizer").
    cm_write_gradients(LOSS_SCALE / CM_LOSS_SCALE);
    cm_write_loss(loss, me);
    enc_local_flush();
}

