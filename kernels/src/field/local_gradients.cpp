// Which of the encoding's cells have their gradients summed in shared memory: by each training
// workgroup (TrainTiling::local_gradient_cells; train_step.comp's ENC_LOCAL_CELLS) or by a pass
// after the step (TrainTiling::deferred; encoding_deferred_sums.comp).
#include "model_layout.hpp"
#include "encodings/encoding.hpp"

#include <vector>

namespace ff::engine::detail {

namespace {
// A cell's sums in shared memory: a 32-bit word a feature.
uint32_t local_bytes_per_cell(const ModelConfig& c) { return 4u * encoding_of(c).cell_features(c); }

// A workgroup's reads of a cell a step (on average) from which its sums pay. On the H100 the small
// hash model ran alike with 1, 4 or 16 from 2^16 samples on, but with 1 its batches of 2^10-2^12
// (one tile a workgroup, levels 0-1 at 1.8 and 1.2 reads a cell) were 7-10% slower than without
// sums: clearing and adding the sums then costs a workgroup as much as its one tile's atomics
// (bench/archive/RESULTS.md, "local gradient sums for the hash grid's coarsest levels").
constexpr uint32_t kDefaultMinHits = 4;
// The same for the deferred sums' pass, whose workgroups (one a multiprocessor) sum the levels of
// the whole batch once: 2 rather than 4 paid on the hash models (or was alike); with 1 the pass
// took levels at 2^14, where it costs more than it saves (bench/archive/RESULTS.md, "deferred
// gradient sums").
constexpr uint32_t kDeferredMinHits = 2;

double hits_wanted(std::optional<double> min_hits, uint32_t default_hits) {
    return min_hits ? *min_hits : double(default_hits);
}

// The encoding's fixed-point groups in cell order (each a contiguous run of cells: a hash level),
// and the cells of each a sample reads.
struct Groups {
    std::vector<uint64_t> sizes;
    double reads_a_group = 0;
};
Groups fixed_point_groups(const ModelConfig& c) {
    const EncodingDescriptor& encoding = encoding_of(c);
    const uint64_t cells = encoding.cells(c);
    Groups g;
    for (uint64_t cell = 0; cell < cells;) {
        const uint64_t n = encoding.group_cells(c, cell);
        if (n == 0) break;
        g.sizes.push_back(n);
        cell += n;
    }
    if (!g.sizes.empty()) g.reads_a_group = double(encoding.cells_read(c)) / double(g.sizes.size());
    return g;
}

// The cells of the leading groups that a workgroup of `samples` reads at least `hits` times a cell
// and whose `bytes_a_cell` sums fit `room`.
uint64_t leading_cells(const Groups& g, double samples, double hits, uint64_t room, uint64_t bytes_a_cell) {
    uint64_t cells = 0;
    for (uint64_t n : g.sizes) {
        if (samples * g.reads_a_group < hits * double(n) || (cells + n) * bytes_a_cell > room) break;
        cells += n;
    }
    return cells;
}
} // namespace

uint32_t choose_local_gradient_cells(const ModelConfig& c, const TrainTiling& t, uint32_t max_shared,
                                     uint32_t batch, uint32_t groups, std::optional<double> min_hits) {
    // The portable kernels and the shared-tile ones declare the sums (the tensor-core kernels of a
    // tile a subgroup do not); the sums are integers: fixed-point gradients only.
    const bool kernel_has_sums = !t.coopmat || t.shared_tile_rows;
    if (!t.fixed_point_gradients || !kernel_has_sums || t.shared_bytes == 0 || groups == 0 || batch == 0) return 0;
    const Groups g = fixed_point_groups(c);
    // The sums follow the layout's arrays.
    const uint64_t room = max_shared > t.shared_bytes ? max_shared - t.shared_bytes : 0u;
    const double samples = double(batch) / double(groups); // a workgroup's
    return uint32_t(leading_cells(g, samples, hits_wanted(min_hits, kDefaultMinHits), room, local_bytes_per_cell(c)));
}

TrainTiling::Deferred choose_deferred_gradients(const ModelConfig& c, const TrainTiling& t, uint32_t max_shared,
                                                uint64_t max_buffer_bytes, uint32_t batch, uint32_t sum_groups,
                                                std::optional<double> min_hits, const KernelOverrides& o) {
    const EncodingDescriptor& encoding = encoding_of(c);
    if (!t.fixed_point_gradients || t.local_gradient_cells || !encoding.group_inputs || sum_groups == 0 || batch == 0)
        return {};
    const Groups g = fixed_point_groups(c);
    const double samples = double(batch) / double(sum_groups), hits = hits_wanted(min_hits, kDeferredMinHits); // a summing workgroup's
    if (o.deferred_sets && (*o.deferred_sets < 1 || *o.deferred_sets > TrainTiling::Deferred::kMaxSets))
        throw EngineError("the kernel option deferred_sets " + std::to_string(*o.deferred_sets) + " must be 1.." +
                          std::to_string(TrainTiling::Deferred::kMaxSets));
    const uint32_t max_sets = o.deferred_sets.value_or(TrainTiling::Deferred::kMaxSets);
    const uint64_t room_cells = max_shared / local_bytes_per_cell(c);
    TrainTiling::Deferred d;
    d.sum_groups = sum_groups;
    uint64_t set_first = 0; // the current set's first cell
    for (uint64_t n : g.sizes) {
        if (samples * g.reads_a_group < hits * double(n) || n > room_cells ||
            TrainTiling::Deferred::bytes_for(batch, encoding.group_inputs(c, d.groups + 1)) > max_buffer_bytes)
            break;
        if (d.groups && d.cells + n - set_first > room_cells) { // a new set
            if (d.sets == max_sets) break;
            ++d.sets;
            set_first = d.cells;
        }
        ++d.groups;
        d.cells += uint32_t(n);
        d.set_groups[d.sets - 1] = d.groups;
        d.set_cells[d.sets - 1] = d.cells;
    }
    if (d.groups == 0) return {};
    d.inputs = encoding.group_inputs(c, d.groups);
    return d;
}

} // namespace ff::engine::detail
