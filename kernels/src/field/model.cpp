#include "model_layout.hpp"
#include "encoding_state.hpp"
#include "encodings/encoding.hpp"
#include "tile_memory.hpp"

#include <algorithm>
#include <charconv>
#include <cstdlib>
#include <cmath>
#include <cstdio>
#include <sstream>

namespace ff::engine {

namespace {
uint32_t round16(uint32_t n) { return (n + 15u) / 16u * 16u; }
} // namespace

uint32_t ModelConfig::input_width() const {
    const detail::EncodingDescriptor* e = nullptr;
    for (const detail::EncodingDescriptor* d : detail::all_encodings())
        if (d->kind == encoding.kind) e = d;
    return e ? e->input_width(*this) : 0u; // an unknown kind is reported by validate()
}
uint64_t ModelConfig::encoding_parameter_count() const {
    for (const detail::EncodingDescriptor* d : detail::all_encodings())
        if (d->kind == encoding.kind) return d->parameter_count(*this);
    return 0;
}
std::string model_summary(const ModelConfig& c) {
    const std::string mlp = std::to_string(c.hidden_width) + "x" + std::to_string(c.hidden_layers);
    if (c.encoding.kind == EncodingKind::coords) {
        char omega[32];
        std::snprintf(omega, sizeof omega, "%g", c.first_omega);
        return "SIREN " + mlp + " (omega " + omega + ")";
    }
    return detail::encoding_of(c).describe(c) + " + MLP " + mlp;
}
uint32_t ModelConfig::padded_input_width() const { return round16(input_width()); }
uint32_t ModelConfig::padded_output_width() const { return round16(output_dims); }

std::string ModelConfig::validate() const {
    std::ostringstream e;
    bool known = false;
    for (const detail::EncodingDescriptor* d : detail::all_encodings())
        if (d->kind == encoding.kind) {
            known = true;
            d->validate(*this, e);
        }
    if (!known) e << "unknown encoding (this build has " << detail::encoding_names() << "); ";
    if (hidden_width != 16 && hidden_width != 32 && hidden_width != 64 && hidden_width != 128)
        e << "hidden_width " << hidden_width << " must be 16, 32, 64 or 128; ";
    if (hidden_layers < 1 || hidden_layers > 8)
        e << "hidden_layers " << hidden_layers << " must be 1..8; ";
    if (output_dims < 1 || output_dims > 16)
        e << "output_dims " << output_dims << " must be 1..16; ";
    auto act_ok = [](Activation a) { return uint32_t(a) <= uint32_t(Activation::sine); };
    if (!act_ok(hidden_activation)) e << "unknown hidden_activation; ";
    if (!act_ok(output_activation)) e << "unknown output_activation; ";
    // Upper bound: beyond a few hundred the first layer's phases alias on any image.
    if (!(first_omega > 0 && first_omega <= 1000)) e << "first_omega " << first_omega << " must lie in (0, 1000]; ";
    if (!(hidden_omega > 0 && hidden_omega <= 1000)) e << "hidden_omega " << hidden_omega << " must lie in (0, 1000]; ";
    std::string s = e.str();
    if (s.size() >= 2) s.resize(s.size() - 2);
    return s;
}

uint64_t ModelConfig::parameter_count() const {
    uint64_t n = encoding_parameter_count();
    uint32_t in = input_width();
    for (uint32_t l = 0; l <= hidden_layers; ++l) {
        uint32_t out = l == hidden_layers ? output_dims : hidden_width;
        n += uint64_t(out) * in + out;
        in = hidden_width;
    }
    return n;
}
uint64_t Model::parameter_count() const { return config.parameter_count(); }

namespace {
// splitmix64: a tiny, well-mixed deterministic generator for initialisation.
struct SplitMix {
    uint64_t s;
    uint64_t next() {
        uint64_t z = (s += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }
    float uniform(float lo, float hi) { return lo + (hi - lo) * float((next() >> 40) * 0x1p-24); }
};

struct SplitMixSource : detail::UniformSource {
    SplitMix& rng;
    explicit SplitMixSource(SplitMix& r) : rng(r) {}
    float uniform(float lo, float hi) override { return rng.uniform(lo, hi); }
};
} // namespace

Model initial_model(const ModelConfig& config, uint64_t seed, float hidden_bias) {
    detail::require_valid(config);
    detail::MlpLayout L = detail::mlp_layout(config);
    Model m;
    m.config = config;
    m.mlp.assign(L.total, 0.0f);
    SplitMix rng{seed * 0x2545F4914F6CDD1Dull + 0x1234567ull};
    if (config.hidden_activation == Activation::sine) {
        // SIREN (Sitzmann et al. 2020, sec. 3.2): the first layer spans a few periods of
        // sin(first_omega * x) over the input range; later layers keep each pre-activation
        // ~ U(-pi, pi)-like through omega * U(-sqrt(6/in)/omega, +). Biases as torch's Linear.
        for (uint32_t l = 0; l < L.matrices; ++l) {
            float fan_in = float(L.in_logical[l]);
            float bound = l == 0 ? 1.0f / fan_in : std::sqrt(6.0f / fan_in) / config.hidden_omega;
            float bias_bound = 1.0f / std::sqrt(fan_in);
            for (uint32_t o = 0; o < L.out_logical[l]; ++o) {
                for (uint32_t i = 0; i < L.in_logical[l]; ++i)
                    m.mlp[L.weight_offset[l] + o * L.in_padded[l] + i] = rng.uniform(-bound, bound);
                m.mlp[L.bias_offset[l] + o] = rng.uniform(-bias_bound, bias_bound);
            }
        }
    }
    for (uint32_t l = 0; l < L.matrices && config.hidden_activation != Activation::sine; ++l) {
        // He/Kaiming uniform for ReLU-like layers (bound sqrt(6 / fan_in)); the output layer
        // uses the Xavier bound so the sigmoid starts near its linear range. Hidden ReLU biases
        // start at `hidden_bias` (kDefaultHiddenBias says why slightly positive).
        float fan_in = float(L.in_logical[l]);
        float fan_out = float(L.out_logical[l]);
        bool last = l + 1 == L.matrices;
        float bound = last ? std::sqrt(6.0f / (fan_in + fan_out)) : std::sqrt(6.0f / fan_in);
        for (uint32_t o = 0; o < L.out_logical[l]; ++o)
            for (uint32_t i = 0; i < L.in_logical[l]; ++i)
                m.mlp[L.weight_offset[l] + o * L.in_padded[l] + i] = rng.uniform(-bound, bound);
        float bias = !last && config.hidden_activation == Activation::relu ? hidden_bias : 0.0f;
        for (uint32_t o = 0; o < L.out_logical[l]; ++o) m.mlp[L.bias_offset[l] + o] = bias;
    }
    // The encoding's parameters, drawn after the MLP's from the same generator.
    m.encoding_params.resize(config.encoding_parameter_count());
    SplitMixSource source(rng);
    detail::encoding_of(config).initialise(config, source, m.encoding_params);
    return m;
}

ModelConfig siren_config(uint32_t hidden_width, uint32_t hidden_layers, float omega) {
    ModelConfig c;
    c.grid_width = c.grid_height = 0;
    c.encoding.kind = EncodingKind::coords;
    c.encoding.subcell = false;
    c.encoding.fourier_octaves = 0;
    c.hidden_width = hidden_width;
    c.hidden_layers = hidden_layers;
    c.hidden_activation = Activation::sine;
    c.output_activation = Activation::none;
    c.first_omega = omega;
    c.hidden_omega = omega;
    return c;
}

namespace detail {

MlpLayout mlp_layout(const ModelConfig& c) {
    MlpLayout L;
    L.matrices = c.hidden_layers + 1;
    uint32_t offset = 0;
    for (uint32_t l = 0; l < L.matrices; ++l) {
        bool first = l == 0, last = l + 1 == L.matrices;
        L.in_logical.push_back(first ? c.input_width() : c.hidden_width);
        L.in_padded.push_back(first ? c.padded_input_width() : c.hidden_width);
        L.out_logical.push_back(last ? c.output_dims : c.hidden_width);
        L.out_padded.push_back(last ? c.padded_output_width() : c.hidden_width);
        L.weight_offset.push_back(offset);
        offset += L.out_padded[l] * L.in_padded[l];
        L.bias_offset.push_back(offset);
        offset += L.out_padded[l];
    }
    L.total = offset;
    return L;
}

uint32_t weight_blocks(const MlpLayout& L) {
    uint32_t blocks = 0;
    for (uint32_t l = 0; l < L.matrices; ++l) blocks += L.out_padded[l] / 16 * (L.in_padded[l] / 16);
    return blocks;
}

void require_valid(const ModelConfig& config) {
    std::string why = config.validate();
    if (!why.empty()) throw EngineError("invalid model configuration: " + why);
}

TrainTiling choose_tiling(const ModelConfig& c, uint32_t max_shared, uint32_t max_invocations,
                          const KernelOverrides& o) {
    // The workgroup's shared memory (tile_memory.hpp).
    auto bytes = [&](uint32_t tile, bool weights) { return portable_tile_layout(c, tile, weights).bytes(); };
    // Largest first: fewer workgroups means fewer gradient partials to reduce. Measured on the H100
    // at batch 16,384, the largest trained fastest at equal PSNR (bench/archive/RESULTS.md,
    // "portable kernels").
    std::vector<uint32_t> tiles = {128u, 64u, 32u, 16u};
    if (o.tile) {
        if (*o.tile != 16 && *o.tile != 32 && *o.tile != 64 && *o.tile != 128)
            throw EngineError("the kernel option tile " + std::to_string(*o.tile) + " must be 16, 32, 64 or 128");
        tiles = {*o.tile};
    }
    for (bool weights : {true, false})
        for (uint32_t tile : tiles)
            if (tile <= max_invocations && bytes(tile, weights) <= max_shared) {
                TrainTiling t{tile, weights};
                t.shared_bytes = bytes(tile, weights);
                return t;
            }
    throw EngineError("the model is too wide for this device's shared memory (" +
                      std::to_string(max_shared) + " bytes)");
}

TrainTiling choose_coopmat_tiling(const ModelConfig& c, uint32_t max_shared, uint32_t max_invocations,
                                  uint32_t batch, uint32_t workgroups, bool shared_blocks,
                                  const KernelOverrides& o) {
    MlpLayout L = mlp_layout(c);
    // The workgroup's shared memory (tile_memory.hpp): the fp16 weights and fp32 biases where they
    // are in shared memory, and every subgroup's tile.
    auto bytes = [&](uint32_t tile, bool weights) {
        return subgroup_tile_layout(c, tile / 32, weights, shared_blocks).bytes();
    };
    // Each subgroup takes its own tiles; the workgroup shares the weights, and the device runs one
    // workgroup a multiprocessor (Trainer), so the most subgroups that fit is the most a
    // multiprocessor runs (more subgroups a workgroup hide more latency; a second workgroup of
    // fewer gained nothing where measured; bench/archive/RESULTS.md, "subgroups a workgroup").
    // KernelOverrides::tile asks for one (any multiple of 32 up to 256).
    std::vector<uint32_t> tiles = {128u, 96u, 64u, 32u};
    // A fifth subgroup (which fits the lake model once its outputs pass through the delta slice)
    // pays for hidden width 32 where each subgroup has many tiles to take, and costs where it has
    // few or the MLP is 16 wide (measured on the H100; bench/archive/RESULTS.md, "bias sums in
    // 16-byte words"). So: width 32 and more, where the batch gives 5 subgroups of every workgroup
    // at least 8 tiles.
    if (shared_blocks && c.hidden_width >= 32 && workgroups > 0 && uint64_t(batch) >= 8ull * 160 * workgroups)
        tiles.insert(tiles.begin(), 160u);
    const bool overridden = o.tile.has_value();
    if (o.tile) {
        if (*o.tile % 32 != 0 || *o.tile < 32 || *o.tile > 256)
            throw EngineError("the kernel option tile " + std::to_string(*o.tile) +
                              " must be a multiple of 32 from 32 to 256 on the tensor-core kernels");
        tiles = {*o.tile};
    }
    // Small ReLU MLPs (at most 8 weight blocks, which the step holds in registers) on large
    // batches: a sixth subgroup, which fits once the weights leave shared memory; the blocks then
    // come from the fp16 copy in memory, once a step for each subgroup. That load pays only where
    // each subgroup has many tiles to spread it over (a few tiles each lost on the H100; five
    // subgroups the same way lost everywhere; bench/archive/RESULTS.md, "six subgroups for small
    // MLPs on large batches"). So: from 8 tiles a subgroup.
    constexpr uint32_t kSixSubgroups = 192;
    if (!overridden && !o.weights_in_shared && shared_blocks && weight_blocks(L) <= 8 &&
        c.hidden_activation == Activation::relu && workgroups > 0 &&
        uint64_t(batch) >= 8ull * kSixSubgroups * workgroups && kSixSubgroups <= max_invocations &&
        bytes(kSixSubgroups, false) <= max_shared) {
        TrainTiling t{kSixSubgroups, false, true};
        t.shared_blocks = true;
        t.weight_fragments = o.weight_fragments.value_or(true);
        t.bias_fragments = t.weight_fragments && c.hidden_layers * (c.hidden_width / 16) <= 2;
        if (o.bias_fragments) t.bias_fragments = *o.bias_fragments && t.weight_fragments;
        t.prefetch = o.prefetch.value_or(true);
        return t;
    }
    // Where no workgroup fits its weights beside its tiles, the products read the weights from
    // device memory (an fp16 copy; mlp_coopmat.glsl) and shared memory holds the tiles alone.
    // MLPs of hidden width 64 and more take that form too: their workgroups then hold more tiles
    // in the same shared memory, which kept the tensor cores busier at every batch measured
    // (bench/archive/RESULTS.md, "width 64 reading its weights from memory").
    // KernelOverrides::weights_in_shared forces a form.
    std::vector<bool> places = {true, false};
    if (c.hidden_width >= 64) places = {false};
    if (o.weights_in_shared) places = *o.weights_in_shared ? std::vector<bool>{true, false} : std::vector<bool>{false};
    for (bool weights : places)
        for (uint32_t tile : tiles)
            if (tile <= max_invocations && bytes(tile, weights) <= max_shared) {
                // Products that read their weights from memory take longer per tile the more
                // subgroups share a multiprocessor, which pays only where each subgroup has
                // tiles to follow: two, and one more for every 32 encoding cells a sample reads
                // (an encoding that reads many keeps memory busy with fewer subgroups). Training
                // a batch that gives the `workgroups` workgroups' subgroups fewer, they run one
                // subgroup fewer, if that leaves two (the crossovers measured on the H100 for width
                // 64 on the dense grid and on the hash model; bench/archive/RESULTS.md, "the
                // encoding's gradients as fixed-point pairs").
                const uint64_t cells = encoding_of(c).cells_read(c);
                const uint64_t tiles_each = 2 + cells / 32;
                if (!overridden && !weights && tile >= 96 && batch > 0 &&
                    uint64_t(batch) < tiles_each * tile * workgroups)
                    tile -= 32;
                TrainTiling t{tile, weights, true};
                t.shared_blocks = shared_blocks;
                // Weight blocks in registers for the step (at most 8: the lake model's) cost a load
                // of every block per subgroup and step, which pays from two tiles a subgroup (with
                // one tile each it lost on the H100; bench/archive/RESULTS.md, "bias sums in
                // 16-byte words").
                t.weight_fragments =
                    weights && weight_blocks(L) <= 8 && batch > 0 && uint64_t(batch) >= 2ull * tile * workgroups;
                if (o.weight_fragments) t.weight_fragments = *o.weight_fragments && (weights || weight_blocks(L) <= 8);
                // The hidden matrices' bias rows (fp32 accumulator fragments, 8 registers a lane
                // each) held too only where they are at most two blocks: more take the registers
                // the products need (width 16's two paid, the lake model's four lost on the H100;
                // bench/archive/RESULTS.md, "the optimizer finds a step's cells from its samples").
                t.bias_fragments = t.weight_fragments && c.hidden_layers * (c.hidden_width / 16) <= 2;
                if (o.bias_fragments) t.bias_fragments = *o.bias_fragments && t.weight_fragments;
                t.prefetch = o.prefetch.value_or(true);
                return t;
            }
    return {0, false, false};
}

std::optional<TrainTiling> choose_shared_tile(const ModelConfig& c, uint32_t max_shared, uint32_t max_invocations,
                                              bool shared_blocks, uint32_t batch, uint32_t workgroups,
                                              const KernelOverrides& o) {
    // Shared tiles for widths 32 and more: a subgroup keeps only its own blocks' weights and sums
    // (mlp_coopmat_split.glsl), where a tile a subgroup needs them all. They trained faster than a
    // tile a subgroup at every batch measured on the H100 for widths 64 and 128 and the hash
    // model, and for the lake model (width 32) in two parts; in one or four parts the lake model,
    // and width 16 in any, lost (bench/archive/RESULTS.md, "shared tiles: a workgroup's subgroups
    // share one tile").
    // KernelOverrides::tile and weights_in_shared describe a tile a subgroup: set, they ask for
    // that layout (unless shared_tile says otherwise).
    const bool wanted = o.shared_tile.value_or(c.hidden_width >= 32 && !o.tile && !o.weights_in_shared);
    // Widths 64 and 128 in one part: in two, 256 or 512 invocations cap a lane's registers (width
    // 128 at 128, spilling, its weight blocks no longer held) and every batch trained slower.
    // Width 32 in three parts (six subgroups, tiles of 192) where every workgroup takes at least
    // 32 such tiles and they fit the shared memory: with the samples stratified (sampling.glsl) the
    // step waits on its subgroups' latency rather than on the cache, which more subgroups hide;
    // with fewer tiles each, two parts stay faster (bench/archive/RESULTS.md, "the step's samples
    // stratified"). The three parts do not load the next tile ahead (prefetch, below).
    // The tile's shared memory (tile_memory.hpp) without the staged parts.
    auto tile_bytes = [&](uint32_t rows, uint32_t subgroups) {
        return shared_tile_bytes(c, rows, subgroups, false, false, false);
    };
    uint32_t parts = 1;
    if (c.hidden_width == 32) {
        const uint32_t three_part_rows = 2 * c.hidden_width * 3; // six subgroups' samples
        const bool many_tiles =
            batch > 0 && workgroups > 0 && uint64_t(batch) >= 32ull * three_part_rows * workgroups;
        parts = many_tiles && tile_bytes(three_part_rows, three_part_rows / 32) <= max_shared ? 3 : 2;
    }
    if (o.row_split) {
        if (*o.row_split < 1 || *o.row_split > 8)
            throw EngineError("the kernel option row_split " + std::to_string(*o.row_split) + " must be 1..8");
        parts = *o.row_split;
    }
    const uint32_t invocations = shared_tile_invocations(c, parts);
    if (!wanted || !shared_blocks || !shared_tile_takes(c) || c.hidden_width % 16 != 0 || invocations > max_invocations)
        return std::nullopt;
    // KernelOverrides::shared_rows: a tile of at most that many samples.
    if (o.shared_rows && (*o.shared_rows % 32 != 0 || *o.shared_rows < 32 || *o.shared_rows > 1024))
        throw EngineError("the kernel option shared_rows " + std::to_string(*o.shared_rows) +
                          " must be a multiple of 32 from 32 to 1024");
    const uint32_t most_rows = std::min(invocations, o.shared_rows.value_or(invocations));
    for (uint32_t rows = most_rows; rows >= 32; rows -= 32) {
        if (!shared_tile_rows_split(rows, parts)) continue;
        const uint32_t bytes = tile_bytes(rows, invocations / 32);
        if (bytes > max_shared) continue;
        TrainTiling t{invocations, false, true};
        t.shared_bytes = bytes;
        t.shared_blocks = true;
        t.shared_tile_rows = rows;
        t.shared_tile_parts = parts;
        // The weight blocks a subgroup's products use, held for the step (width 64 on the dense
        // grid: 20 blocks, 80 registers a lane, beside 9 fragments of gradient sums): every width
        // and batch measured trained faster so than with them loaded for each phase, width 128's
        // 36 blocks included (bench/archive/RESULTS.md, "its weight blocks held at every batch").
        // The shared tile always holds them.
        t.weight_fragments = true;
        // What a subgroup holds for the step, in registers a lane: the weight blocks (4 each: the
        // first matrix's column blocks x input blocks, the hidden and last matrices' blocks for
        // both directions) and the sums (8 a fragment: the owned blocks of every matrix, the
        // bias sums). The first matrix's blocks stay held while that is at most 168 (width 64 on
        // the dense grid: 160, no local memory); the hash model's 64-wide MLP, whose 32 inputs
        // make it 184, trained faster with them loaded for each tile (H100; bench/archive/RESULTS.md,
        // "gradient replicas measured and left out").
        const uint32_t columns = c.hidden_width / 16, inputs = c.padded_input_width() / 16, middle = c.hidden_layers - 1;
        const uint32_t held = 4 * (columns * inputs + 2 * middle * columns + 2 * columns) +
                              8 * (inputs + middle * columns + columns + 1);
        t.first_weight_fragments = o.first_weight_fragments.value_or(held <= 168);
        // Width 128's 64-sample tile has 2 sample subgroups of 8: the ends of the MLP by columns
        // too.
        t.ends_by_columns = o.ends_by_columns.value_or(rows / 32 < invocations / 32);
        // There the wide phases' sums go in fp16 accumulators (16 registers a lane fewer in each
        // phase, which width 128's phases are short of), and each subgroup's held blocks are
        // loaded before the first tile's inputs are staged, beside those reads
        // (mlp_coopmat_split.glsl; bench/archive/RESULTS.md, "width 128's wide phases summed in
        // fp16").
        // The next tile's inputs encoded by the subgroups after the sample ones, which wait for
        // the last matrix's forward product anyway, into a staging slice beside the tile (where
        // it fits): the encoding's parameter loads then wait behind that product instead of ahead
        // of the tile (faster from 2^18 up on the H200, alike at 2^14; bench/archive/RESULTS.md,
        // "width 128's samples' own work beside its products").
        // The encoding's input gradients then go over slice 2 (mlp_coopmat_split.glsl), which
        // must hold them.
        const uint32_t subgroups = invocations / 32, in_pad = c.padded_input_width();
        auto fits = [&](bool stage, bool late, bool targets) {
            return shared_tile_bytes(c, rows, subgroups, stage, late, targets) <= max_shared;
        };
        t.stage_inputs = t.ends_by_columns && staging_subgroups_fit(invocations, rows) &&
                         in_pad <= (c.hidden_layers >= 2 ? c.hidden_width : 16) && fits(true, false, false) &&
                         o.stage_inputs.value_or(true);
        // ... and a tile's encoding backward pass taken by the subgroups after those during the
        // next tile's last forward product, from input gradients kept in IN_PAD columns of their
        // own (where they hold whole shares of the samples and the columns fit), so that the
        // sample subgroups do not take it after their products.
        t.late_encoding = t.stage_inputs && late_shares_whole(invocations, rows) &&
                          fits(true, true, false) && o.late_encoding.value_or(true);
        // ... and the next tile's targets fetched by the staging subgroups beside its encoding's
        // reads, from pixels they drew a tile before, in shared memory where they fit: otherwise
        // every subgroup draws a sample and waits on its image read at each tile's start, with no
        // other work in flight. Room for two tiles' targets and, from an image, four tiles'
        // pixels, counted for the widest source (shared_tile_bytes).
        t.stage_targets = t.stage_inputs && fits(true, t.late_encoding, true) && o.stage_targets.value_or(true);
        t.shared_bytes = shared_tile_bytes(c, rows, subgroups, t.stage_inputs, t.late_encoding, t.stage_targets);
        // The encoding's input gradients by rows where the sample subgroups read them at once
        // (one workgroup barrier a tile fewer); late, by columns, as every subgroup's row block
        // and with no barrier either.
        t.encoding_inputs_by_rows = t.ends_by_columns && o.encoding_inputs_by_rows.value_or(!t.late_encoding);
        // Each subgroup loads its next tile's inputs while it trains on the current one
        // (train_step.comp), but for shared tiles in three parts or more: their six subgroups hide
        // one another's loads, which the stratified samples (sampling.glsl) mostly find in the
        // cache, and the registers the next tile's inputs would hold cost more than the loads
        // they hide (in two parts prefetching stays ahead; bench/archive/RESULTS.md, "the step's
        // samples stratified"). Nor for tiles whose ends are by columns (width 128), where the
        // registers go to the products (bench/archive/RESULTS.md, "width 128's wide phases summed
        // in fp16").
        t.prefetch = o.prefetch.value_or(!(parts >= 3 || t.ends_by_columns));
        return t;
    }
    return std::nullopt;
}

Defines model_defines(const ModelConfig& c) {
    auto s = [](uint32_t v) { return std::to_string(v); };
    // Shortest text that reads back to the same float, as a GLSL float expression.
    auto f = [](float v) {
        char buffer[32];
        auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
        return "float(" + std::string(buffer, end) + ")";
    };
    const detail::EncodingDescriptor& encoding = encoding_of(c);
    Defines d = {
        {std::string(encoding.glsl_define), "1"},
        {"IN_DIM", s(c.input_width())},
        {"IN_PAD", s(c.padded_input_width())},
        {"ENC_GRAD_INPUTS", s(encoding.gradient_inputs(c))},
        {"ENC_CELL_FEATURES", s(encoding.cell_features(c))},
        // Words per cell of the encoding's training state (encoding_state.hpp, the one definition).
        {"ENC_RECORD", s(uint32_t(EncodingStateLayout{0, encoding.cell_features(c)}.record_words()))},
        // The clip of fixed-point gradient shares (encoding_state.hpp, read back by the host too).
        {"ENC_GRAD_CLIP", f(kFixedPointGradientClip)},
        {"HIDDEN", s(c.hidden_width)},
        {"LAYERS", s(c.hidden_layers)},
        {"OUT_DIM", s(c.output_dims)},
        {"OUT_PAD", s(c.padded_output_width())},
        {"HIDDEN_ACT", s(uint32_t(c.hidden_activation))},
        {"OUTPUT_ACT", s(uint32_t(c.output_activation))},
        {"FIRST_OMEGA", f(c.first_omega)},
        {"HIDDEN_OMEGA", f(c.hidden_omega)},
    };
    encoding.defines(c, d);
    return d;
}

} // namespace detail
} // namespace ff::engine
