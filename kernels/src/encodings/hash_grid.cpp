// The multiresolution hash encoding (Instant-NGP, Mueller et al. 2022) in 2D: `levels` grids of
// growing resolution, each with a table of `features`-wide rows, sampled bilinearly and
// concatenated. Coarse levels whose vertices fit the table index it densely (no collisions); finer
// ones hash. Shader: kernels/shaders/encoding_hash_grid.glsl.
#include "encoding.hpp"
#include "hash_grid.hpp"

#include <algorithm>
#include <cmath>

namespace ff::engine::detail {

namespace {
constexpr uint32_t kMaxLevels = 32;
constexpr uint32_t kMaxInputs = 64; // levels x features: the MLP's first matrix stays small
constexpr uint64_t kMaxParams = 1ull << 28; // 1 GiB of fp32 parameters
constexpr uint32_t kPrime = 2654435761u;
} // namespace

std::vector<HashLevel> hash_levels(const HashGridConfig& h) {
    std::vector<HashLevel> levels;
    const uint64_t table = 1ull << std::min(h.log2_table_size, 31u);
    uint64_t offset = 0;
    for (uint32_t l = 0; l < std::min(h.levels, kMaxLevels); ++l) {
        double res = std::floor(double(h.base_resolution) * std::pow(double(h.per_level_scale), double(l)));
        HashLevel level;
        level.resolution = uint32_t(std::min(res, double(1u << 30)));
        uint64_t vertices = (uint64_t(level.resolution) + 1) * (uint64_t(level.resolution) + 1);
        level.dense = vertices <= table;
        level.entries = uint32_t(level.dense ? vertices : table);
        level.offset = offset;
        offset += level.entries;
        levels.push_back(level);
    }
    return levels;
}

uint32_t hash_row(const HashLevel& level, const HashGridConfig& h, uint32_t x, uint32_t y) {
    if (level.dense) return y * (level.resolution + 1) + x;
    return (x ^ (y * kPrime)) & ((1u << h.log2_table_size) - 1u);
}

namespace {

uint32_t input_width(const ModelConfig& c) { return c.encoding.hash.levels * c.encoding.hash.features; }
uint64_t cells(const ModelConfig& c) {
    auto levels = hash_levels(c.encoding.hash);
    return levels.empty() ? 0 : levels.back().offset + levels.back().entries;
}
uint32_t cell_features(const ModelConfig& c) { return c.encoding.hash.features; }
uint32_t cells_read(const ModelConfig& c) { return 4 * c.encoding.hash.levels; } // bilinear, per level
// The levels' geometric mean: a subgroup's samples a few of the finest level's cells apart still
// share the coarse levels' cells, and a few of the coarsest apart share little in the cache. On
// the H200 the 16-level model (resolutions 16-818) trained with its samples 3 cells of the mean
// (114) apart at 2^18 / 2^20 / 2^22 in 235.6 / 790.4 / 3,071 us/step, 3 of the finest apart in
// 256.7 / 868.1 / 3,243, at 2^20 4 of the coarsest apart in 821.4 (bench/archive/RESULTS.md, "the
// step's samples stratified").
uint32_t cells_across(const ModelConfig& c) {
    const std::vector<HashLevel> levels = hash_levels(c.encoding.hash);
    if (levels.empty()) return 0;
    double log_sum = 0;
    for (const HashLevel& level : levels) log_sum += std::log(double(std::max(level.resolution, 1u)));
    return uint32_t(std::lround(std::exp(log_sum / double(levels.size()))));
}

uint64_t group_cells(const ModelConfig& c, uint64_t row) { // the row's level's rows
    for (const HashLevel& level : hash_levels(c.encoding.hash))
        if (row < level.offset + level.entries) return level.entries;
    return 1;
}

uint32_t group_inputs(const ModelConfig& c, uint32_t levels) { return levels * c.encoding.hash.features; }

void validate(const ModelConfig& c, std::ostringstream& e) {
    const HashGridConfig& h = c.encoding.hash;
    if (c.grid_width != 0 || c.grid_height != 0)
        e << "grid size " << c.grid_width << "x" << c.grid_height
          << " must be 0x0 with the hash_grid encoding (its size is levels and table size); ";
    if (h.levels < 1 || h.levels > kMaxLevels) e << "hash levels " << h.levels << " must be 1.." << kMaxLevels << "; ";
    if (h.features != 1 && h.features != 2 && h.features != 4 && h.features != 8)
        e << "hash features " << h.features << " must be 1, 2, 4 or 8; ";
    if (h.levels * h.features > kMaxInputs)
        e << "hash levels x features = " << h.levels * h.features << " must be at most " << kMaxInputs << "; ";
    if (h.log2_table_size < 10 || h.log2_table_size > 24)
        e << "hash log2_table_size " << h.log2_table_size << " must be 10..24; ";
    if (h.base_resolution < 2 || h.base_resolution > 65536)
        e << "hash base_resolution " << h.base_resolution << " must be 2..65536; ";
    if (!(h.per_level_scale >= 1.0f && h.per_level_scale <= 4.0f))
        e << "hash per_level_scale " << h.per_level_scale << " must lie in [1, 4]; ";
    else if (h.levels >= 1 && h.levels <= kMaxLevels && h.base_resolution >= 2 && h.base_resolution <= 65536) {
        double finest = std::floor(h.base_resolution * std::pow(double(h.per_level_scale), h.levels - 1.0));
        if (finest > double(1u << 24))
            e << "hash finest resolution " << finest << " exceeds 2^24 (fewer levels or a smaller scale); ";
        else if (h.features >= 1 && h.features <= 8 && cells(c) * h.features > kMaxParams)
            e << "hash table of " << cells(c) * h.features << " parameters exceeds 2^28; ";
    }
}

// Instant-NGP's initialisation: U(-1e-4, 1e-4), so the MLP first sees an almost constant input
// and the table learns the detail.
void initialise(const ModelConfig&, UniformSource& rng, std::vector<float>& params) {
    for (float& p : params) p = rng.uniform(-1e-4f, 1e-4f);
}

void defines(const ModelConfig& c, Defines& d) {
    const HashGridConfig& h = c.encoding.hash;
    std::string res, offset, dense;
    for (const HashLevel& l : hash_levels(h)) {
        const char* sep = res.empty() ? "" : ",";
        res += sep + std::to_string(l.resolution) + "u";
        offset += sep + std::to_string(l.offset) + "u";
        dense += sep + std::string(l.dense ? "true" : "false");
    }
    d.push_back({"HASH_LEVELS", std::to_string(h.levels)});
    d.push_back({"HASH_F", std::to_string(h.features)});
    d.push_back({"HASH_T_MASK", std::to_string((1u << h.log2_table_size) - 1u) + "u"});
    d.push_back({"HASH_RESOLUTIONS", res});
    d.push_back({"HASH_OFFSETS", offset});
    d.push_back({"HASH_DENSE", dense});
}

void write_header(const ModelConfig& c, HeaderWriter& out) {
    const HashGridConfig& h = c.encoding.hash;
    out.u32("hash_levels", h.levels);
    out.u32("hash_features", h.features);
    out.u32("hash_log2_table_size", h.log2_table_size);
    out.u32("hash_base_resolution", h.base_resolution);
    out.real("hash_per_level_scale", h.per_level_scale);
}

void read_header(HeaderReader& in, uint32_t, ModelConfig& c) {
    HashGridConfig& h = c.encoding.hash;
    c.grid_width = c.grid_height = 0;
    h.levels = in.u32("hash_levels");
    h.features = in.u32("hash_features");
    h.log2_table_size = in.u32("hash_log2_table_size");
    h.base_resolution = in.u32("hash_base_resolution");
    h.per_level_scale = in.positive_real("hash_per_level_scale");
}

struct Corner {
    uint64_t row[4]; // whole-table rows of the four vertices
    double w[4];
};

// Mirrors hash_corners() in encoding_hash_grid.glsl.
Corner corners(const HashLevel& level, const HashGridConfig& h, double u, double v) {
    double px = u * level.resolution, py = v * level.resolution;
    double max_cell = double(level.resolution) - 1;
    double cx = std::clamp(std::floor(px), 0.0, max_cell), cy = std::clamp(std::floor(py), 0.0, max_cell);
    double fx = px - cx, fy = py - cy;
    uint32_t x0 = uint32_t(cx), y0 = uint32_t(cy);
    Corner k;
    uint32_t xs[4] = {x0, x0 + 1, x0, x0 + 1}, ys[4] = {y0, y0, y0 + 1, y0 + 1};
    for (int i = 0; i < 4; ++i) k.row[i] = level.offset + hash_row(level, h, xs[i], ys[i]);
    k.w[0] = (1 - fx) * (1 - fy);
    k.w[1] = fx * (1 - fy);
    k.w[2] = (1 - fx) * fy;
    k.w[3] = fx * fy;
    return k;
}

void reference_encode(const ModelConfig& c, const std::vector<double>& params, double u, double v,
                      std::vector<double>& x) {
    const HashGridConfig& h = c.encoding.hash;
    x.assign(size_t(h.levels) * h.features, 0.0);
    auto levels = hash_levels(h);
    for (uint32_t l = 0; l < levels.size(); ++l) {
        Corner k = corners(levels[l], h, u, v);
        for (uint32_t f = 0; f < h.features; ++f)
            for (int i = 0; i < 4; ++i) x[l * h.features + f] += k.w[i] * params[k.row[i] * h.features + f];
    }
}

void reference_backward(const ModelConfig& c, double u, double v, const std::vector<double>& dx,
                        std::vector<double>& dparams) {
    const HashGridConfig& h = c.encoding.hash;
    auto levels = hash_levels(h);
    for (uint32_t l = 0; l < levels.size(); ++l) {
        Corner k = corners(levels[l], h, u, v);
        for (uint32_t f = 0; f < h.features; ++f)
            for (int i = 0; i < 4; ++i) dparams[k.row[i] * h.features + f] += k.w[i] * dx[l * h.features + f];
    }
}

std::string describe(const ModelConfig& c) {
    const HashGridConfig& h = c.encoding.hash;
    return "hash grid " + std::to_string(h.levels) + "x" + std::to_string(h.features) + " (2^" +
           std::to_string(h.log2_table_size) + " rows per level, base " +
           std::to_string(h.base_resolution) + ")";
}

} // namespace

extern const EncodingDescriptor kHashGridEncoding = {
    EncodingKind::hash_grid, "hash_grid", "ENCODING_HASH_GRID", "hash tables",
    input_width, input_width, cells, cell_features, cells_read, validate, initialise, defines,
    describe, write_header, read_header, reference_encode, reference_backward, group_cells,
    kLazyHashAdamRatio,
    group_inputs, /*parameters_in_records=*/false, /*visits_read_beside_claim=*/false,
    /*lazy_adam_ratio_on_cpu=*/kLazyHashAdamRatioOnCpu, cells_across,
};

} // namespace ff::engine::detail
