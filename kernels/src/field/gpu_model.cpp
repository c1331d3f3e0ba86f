#include "gpu_model.hpp"
#include "encodings/encoding.hpp"
#include "files/half_float.hpp"
#include "tile_memory.hpp"

#include <algorithm>
#include <cstdlib>
#include <cstring>

namespace ff::engine::detail {

void upload(DeviceImpl& device, CommandRunner& runner, const Buffer& dst, const void* data,
            size_t bytes, VkDeviceSize dst_offset) {
    const size_t chunk = std::min<uint64_t>(bytes, device.max_buffer_bytes());
    if (chunk == 0) return;
    Buffer staging(device, chunk, MemoryKind::upload, "upload staging");
    for (size_t done = 0; done < bytes; done += chunk) {
        const size_t n = std::min(chunk, bytes - done);
        std::memcpy(staging.mapped(), static_cast<const char*>(data) + done, n);
        runner.run([&](VkCommandBuffer cb) {
            VkBufferCopy region{0, dst_offset + done, n};
            vkCmdCopyBuffer(cb, staging.handle(), dst.handle(), 1, &region);
        });
    }
}

void download(DeviceImpl& device, CommandRunner& runner, const Buffer& src, void* data,
              size_t bytes, VkDeviceSize src_offset) {
    const size_t chunk = std::min<uint64_t>(bytes, device.max_buffer_bytes());
    if (chunk == 0) return;
    Buffer staging(device, chunk, MemoryKind::readback, "readback staging");
    for (size_t done = 0; done < bytes; done += chunk) {
        const size_t n = std::min(chunk, bytes - done);
        runner.run([&](VkCommandBuffer cb) {
            compute_barrier(cb); // earlier shader writes are visible to the copy
            VkBufferCopy region{src_offset + done, 0, n};
            vkCmdCopyBuffer(cb, src.handle(), staging.handle(), 1, &region);
        });
        std::memcpy(static_cast<char*>(data) + done, staging.mapped(), n);
    }
}

void fill_zero(CommandRunner& runner, const std::vector<const Buffer*>& buffers) {
    runner.run([&](VkCommandBuffer cb) {
        for (const Buffer* b : buffers) vkCmdFillBuffer(cb, b->handle(), 0, VK_WHOLE_SIZE, 0);
    });
}

Buffer encoding_state_buffer(DeviceImpl& device, EncodingStateLayout& layout) {
    layout.by_address = layout.bytes() > device.max_buffer_bytes();
    return Buffer(device, layout.bytes(), MemoryKind::device_local, "encoding training state",
                  layout.by_address ? BufferAccess::address : BufferAccess::descriptor);
}

void use_state_layout(Defines& defines, const EncodingStateLayout& layout) {
    for (auto& [name, value] : defines)
        if (name == "ENC_RECORD") value = std::to_string(layout.record_words());
    if (layout.parameters) defines.emplace_back("ENC_PARAMS_IN_RECORD", "1");
    if (layout.by_address) defines.emplace_back("ENC_STATE_BY_ADDRESS", "1");
}

void require_consistent(const Model& m) {
    require_valid(m.config);
    size_t encoding = size_t(m.config.encoding_parameter_count());
    size_t mlp = mlp_layout(m.config).total;
    if (m.encoding_params.size() != encoding)
        throw EngineError("model encoding (" + std::string(encoding_of(m.config).name) + ") holds " +
                          std::to_string(m.encoding_params.size()) + " floats, its configuration needs " +
                          std::to_string(encoding));
    if (m.mlp.size() != mlp)
        throw EngineError("model MLP holds " + std::to_string(m.mlp.size()) + " floats, its " +
                          "configuration needs " + std::to_string(mlp));
}

GpuModel::GpuModel(DeviceImpl& device, CommandRunner& runner, const Model& model, uint32_t training_batch,
                   const KernelOverrides& kernels)
    : config(model.config), layout(mlp_layout(model.config)),
      mlp(device, model.mlp.size() * 4, MemoryKind::device_local, "MLP parameters"),
      encoding(device, model.encoding_params.size() * 4, MemoryKind::device_local,
               std::string(detail::encoding_of(model.config).parameters)),
      kernels(kernels) {
    require_consistent(model);
    upload(device, runner, mlp, model.mlp.data(), model.mlp.size() * 4);
    upload(device, runner, encoding, model.encoding_params.data(), model.encoding_params.size() * 4);
    if (train_tiling_for(device.features(), config, 0, kernels).weights_in_memory() ||
        train_tiling_for(device.features(), config, training_batch, kernels).weights_in_memory()) {
        const std::vector<uint16_t> halves = to_half(model.mlp);
        mlp16 = Buffer(device, halves.size() * 2, MemoryKind::device_local, "MLP parameters (fp16)");
        upload(device, runner, mlp16, halves.data(), halves.size() * 2);
    }
}

std::vector<const Buffer*> GpuModel::bindings(const TrainTiling& tiling, std::vector<const Buffer*> more) const {
    std::vector<const Buffer*> all = {&mlp, &encoding};
    all.insert(all.end(), more.begin(), more.end());
    if (tiling.weights_in_memory()) all.push_back(&mlp16);
    return all;
}

uint32_t add_weight_defines(Defines& defines, const TrainTiling& tiling, uint32_t bindings) {
    defines.push_back({"WEIGHTS_IN_SHARED", tiling.weights_in_shared ? "1" : "0"});
    if (tiling.loops_capped) defines.push_back({"LOOPS_CAPPED", "1"});
    if (!tiling.weights_in_memory()) return bindings;
    defines.push_back({"CM_WEIGHTS_BINDING", std::to_string(bindings)});
    return bindings + 1;
}

Model GpuModel::download(DeviceImpl& device, CommandRunner& runner) const {
    Model m;
    m.config = config;
    m.mlp.resize(layout.total);
    m.encoding_params.resize(size_t(config.encoding_parameter_count()));
    detail::download(device, runner, mlp, m.mlp.data(), m.mlp.size() * 4);
    detail::download(device, runner, encoding, m.encoding_params.data(), m.encoding_params.size() * 4);
    return m;
}

namespace {
// Tensor-core training workgroups: one a multiprocessor where the device says how many it has
// (VK_NV_shader_sm_builtins), else 256 (persistent_groups).
uint32_t coopmat_workgroups(const DeviceFeatures& device) {
    const uint32_t sms = device.multiprocessors;
    return sms ? sms : 256u;
}
} // namespace

TrainTiling train_tiling_for(const DeviceFeatures& device, const ModelConfig& config, uint32_t batch,
                             const KernelOverrides& o) {
    // Sine layers with a frequency factor (SIREN) train on the tensor cores like the others: with
    // fp16 activations and deltas they learn the same image as the fp32 portable kernels to within
    // 0.1 dB, 1.6-4.2x faster (omega 30, widths 16-64, leuvenA and graf1; bench/archive/RESULTS.md,
    // "SIREN on the tensor cores").
    const bool siren_portable = o.siren_portable.value_or(false);
    const bool scaled_sine = config.first_omega != 1.0f || config.hidden_omega != 1.0f;
    std::string reason;
    if (device.coopmat && scaled_sine && siren_portable) {
        reason = "the kernel option siren_portable";
    } else if (device.coopmat) {
        // Training wide ReLU MLPs: one tile a workgroup, shared by its subgroups (rendering keeps a
        // subgroup a tile: it has no backward pass to share).
        if (batch > 0)
            if (std::optional<TrainTiling> t = choose_shared_tile(config, device.max_shared, device.max_invocations,
                                                                  device.shared_blocks, batch,
                                                                  coopmat_workgroups(device), o)) {
                t->fixed_point_gradients = device.fixed_point_gradients;
                t->narrow_ends = device.narrow_coopmat && o.narrow_ends.value_or(true);
                return *t;
            }
        TrainTiling t = choose_coopmat_tiling(config, device.max_shared, device.max_invocations, batch,
                                              coopmat_workgroups(device), device.shared_blocks, o);
        t.fixed_point_gradients = device.fixed_point_gradients;
        if (t.tile) return t;
        reason = "the tensor-core kernels of hidden width " + std::to_string(config.hidden_width) + " x " +
                 std::to_string(config.hidden_layers) + " layers (a 32-sample tile's activations in shared memory) "
                 "need more than the device's " +
                 std::to_string(device.max_shared) + " bytes of shared memory";
    }
    TrainTiling t = choose_tiling(config, device.max_shared, device.max_invocations, o);
    t.portable_reason = reason;
    t.fixed_point_gradients = device.fixed_point_gradients;
    t.loops_capped = device.loops_capped;
    return t;
}

void record_train_dispatches(VkCommandBuffer cb, const DeviceImpl& device, const DescriptorSet& set,
                             PushConstants pc, const TrainTiling& tiling, uint32_t groups) {
    const uint32_t tiles = div_up(pc.batch, tiling.tile_samples());
    // A multiple of the workgroups, so each dispatch after the first starts past every group's
    // first tile (train_step.comp's `first`).
    const uint32_t chunk = !tiling.coopmat && device.info().type == "cpu" ? kCpuTilesPerDispatch * groups : tiles;
    for (uint32_t first = 0; first < tiles; first += chunk) {
        pc.first_row = first;
        pc.count = std::min(chunk, tiles - first);
        set.dispatch(cb, pc, std::min(groups, pc.count));
        compute_barrier(cb);
    }
}

uint32_t local_gradient_cells_for(const DeviceFeatures& device, const ModelConfig& config, const TrainTiling& tiling,
                                  uint32_t batch, uint32_t groups, std::optional<double> min_hits) {
    return choose_local_gradient_cells(config, tiling, device.max_shared,
                                       batch, groups, min_hits);
}

namespace {
// Invocations of encoding_deferred_sums.comp's workgroups (its GROUP_SIZE): 1,024 where the device
// allows (one workgroup a multiprocessor, below): the pass ran fastest so (the hash model's at
// 2^20 on the H100: two workgroups a multiprocessor were slower, the more so the smaller they were;
// bench/archive/RESULTS.md, "deferred gradient sums").
uint32_t deferred_sums_group_size(const DeviceFeatures& device) { return std::min(1024u, device.max_invocations); }
} // namespace

TrainTiling::Deferred deferred_gradients_for(const DeviceFeatures& device, const ModelConfig& config,
                                             const TrainTiling& tiling, uint32_t batch,
                                             std::optional<double> min_hits, const KernelOverrides& o) {
    // One workgroup a multiprocessor where the device says how many it has (else 256; 8 on a CPU):
    // each flushes its sums once, and more of them (two, four, eight a multiprocessor) were slower
    // on the H100 at 2^20 and no faster at 2^22.
    const uint32_t sms = device.multiprocessors;
    const uint32_t cap = device.cpu ? 8u : sms ? sms : 256u;
    // The levels are chosen for `cap` workgroups, whatever the batch: a small batch then defers
    // none, and the step's own atomics are cheaper than the pass there (bench/archive/RESULTS.md,
    // "deferred gradient sums").
    // The pass runs no more workgroups than the batch fills.
    // The inputs' buffer within one storage buffer and an eighth of the device's memory: a speed-up
    // should not be what makes a run too large for its device.
    const uint64_t memory = device.memory_bytes;
    const uint64_t buffer_cap = memory ? std::min(device.max_buffer_bytes, memory / 8) : device.max_buffer_bytes;
    const uint32_t group_size = deferred_sums_group_size(device);
    TrainTiling::Deferred d = choose_deferred_gradients(config, tiling, device.max_shared,
                                                        buffer_cap, batch, cap, min_hits, o);
    if (d.groups) {
        d.group_size = group_size;
        d.sum_groups = std::min(cap, div_up(batch, group_size));
    }
    return d;
}

void choose_gradient_sums(const DeviceFeatures& device, const ModelConfig& config, TrainTiling& tiling, uint32_t batch,
                          uint32_t groups, std::optional<double> min_hits, bool local, bool deferred,
                          const KernelOverrides& o) {
    // Deferred sums first: where both can take a hash grid's coarse levels, the pass was the faster,
    // the more so the larger the batch (bench/archive/RESULTS.md, "deferred gradient sums").
    // Local sums where the pass takes nothing: an encoding whose groups share their inputs (a
    // small dense grid), the pass switched off, or its inputs' buffer over the cap.
    tiling.local_gradient_cells = 0;
    local = local && o.local_gradients.value_or(true);
    deferred = deferred && o.deferred_gradients.value_or(true);
    if (!min_hits) min_hits = o.gradient_min_hits;
    tiling.deferred = deferred ? deferred_gradients_for(device, config, tiling, batch, min_hits, o) : TrainTiling::Deferred{};
    if (local && !tiling.deferred.groups)
        tiling.local_gradient_cells = local_gradient_cells_for(device, config, tiling, batch, groups, min_hits);
}

KernelRequest deferred_sums_kernel_request(const ModelConfig& config, const TrainTiling& tiling,
                                           bool explicit_samples) {
    if (!tiling.deferred.groups) throw EngineError("deferred_sums_kernel_request: the tiling defers no groups");
    if (!tiling.fixed_point_gradients)
        throw EngineError("deferred_sums_kernel_request: deferred sums take fixed-point gradients");
    Defines d = model_defines(config);
    d.push_back({"ENC_GRAD_FIXED", "1"});
    d.push_back({"ENC_DEFERRED_GROUPS", std::to_string(tiling.deferred.groups)});
    d.push_back({"ENC_DEFERRED_INPUTS", std::to_string(tiling.deferred.inputs)});
    // Each set's end: its groups, cells and inputs.
    const EncodingDescriptor& encoding = encoding_of(config);
    std::string groups, cells, inputs;
    uint32_t most_cells = 0; // the shared sums' size: the largest set's
    for (uint32_t s = 0; s < tiling.deferred.sets; ++s) {
        const char* comma = s ? "," : "";
        groups += comma + std::to_string(tiling.deferred.set_groups[s]);
        cells += comma + std::to_string(tiling.deferred.set_cells[s]) + "u";
        inputs += comma + std::to_string(encoding.group_inputs(config, tiling.deferred.set_groups[s]));
        most_cells = std::max(most_cells, tiling.deferred.set_cells[s] - (s ? tiling.deferred.set_cells[s - 1] : 0u));
    }
    d.push_back({"ENC_DEFERRED_MOST_CELLS", std::to_string(most_cells)});
    d.push_back({"ENC_DEFERRED_SETS", std::to_string(tiling.deferred.sets)});
    d.push_back({"ENC_DEFERRED_SET_GROUPS", groups});
    d.push_back({"ENC_DEFERRED_SET_CELLS", cells});
    d.push_back({"ENC_DEFERRED_SET_INPUTS", inputs});
    d.push_back({"GROUP_SIZE", std::to_string(tiling.deferred.group_size)});
    if (explicit_samples) d.push_back({"EXPLICIT_SAMPLES", "1"});
    return {"encoding_deferred_sums.comp", d, explicit_samples ? 4u : 3u};
}

void record_deferred_sums(VkCommandBuffer cb, const DescriptorSet& set, const PushConstants& pc,
                          const TrainTiling& tiling) {
    if (!tiling.deferred.groups) return;
    set.dispatch(cb, pc, tiling.deferred.sum_groups);
    compute_barrier(cb);
}

uint32_t partial_rows(const TrainTiling& tiling, uint32_t groups) {
    return groups * tiling.rows_per_group();
}

uint32_t optimizer_params_per_group(uint32_t mlp_params, uint32_t multiprocessors) {
    if (multiprocessors == 0) return 8;
    uint32_t n = 4;
    while (n < 32 && div_up(mlp_params, 2 * n) >= 2 * multiprocessors) n *= 2;
    return n;
}

uint32_t persistent_groups(const DeviceFeatures& device, const TrainTiling& tiling, uint32_t batch,
                           uint32_t mlp_floats) {
    // Portable kernels: enough workgroups to fill the device several times over; more only add
    // partial rows to reduce (on the H100, 1,024 two-subgroup workgroups of width 64 ran no faster
    // than 512). Tensor-core kernels: one workgroup a multiprocessor where the device says how
    // many it has (VK_NV_shader_sm_builtins), else 256. Each of their workgroups loads the
    // weights, and each of their subgroups writes a partial row of every MLP parameter, so fewer
    // groups taking more tiles each were faster at every batch from 2^14 to 2^20 on the H100, at
    // every width (bench/archive/RESULTS.md, "the weights' load, one workgroup a multiprocessor").
    // A CPU driver runs a few threads.
    uint32_t cap = device.cpu ? 64u : tiling.coopmat ? coopmat_workgroups(device) : 512u;
    // The partial rows must fit one storage buffer binding.
    const uint64_t group_bytes = uint64_t(partial_rows(tiling, 1)) * mlp_floats * 4;
    const uint64_t fit = device.max_buffer_bytes / std::max<uint64_t>(group_bytes, 1);
    cap = uint32_t(std::min<uint64_t>(cap, std::max<uint64_t>(fit, 1)));
    cap = std::min(cap, device.max_group_count);
    return std::max(1u, std::min(div_up(batch, tiling.tile_samples()), cap));
}


namespace {
// What the training kernel takes as given of its request, checked where the request is made (the
// shaders hold no guards of their own): a broken one is an error in the tile choosers, said
// before anything compiles.
void check_train_tiling(const ModelConfig& c, const TrainTiling& t, bool explicit_samples) {
    auto require = [](bool holds, const char* what) {
        if (!holds) throw EngineError(std::string("train_kernel_request: ") + what);
    };
    require(explicit_samples || c.output_dims == 3, "training on an image takes 3 outputs");
    require(!t.local_gradient_cells || t.fixed_point_gradients, "local gradient sums take fixed-point gradients");
    require(!t.local_gradient_cells || !t.coopmat || t.shared_tile_rows,
            "local gradient sums take the portable or the shared-tile kernels");
    require(!(t.local_gradient_cells && t.deferred.groups), "deferred gradient sums stand in for local ones");
    require(!t.deferred.groups || (t.fixed_point_gradients && encoding_of(c).group_inputs),
            "deferred gradient sums take fixed-point gradients and an encoding whose groups have inputs of their own");
    if (t.coopmat)
        require(t.tile % 32 == 0 && c.padded_input_width() % 16 == 0 && c.hidden_width % 16 == 0 &&
                    c.padded_output_width() % 16 == 0,
                "the tensor-core MLP takes whole subgroups and 16-aligned widths");
    if (!t.shared_tile_rows) {
        require(!(t.ends_by_columns || t.stage_inputs || t.late_encoding || t.stage_targets),
                "the ends by columns and the staged parts take the shared tile");
        return;
    }
    const uint32_t rows = t.shared_tile_rows, parts = t.shared_tile_parts;
    require(shared_tile_takes(c), "the shared tile takes ReLU hidden layers and 16 padded outputs");
    require(t.tile == shared_tile_invocations(c, parts) && rows % 32 == 0 && rows <= t.tile,
            "the shared tile runs hidden_width / 16 subgroups a part on at most a sample an invocation, "
            "a multiple of 32");
    require(shared_tile_rows_split(rows, parts),
            "a part's rows must be whole row blocks: one, two or a multiple of the four it takes at once");
    require(!t.stage_inputs || (t.ends_by_columns && staging_subgroups_fit(t.tile, rows)),
            "staging the next tile's inputs takes the ends by columns and as many subgroups again as the "
            "sample subgroups");
    require(!t.late_encoding || late_shares_whole(t.tile, rows),
            "the late encoding pass takes whole shares of the tile's samples after the staging subgroups");
}
} // namespace

KernelRequest train_kernel_request(const ModelConfig& config, const TrainTiling& tiling, bool explicit_samples,
                                   const TargetImageLayout& image) {
    check_train_tiling(config, tiling, explicit_samples);
    Defines d = model_defines(config);
    d.push_back({"TILE", std::to_string(tiling.tile)});
    d.push_back({"COOPMAT", tiling.coopmat ? "1" : "0"});
    if (!tiling.coopmat) portable_tile_layout(config, tiling.tile, tiling.weights_in_shared).add_defines(d);
    if (tiling.shared_tile_rows) {
        d.push_back({"CM_SPLIT", "1"});
        d.push_back({"CM_ROWS", std::to_string(tiling.shared_tile_rows)});
        d.push_back({"CM_ROW_SPLIT", std::to_string(tiling.shared_tile_parts)});
        d.push_back({"CM_SHARED_BLOCKS", "1"});
        d.push_back({"CM_FIRST_WEIGHT_FRAGMENTS", tiling.first_weight_fragments ? "1" : "0"});
        d.push_back({"CM_ENDS_BY_COLUMNS", tiling.ends_by_columns ? "1" : "0"});
        d.push_back({"CM_NARROW_ENDS", tiling.narrow_ends ? "1" : "0"});
        d.push_back({"CM_ENC_INPUTS_BY_ROWS", tiling.encoding_inputs_by_rows ? "1" : "0"});
        d.push_back({"CM_STAGE_INPUTS", tiling.stage_inputs ? "1" : "0"});
        d.push_back({"CM_LATE_ENCODING", tiling.late_encoding ? "1" : "0"});
        d.push_back({"CM_STAGE_TARGETS", tiling.stage_targets ? "1" : "0"});
        // Independent sums for the short phases the other subgroups wait on (mlp_coopmat_split.glsl):
        // two where the ends are by columns and the MLP has two column blocks or more.
        d.push_back({"CM_CHAINS", tiling.ends_by_columns && config.hidden_width >= 32 ? "2" : "1"});
        const TargetSource source = explicit_samples ? TargetSource::explicit_samples
                                    : image.rgba16   ? TargetSource::image_rgba16
                                                     : TargetSource::image_rgba8;
        shared_tile_layout(config, tiling.shared_tile_rows, tiling.tile / 32, tiling.stage_inputs, tiling.late_encoding,
                           tiling.stage_targets, source)
            .add_defines(d);
    } else if (tiling.coopmat) {
        // The shared tile's choices, which the step's code tests with constant ifs: a tile a
        // subgroup makes none of them.
        for (const char* choice : {"CM_ENDS_BY_COLUMNS", "CM_STAGE_INPUTS", "CM_LATE_ENCODING", "CM_STAGE_TARGETS"})
            d.push_back({choice, "0"});
        d.push_back({"CM_SHARED_BLOCKS", tiling.shared_blocks ? "1" : "0"});
        subgroup_tile_layout(config, tiling.tile / 32, tiling.weights_in_shared, tiling.shared_blocks).add_defines(d);
        // A subgroup's gradient sums stay in registers while they take at most 28 accumulator
        // fragments (224 registers a lane: in a tile a subgroup the 64-wide ReLU MLPs trained
        // faster so at every batch though the driver spilled to local memory); more keep them in
        // the subgroup's partial row. Among the shipped models, those that hold them are the
        // 16-wide ReLU MLPs and the 16x2 and 32x3 SIRENs: the ReLU MLPs of width 32 and more take
        // shared tiles (mlp_coopmat_split.glsl), and the 64-wide SIRENs' sums do not fit.
        const bool registers = weight_blocks(mlp_layout(config)) <= 28;
        d.push_back({"CM_GRADS_IN_REGISTERS", registers ? "1" : "0"});
        d.push_back({"CM_WEIGHT_FRAGMENTS", tiling.weight_fragments ? "1" : "0"});
        d.push_back({"CM_BIAS_FRAGMENTS", tiling.bias_fragments ? "1" : "0"});
    }
    // TrainTiling::prefetch (choose_shared_tile says where it pays).
    if (tiling.coopmat) d.push_back({"CM_PREFETCH", tiling.prefetch ? "1" : "0"});
    uint32_t bindings = 9; // explicit samples: uv, target and output after the step's 6 buffers
    if (explicit_samples) d.push_back({"EXPLICIT_SAMPLES", "1"});
    else bindings = image.add_defines(d, 6); // the image after the model's and the step's buffers
    d.push_back({"ENC_GRAD_FIXED", tiling.fixed_point_gradients ? "1" : "0"});
    if (tiling.local_gradient_cells) d.push_back({"ENC_LOCAL_CELLS", std::to_string(tiling.local_gradient_cells)});
    bindings = add_weight_defines(d, tiling, bindings); // before d is copied into the request
    if (tiling.deferred.groups) { // the deferred inputs' buffer, last
        d.push_back({"ENC_DEFERRED_GROUPS", std::to_string(tiling.deferred.groups)});
        d.push_back({"ENC_DEFERRED_INPUTS", std::to_string(tiling.deferred.inputs)});
        d.push_back({"ENC_DEFERRED_BINDING", std::to_string(bindings++)});
    }
    return {"train_step.comp", d, bindings};
}

namespace {
void check_render_size(uint32_t width, uint32_t height) {
    const std::string size = std::to_string(width) + "x" + std::to_string(height);
    if (width == 0 || height == 0) throw EngineError("render size " + size + " is empty");
    // Pixel indices are 32-bit in the kernels (render.comp, squared_error.comp).
    if (uint64_t(width) * height >= (uint64_t(1) << 32))
        throw EngineError("render size " + size + " is too large: at most 2^32 - 1 pixels render in one call");
}

// The render's kernel path and layout: the training's for any batch (rendering keeps a subgroup a
// tile: it has no backward pass to share).
TrainTiling render_tiling(const DeviceFeatures& device, const ModelConfig& config, const KernelOverrides& o) {
    return train_tiling_for(device, config, 0, o);
}
} // namespace

KernelRequest render_kernel_request(const DeviceFeatures& device, const ModelConfig& config,
                                    const KernelOverrides& o) {
    const TrainTiling tiling = render_tiling(device, config, o);
    Defines defines = model_defines(config);
    if (tiling.coopmat) {
        defines.push_back({"TILE", std::to_string(tiling.tile)});
        defines.push_back({"CM_SHARED_BLOCKS", tiling.shared_blocks ? "1" : "0"});
        // Weight fragments held in registers pay back over a step's tiles; a render's subgroup
        // takes one tile and reads each block once.
        defines.push_back({"CM_WEIGHT_FRAGMENTS", "0"});
        defines.push_back({"CM_BIAS_FRAGMENTS", "0"});
        subgroup_tile_layout(config, tiling.tile / 32, tiling.weights_in_shared, tiling.shared_blocks)
            .add_defines(defines);
    }
    const uint32_t bindings = add_weight_defines(defines, tiling, 3); // before defines is copied
    return {tiling.coopmat ? "render_coopmat.comp" : "render.comp", defines, bindings};
}

RenderBandResources::RenderBandResources() = default;
RenderBandResources::~RenderBandResources() = default;
RenderBandResources::RenderBandResources(RenderBandResources&&) noexcept = default;
RenderBandResources& RenderBandResources::operator=(RenderBandResources&&) noexcept = default;

uint32_t render_band_rows(const DeviceFeatures& device, const ModelConfig& config, uint32_t width, uint32_t height,
                          const KernelOverrides& o) {
    check_render_size(width, height);
    const TrainTiling tiling = render_tiling(device, config, o);
    const uint32_t group_size = tiling.coopmat ? tiling.tile : 64;
    // Rows per band: the band's output within the buffer cap (and at most 256 MB, so the host
    // never holds two copies of a huge image), its workgroups within one dispatch.
    const uint64_t row_bytes = uint64_t(width) * config.output_dims * 4;
    const uint64_t max_bytes = std::min<uint64_t>(device.max_buffer_bytes, 256ull << 20);
    const uint64_t max_pixels = std::min<uint64_t>(uint64_t(device.max_group_count) * group_size,
                                                   uint64_t(1) << 31);
    uint32_t band_rows = uint32_t(std::min<uint64_t>({height, max_bytes / row_bytes, max_pixels / width}));
    // KernelOverrides::render_band_rows caps the rows per band (tests and measurements).
    if (o.render_band_rows && band_rows > 0) band_rows = std::clamp<uint32_t>(*o.render_band_rows, 1, band_rows);
    if (band_rows == 0)
        throw EngineError("render width " + std::to_string(width) + " is too large: one row needs " +
                          std::to_string(row_bytes) + " bytes, more than '" + device.name +
                          "' allows in one buffer (" + std::to_string(max_bytes) + ")");
    return band_rows;
}

void render_bands(DeviceImpl& device, CommandRunner& runner, const GpuModel& model, uint32_t width, uint32_t height,
                  const RenderBandUse& use, double* gpu_seconds, RenderBandResources* keep) {
    const ModelConfig& config = model.config;
    const uint32_t band_rows = render_band_rows(device.features(), config, width, height, model.kernels);
    const uint64_t row_bytes = uint64_t(width) * config.output_dims * 4;
    const TrainTiling tiling = render_tiling(device.features(), config, model.kernels);
    const uint32_t group_size = tiling.coopmat ? tiling.tile : 64;
    const Kernel& k = device.kernel(render_kernel_request(device.features(), config, model.kernels));
    RenderBandResources local;
    RenderBandResources& r = keep ? *keep : local;
    if (r.kernel != &k || r.mlp != model.mlp.handle() || r.encoding != model.encoding.handle() || r.width != width ||
        r.band_rows != band_rows) {
        r = RenderBandResources();
        r.out = Buffer(device, uint64_t(band_rows) * row_bytes, MemoryKind::device_local, "render output");
        r.set = DescriptorSet(device, k, model.bindings(tiling, {&r.out}));
        r.timer = std::make_unique<GpuTimer>(device, 2);
        r.kernel = &k, r.mlp = model.mlp.handle(), r.encoding = model.encoding.handle(), r.width = width,
        r.band_rows = band_rows;
    }
    const Buffer& out = r.out;
    GpuTimer& timer = *r.timer;
    double seconds = 0;
    for (uint32_t first = 0; first < height; first += band_rows) {
        const uint32_t rows = std::min(band_rows, height - first);
        PushConstants pc;
        pc.grid_w = config.grid_width;
        pc.grid_h = config.grid_height;
        pc.width = width;
        pc.height = height;
        pc.first_row = first;
        pc.count = rows * width;
        runner.run([&](VkCommandBuffer cb) {
            compute_barrier(cb); // earlier uploads / training steps are visible to the render
            timer.reset(cb);
            timer.stamp(cb, 0);
            r.set.dispatch(cb, pc, div_up(pc.count, group_size));
            timer.stamp(cb, 1);
            compute_barrier(cb);
            use.record(cb, out, first, rows);
        });
        seconds += timer.seconds()[1];
        use.done(first, rows);
    }
    if (gpu_seconds) *gpu_seconds = seconds;
}

std::vector<float> render_buffers(DeviceImpl& device, CommandRunner& runner, const GpuModel& model,
                                  uint32_t width, uint32_t height, double* gpu_seconds,
                                  RenderBandResources* keep) {
    check_render_size(width, height); // before allocating the output
    const size_t floats = size_t(width) * height * model.config.output_dims;
    std::vector<float> rgb;
    try {
        rgb.resize(floats);
    } catch (const std::bad_alloc&) {
        throw EngineError("render size " + std::to_string(width) + "x" + std::to_string(height) +
                          " is too large: its " + std::to_string(uint64_t(floats) * 4) +
                          " bytes of output do not fit in host memory");
    }
    render_buffers_into(device, runner, model, width, height, rgb.data(), gpu_seconds, keep);
    return rgb;
}

void render_buffers_into(DeviceImpl& device, CommandRunner& runner, const GpuModel& model,
                         uint32_t width, uint32_t height, float* out, double* gpu_seconds,
                         RenderBandResources* keep) {
    const size_t row_floats = size_t(width) * model.config.output_dims;
    RenderBandResources local;
    RenderBandResources& r = keep ? *keep : local;
    RenderBandUse copy_out;
    copy_out.record = [&](VkCommandBuffer cb, const Buffer& band, uint32_t, uint32_t rows) {
        const VkDeviceSize bytes = VkDeviceSize(rows) * row_floats * 4;
        if (!r.readback.handle() || r.readback.size() < band.size())
            r.readback = Buffer(device, band.size(), MemoryKind::readback, "render readback");
        VkBufferCopy region{0, 0, bytes};
        vkCmdCopyBuffer(cb, band.handle(), r.readback.handle(), 1, &region);
    };
    copy_out.done = [&](uint32_t first, uint32_t rows) {
        std::memcpy(out + size_t(first) * row_floats, r.readback.mapped(), size_t(rows) * row_floats * 4);
    };
    render_bands(device, runner, model, width, height, copy_out, gpu_seconds, &r);
}

GpuTimer::GpuTimer(DeviceImpl& device, uint32_t count) : device_(device), count_(count) {
    const auto& limits = device.properties().limits;
    if (!limits.timestampComputeAndGraphics || limits.timestampPeriod <= 0 || count == 0) return;
    VkQueryPoolCreateInfo qi{VK_STRUCTURE_TYPE_QUERY_POOL_CREATE_INFO};
    qi.queryType = VK_QUERY_TYPE_TIMESTAMP;
    qi.queryCount = count;
    vk_check(vkCreateQueryPool(device.device(), &qi, nullptr, &pool_), "creating a query pool");
    period_ns_ = limits.timestampPeriod;
}

GpuTimer::~GpuTimer() {
    if (pool_) vkDestroyQueryPool(device_.device(), pool_, nullptr);
}

void GpuTimer::reset(VkCommandBuffer cb) {
    if (pool_) vkCmdResetQueryPool(cb, pool_, 0, count_);
}

void GpuTimer::stamp(VkCommandBuffer cb, uint32_t index) {
    if (pool_) vkCmdWriteTimestamp(cb, VK_PIPELINE_STAGE_BOTTOM_OF_PIPE_BIT, pool_, index);
}

std::vector<double> GpuTimer::seconds() {
    std::vector<double> out(count_, 0.0);
    if (!pool_) return out;
    std::vector<uint64_t> ts(count_, 0);
    if (vkGetQueryPoolResults(device_.device(), pool_, 0, count_, ts.size() * 8, ts.data(), 8,
                              VK_QUERY_RESULT_64_BIT | VK_QUERY_RESULT_WAIT_BIT) != VK_SUCCESS)
        return out;
    for (uint32_t i = 1; i < count_; ++i)
        out[i] = ts[i] > ts[0] ? double(ts[i] - ts[0]) * period_ns_ * 1e-9 : 0.0;
    return out;
}

} // namespace ff::engine::detail

namespace ff::engine {

std::vector<float> render(const Device& device, const Model& model, uint32_t width, uint32_t height,
                          const KernelOverrides& kernels) {
    detail::CommandRunner runner(device.impl());
    detail::GpuModel gpu(device.impl(), runner, model, 0, kernels);
    return detail::render_buffers(device.impl(), runner, gpu, width, height);
}

} // namespace ff::engine
