// Where each parameter of a ModelConfig lives in the flat MLP vector, and the compile-time
// configuration (defines) the kernels are specialised with.
#pragma once

#include "fieldflow/engine/engine.hpp"
#include "vulkan/shader_compiler.hpp"

#include <cstdint>
#include <optional>
#include <string>

namespace ff::engine::detail {

struct MlpLayout {
    uint32_t matrices = 0;                     // hidden_layers + 1
    uint32_t total = 0;                        // floats in Model::mlp (padded layout)
    std::vector<uint32_t> in_logical, in_padded, out_logical, out_padded;
    std::vector<uint32_t> weight_offset, bias_offset;
};

MlpLayout mlp_layout(const ModelConfig& config);

// The padded weight matrices' 16x16 blocks, all matrices together: the tensor-core kernels'
// fragments of weights or of weight-gradient sums (mlp_coopmat.glsl's CM_FRAGS).
uint32_t weight_blocks(const MlpLayout& layout);

// Throws EngineError("invalid model configuration: ...") unless config.validate() is empty.
void require_valid(const ModelConfig& config);

// Per-device choice of the training tile (samples per workgroup) and where weights live.
struct TrainTiling {
    uint32_t tile = 64;
    bool weights_in_shared = true;
    bool coopmat = false; // the tensor-core MLP body (train_step.comp / render.comp with COOPMAT=1)
    std::string portable_reason = {}; // why a tensor-core device runs the portable kernels ("" if not)
    // Tensor-core kernels that read the fp16 weights from device memory (GpuModel::mlp16), not
    // from a shared-memory copy.
    bool weights_in_memory() const { return coopmat && !weights_in_shared; }
    // Tensor-core training kernels that lay out their shared memory explicitly
    // (GL_EXT_shared_memory_block, mlp_coopmat.glsl's CM_SHARED_BLOCKS): the device has it.
    bool shared_blocks = false;
    // Tensor-core training kernels that hold the weight blocks in registers for the whole step
    // (mlp_coopmat.glsl's CM_WEIGHT_FRAGMENTS; the shared tile always does).
    bool weight_fragments = false;
    // With weight_fragments, the hidden ReLU matrices' bias rows held as fragments too
    // (mlp_coopmat.glsl's CM_BIAS_FRAGMENTS), else loaded from shared memory per row block.
    bool bias_fragments = false;
    // The encoding's gradients as fixed-point integers, two features a 64-bit atomic
    // (encoding_state.glsl's ENC_GRAD_FIXED; DeviceImpl::fixed_point_gradients), not float atomics.
    bool fixed_point_gradients = false;
    // Portable kernels on a driver that caps the loop iterations an invocation runs (llvmpipe:
    // 65,535 loop back-edges in all, after which every loop exits and the results are silently
    // wrong): their inner products take 8 terms an iteration (mlp.glsl's LOOPS_CAPPED).
    bool loops_capped = false;
    // Training only: the workgroup's subgroups (hidden_width / 16 a part, below) share one tile of
    // this many samples, each owning a block of output columns (mlp_coopmat_split.glsl); 0: each
    // subgroup takes its own 32-sample tiles (mlp_coopmat.glsl).
    uint32_t shared_tile_rows = 0;
    // With shared_tile_rows: subgroups a column block, each taking a part of the tile's rows
    // (tile = 2 * hidden_width * parts invocations).
    uint32_t shared_tile_parts = 1;
    // With shared_tile_rows: the first matrix's blocks held too (else loaded for each tile's
    // first product).
    bool first_weight_fragments = false;
    // With shared_tile_rows: the first matrix's forward and the last matrix's backward products by
    // columns too (mlp_coopmat_split.glsl's CM_ENDS_BY_COLUMNS), where the tile's sample subgroups
    // are fewer than its subgroups; then the wide phases' activation and input-gradient products
    // are summed in fp16 and the held weight blocks loaded before the first tile's inputs.
    bool ends_by_columns = false;
    // With ends_by_columns: the encoding's input gradients by rows (CM_ENC_INPUTS_BY_ROWS).
    bool encoding_inputs_by_rows = false;
    // With ends_by_columns: the next tile's inputs encoded by the subgroups after the sample ones
    // while those take the last matrix's forward product (mlp_coopmat_split.glsl's
    // CM_STAGE_INPUTS; its staging slice is in shared_bytes).
    bool stage_inputs = false;
    // With stage_inputs: a tile's encoding backward pass taken by the subgroups after the staging
    // ones during the next tile's last forward product (train_step.comp's CM_LATE_ENCODING; the
    // input gradients' columns it keeps are in shared_bytes).
    bool late_encoding = false;
    // With stage_inputs: the next tile's targets fetched by the staging subgroups too, beside its
    // encoding's reads, and left in shared memory for the sample subgroups (train_step.comp's
    // CM_STAGE_TARGETS, with CM_STAGE_PIXELS; the targets' and pixels' sets are in shared_bytes),
    // instead of every subgroup waiting on a sample's image read at each tile's start.
    bool stage_targets = false;
    // With shared_tile_rows: the MLP's narrow ends (at most 8 inputs or outputs) in 8-wide blocks
    // (mlp_coopmat_split.glsl's CM_NARROW_ENDS), where the device has the 16x8 shapes.
    bool narrow_ends = false;
    // Tensor-core training: each subgroup loads its next tile's inputs while it trains on the
    // current one (train_step.comp's CM_PREFETCH).
    bool prefetch = true;
    // Bytes of shared memory the training kernel's layout takes (portable and shared-tile
    // kernels; 0 where not counted), before any local gradient sums.
    uint32_t shared_bytes = 0;
    // Training only: the encoding's leading cells whose fixed-point gradients each workgroup sums in
    // shared memory, adding each cell's sum to device memory once at the step's end
    // (train_step.comp's ENC_LOCAL_CELLS; choose_local_gradient_cells); 0: every sample's share
    // is an atomic of its own in device memory.
    uint32_t local_gradient_cells = 0;
    // Training only: the encoding's leading fixed-point groups whose gradients a pass of their own
    // sums after the step (encoding_deferred_sums.comp; choose_deferred_gradients), where the
    // step's shared memory has no room for local sums of them; groups 0: none.
    struct Deferred {
        static constexpr uint32_t kMaxSets = 4;
        uint32_t groups = 0; // the groups [0, groups)
        uint32_t cells = 0;  // their cells, [0, cells)
        uint32_t inputs = 0; // the gradient inputs they read, [0, inputs), stored for every sample
        uint32_t sum_groups = 0; // workgroups of the summing pass
        uint32_t group_size = 256; // and their invocations
        // The pass sums the groups a set at a time, each set's cells in shared memory at once:
        // set s ends at group set_groups[s] (the last at `groups`), its cells at set_cells[s].
        uint32_t sets = 1;
        uint32_t set_groups[kMaxSets] = {};
        uint32_t set_cells[kMaxSets] = {};
        // The inputs' buffer for a step of `batch` samples: a 32-bit word a sample for each two
        // inputs, as fp16 (encoding_deferred_inputs.glsl).
        static uint64_t bytes_for(uint32_t batch, uint32_t inputs) { return 4ull * batch * ((inputs + 1) / 2); }
        uint64_t input_bytes(uint32_t batch) const { return bytes_for(batch, inputs); }
    } deferred;
    // Samples a workgroup takes at a time: the unit the batch is split into.
    uint32_t tile_samples() const { return shared_tile_rows ? shared_tile_rows : tile; }
    // Gradient partial rows a workgroup writes: one a subgroup, one a part of a shared tile, one on
    // the portable kernels.
    uint32_t rows_per_group() const {
        return shared_tile_rows ? shared_tile_parts : coopmat ? tile / 32 : 1;
    }
};
TrainTiling choose_tiling(const ModelConfig& config, uint32_t max_shared_bytes,
                          uint32_t max_invocations, const KernelOverrides& overrides = {});
// TrainTiling::local_gradient_cells for training `batch` samples on `groups` workgroups with
// `tiling` (fixed-point gradients on the portable or shared-tile kernels; 0 otherwise): the
// encoding's leading fixed-point groups (a hash grid's coarsest levels) whose cells a workgroup
// reads at least `min_hits` times a step on average, as many as fit the shared memory the tiling
// leaves. Their atomics then meet in shared memory, and device memory takes one a cell a workgroup
// (bench/archive/RESULTS.md, "local gradient sums for the hash grid's coarsest levels"). Integer
// sums do not depend on the order they are added in: the gradients are the same bit for bit.
// min_hits unset: the measured default.
uint32_t choose_local_gradient_cells(const ModelConfig& config, const TrainTiling& tiling,
                                     uint32_t max_shared_bytes, uint32_t batch, uint32_t groups,
                                     std::optional<double> min_hits = std::nullopt);
// TrainTiling::deferred for training `batch` samples with `tiling`, whose local sums
// (local_gradient_cells) are already chosen: none where those took any cells or the encoding's
// groups share their inputs. Otherwise the leading fixed-point groups whose cells each of the
// summing pass's `sum_groups` workgroups reads at least `min_hits` times a step on average, in
// up to Deferred::kMaxSets sets whose sums each fit `max_shared_bytes`, and whose inputs' buffer
// (Deferred::bytes_for: 2 bytes a sample an input) fits `max_buffer_bytes`. min_hits unset: the
// pass's measured default; KernelOverrides::deferred_sets caps the sets.
TrainTiling::Deferred choose_deferred_gradients(const ModelConfig& config, const TrainTiling& tiling,
                                                uint32_t max_shared_bytes, uint64_t max_buffer_bytes,
                                                uint32_t batch, uint32_t sum_groups,
                                                std::optional<double> min_hits = std::nullopt,
                                                const KernelOverrides& overrides = {});
// The tensor-core kernels' workgroup: the largest of 128, 96, 64, 32 invocations (4..1 subgroups
// of 32 samples each) whose shared memory fits (or KernelOverrides::tile) with the fp16 weights,
// else without them (weights_in_shared false: read from device memory, as MLPs of hidden width 64
// and more do); tile 0 if not even one subgroup's tile fits (then the portable kernels run
// this model). Training `batch` samples on `workgroups` persistent workgroups (batch 0: rendering,
// any size) may take one subgroup fewer, or, where the batch gives every subgroup at least 8
// tiles and `shared_blocks`, more: 192 invocations (six subgroups, their weights read from device
// memory) for ReLU MLPs of at most 8 weight blocks, else 160 (five) for hidden width 32 and more.
// With `shared_blocks` (the device lays out shared memory explicitly) the kernels pass the last
// matrix's fp32 outputs through the delta slice: a subgroup needs 1.25 KB less. Small MLPs whose
// weights are in shared memory hold them in registers where the batch gives each subgroup two
// tiles or more (weight_fragments).
TrainTiling choose_coopmat_tiling(const ModelConfig& config, uint32_t max_shared_bytes,
                                  uint32_t max_invocations, uint32_t batch = 0, uint32_t workgroups = 0,
                                  bool shared_blocks = false, const KernelOverrides& overrides = {});

// What the shared-tile kernel (mlp_coopmat_split.glsl) takes, said once for its chooser
// (choose_shared_tile) and for the check of each training request (train_kernel_request), so that
// the two cannot drift apart. The model: ReLU hidden layers and 16 padded outputs.
inline bool shared_tile_takes(const ModelConfig& c) {
    return c.hidden_activation == Activation::relu && c.padded_output_width() == 16;
}
// Its invocations (TrainTiling::tile): hidden_width / 16 subgroups of 32 a part.
inline uint32_t shared_tile_invocations(const ModelConfig& c, uint32_t parts) { return 2 * c.hidden_width * parts; }
// A tile of `rows` samples split into `parts`: each part's rows are whole 16-row blocks that its
// products take four at a time, or all at once where they are one or two (16, 32 or a multiple of
// 64 rows a part).
inline bool shared_tile_rows_split(uint32_t rows, uint32_t parts) {
    if (parts == 0 || rows % parts != 0) return false;
    const uint32_t part_rows = rows / parts;
    return part_rows > 0 && part_rows % 16 == 0 && (part_rows <= 32 || part_rows % 64 == 0);
}
// TrainTiling::stage_inputs: the subgroups after the sample ones, as many again, stage the next
// tile's inputs.
inline bool staging_subgroups_fit(uint32_t tile, uint32_t rows) { return tile / 32 >= 2 * (rows / 32); }
// TrainTiling::late_encoding: the subgroups after the staging ones take whole shares of the tile's
// samples (train_step.comp's CM_LATE_SHARES).
inline bool late_shares_whole(uint32_t tile, uint32_t rows) { return rows > 0 && tile > 2 * rows && tile % rows == 0; }

// The shared-tile layout for training `config` on the tensor cores (TrainTiling::shared_tile_rows),
// or nullopt where it does not apply: ReLU hidden layers of width 64 or more (one part) or 32 (two
// parts, or three), 16 padded outputs, explicit shared layouts, and a tile of at least 32 samples
// that fits `max_shared_bytes` (the largest such, up to one sample an invocation).
// Training `batch` samples on `workgroups` workgroups (0: not given) decides whether width 32 runs
// in three parts (where every workgroup takes at least 32 three-part tiles and they fit).
// KernelOverrides::shared_tile turns it off or on where it can run and row_split sets the parts.
std::optional<TrainTiling> choose_shared_tile(const ModelConfig& config, uint32_t max_shared_bytes,
                                              uint32_t max_invocations, bool shared_blocks, uint32_t batch = 0,
                                              uint32_t workgroups = 0, const KernelOverrides& overrides = {});

// Defines shared by every kernel of this model.
Defines model_defines(const ModelConfig& config);

} // namespace ff::engine::detail
