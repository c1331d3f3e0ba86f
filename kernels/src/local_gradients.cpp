// Which of the encoding's cells a training workgroup sums the gradients of in shared memory
// (TrainTiling::local_gradient_cells; train_step.comp's ENC_LOCAL_CELLS).
#include "model_layout.hpp"
#include "encodings/encoding.hpp"
#include "env_switch.hpp"

#include <vector>

namespace ff::engine::detail {

namespace {
// A cell's sums in shared memory: a 32-bit word a feature.
uint32_t local_bytes_per_cell(const ModelConfig& c) { return 4u * encoding_of(c).cell_features(c); }

// A workgroup's reads of a cell a step (on average) from which its sums pay. On the H100 the small
// hash model ran alike with 1, 4 or 16 from 2^16 samples on, but with 1 its batches of 2^10-2^12
// (one tile a workgroup, levels 0-1 at 1.8 and 1.2 reads a cell) were 7-10% slower than without
// sums: clearing and adding the sums then costs a workgroup as much as its one tile's atomics
// (bench/RESULTS.md, session 15).
constexpr uint32_t kDefaultMinHits = 4;
} // namespace

uint32_t choose_local_gradient_cells(const ModelConfig& c, const TrainTiling& t, uint32_t max_shared,
                                     uint32_t batch, uint32_t groups, std::optional<double> min_hits) {
    // The portable kernels and the shared-tile ones declare the sums (the tensor-core kernels of a
    // tile a subgroup do not); the sums are integers: fixed-point gradients only.
    const bool kernel_has_sums = !t.coopmat || t.shared_tile_rows;
    if (!t.fixed_point_gradients || !kernel_has_sums || t.shared_bytes == 0 || groups == 0 || batch == 0) return 0;
    if (!env_switch("FIELDFLOW_LOCAL_GRADIENTS").value_or(true)) return 0;
    const double hits = min_hits ? *min_hits
                                 : double(env_count("FIELDFLOW_LOCAL_GRADIENT_HITS", 0, 1u << 20).value_or(kDefaultMinHits));
    const EncodingDescriptor& encoding = encoding_of(c);
    const uint64_t cells = encoding.cells(c);
    // The fixed-point groups in cell order (each a contiguous run of cells: a hash level).
    std::vector<uint64_t> group_sizes;
    for (uint64_t cell = 0; cell < cells;) {
        const uint64_t n = encoding.group_cells(c, cell);
        if (n == 0) break;
        group_sizes.push_back(n);
        cell += n;
    }
    if (group_sizes.empty()) return 0;
    const double reads_a_group = double(encoding.cells_read(c)) / double(group_sizes.size()); // a sample's
    const double samples = double(batch) / double(groups);                                  // a workgroup's
    // The sums follow the layout's arrays.
    const uint64_t room = max_shared > t.shared_bytes ? max_shared - t.shared_bytes : 0u;
    const uint64_t room_cells = room / local_bytes_per_cell(c);
    uint64_t chosen = 0;
    for (uint64_t n : group_sizes) {
        if (samples * reads_a_group < hits * double(n) || chosen + n > room_cells) break;
        chosen += n;
    }
    return uint32_t(chosen);
}

} // namespace ff::engine::detail
