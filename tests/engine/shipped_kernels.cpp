// ff-shipped-kernels: every kernel the engine builds for the shipped models, listed with a hash of
// its SPIR-V, for devices it need not have. A refactoring of the kernels or of the choices that
// pick them keeps the SPIR-V of every listed kernel byte-identical unless it means to change it:
// list before, list after, diff.
//
//   ff-shipped-kernels [--device nvidia|lavapipe|all] [--defines] [--probe]
//
// Each line: device, model, image, batch, the kernel's role, its shader and the XXH3-128 of its
// SPIR-V (then, with --defines, its defines). The models are those the benchmark and the example
// graphs train: the lake model's dense grid at widths 16-128, the hash grids of the benchmark's
// recipes, SIRENs; the trainer's kernels at batches 2^10..2^22 on two photo shapes; the splat and
// image kernels, whose requests do not depend on a model. --probe prints the features of the
// device this machine opens, to compare with the lavapipe set below.
#include "fieldflow/engine/engine.hpp"
#include "vulkan/device_features.hpp"
#include "known_devices.hpp"
#include "vulkan/shader_compiler.hpp"
#include "field/gpu_model.hpp"
#include "field/training_plan.hpp"
#include "vulkan/vk_device.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

#include <cstdio>
#include <cstring>
#include <future>
#include <map>
#include <mutex>
#include <string>
#include <vector>

namespace {

using namespace ff::engine;
using detail::DeviceFeatures;
using detail::KernelRequest;

using test::lavapipe;
using test::nvidia_h100;

struct NamedModel {
    std::string name;
    ModelConfig config;
    TrainOptions options;
};

std::vector<NamedModel> shipped_models() {
    std::vector<NamedModel> models;
    // The lake model (ff-engine-bench's default: leuvenA's grid, 751/4 x 563/4) at every width.
    for (uint32_t width : {16u, 32u, 64u, 128u}) {
        ModelConfig c;
        c.grid_width = 187;
        c.grid_height = 140;
        c.hidden_width = width;
        models.push_back({"lake" + std::to_string(width), c, {}});
    }
    // A small photo's grid (96 x 72 pixels): few cells, each read by many samples of a workgroup,
    // whose gradients are summed in the step's shared memory (ENC_LOCAL_CELLS).
    for (uint32_t width : {16u, 32u}) {
        ModelConfig c;
        c.grid_width = 24;
        c.grid_height = 18;
        c.hidden_width = width;
        models.push_back({"small" + std::to_string(width), c, {}});
    }
    // Width 128 with one hidden layer: the ends by columns with staged inputs but no late pass.
    {
        ModelConfig c;
        c.grid_width = 187;
        c.grid_height = 140;
        c.hidden_width = 128;
        c.hidden_layers = 1;
        models.push_back({"lake128x1", c, {}});
    }
    // The benchmark's hash grids (16 levels of 2 features from 16 cells, scale 1.3): 2^12 rows and
    // a 32-wide MLP, 2^15 and 64; the gigapixel graph's 2^20 at scale 1.65; the defaults.
    auto hash = [](uint32_t log2_table, float scale, uint32_t width) {
        ModelConfig c;
        c.grid_width = c.grid_height = 0;
        c.encoding.kind = EncodingKind::hash_grid;
        c.encoding.hash = {.levels = 16, .features = 2, .log2_table_size = log2_table, .base_resolution = 16,
                           .per_level_scale = scale};
        c.hidden_width = width;
        return c;
    };
    TrainOptions hash_rates;
    hash_rates.lr_mlp = hash_rates.lr_grid = 0.01f;
    models.push_back({"hash12x32", hash(12, 1.3f, 32), hash_rates});
    models.push_back({"hash15x64", hash(15, 1.3f, 64), hash_rates});
    models.push_back({"hash20x32", hash(20, 1.65f, 32), hash_rates});
    // SIRENs (omega 30) of the benchmark's recipes.
    for (auto [width, layers] : std::vector<std::pair<uint32_t, uint32_t>>{{16, 2}, {32, 3}, {64, 3}, {64, 5}})
        models.push_back({"siren" + std::to_string(width) + "x" + std::to_string(layers),
                          siren_config(width, layers, 30.0f), {}});
    return models;
}

std::string hex(XXH128_hash_t h) {
    char text[33];
    std::snprintf(text, sizeof text, "%016llx%016llx", (unsigned long long)h.high64, (unsigned long long)h.low64);
    return text;
}

std::string request_key(const KernelRequest& r) {
    std::string key = r.shader + "|" + std::to_string(r.bindings);
    for (const auto& [k, v] : r.defines) key += "|" + k + "=" + v;
    return key;
}

struct Line {
    std::string where; // device model image batch role
    KernelRequest request;
};

void add_model_kernels(const std::string& device_name, const DeviceFeatures& device, std::vector<Line>& lines) {
    // Two photo shapes of 8-bit sources, and one of a 16-bit source (the RGBA16 training image).
    struct Image {
        uint32_t width, height, bits;
    };
    const Image images[] = {{751, 563, 8}, {800, 640, 8}, {751, 563, 16}};
    for (const NamedModel& m : shipped_models())
        for (const Image& image : images)
            for (uint32_t log2_batch = 10; log2_batch <= 22; ++log2_batch) {
                TrainOptions o = m.options;
                o.batch = 1u << log2_batch;
                const std::string where = device_name + " " + m.name + " " + std::to_string(image.width) + "x" +
                                          std::to_string(image.height) + (image.bits == 16 ? "x16" : "") + " 2^" +
                                          std::to_string(log2_batch);
                try {
                    const detail::TrainingPlan plan =
                        detail::plan_training(device, m.config, o, image.width, image.height, image.bits);
                    lines.push_back({where + " train", plan.train});
                    lines.push_back({where + " optimizer", plan.optimizer});
                    lines.push_back({where + " render", plan.render});
                    lines.push_back({where + " squared_error", plan.squared_error});
                    if (plan.settle) lines.push_back({where + " settle", *plan.settle});
                    if (plan.deferred) lines.push_back({where + " deferred_sums", *plan.deferred});
                    if (image.bits == 16) continue;
                    // The engine's tests train the same kernels on samples they give (EXPLICIT_SAMPLES).
                    lines.push_back({where + " train_explicit", detail::train_kernel_request(m.config, plan.tiling, true, {})});
                    if (plan.deferred)
                        lines.push_back({where + " deferred_sums_explicit",
                                         detail::deferred_sums_kernel_request(m.config, plan.tiling, true)});
                } catch (const std::exception& e) {
                    std::printf("%s (none: %s)\n", where.c_str(), e.what());
                }
            }
}

// Kernels whose requests depend on no model (splats, image operations).
void add_fixed_kernels(const std::string& device_name, std::vector<Line>& lines) {
    for (bool train : {false, true})
        for (bool write_image : {false, true}) {
            if (!train && write_image) continue;
            detail::Defines d{{"TRAIN", train ? "1" : "0"}, {"WRITE_IMAGE", write_image ? "1" : "0"}};
            lines.push_back({device_name + " splats - - raster" + (train ? "_train" : "") + (write_image ? "_image" : ""),
                             {"splat_raster.comp", d, train ? (write_image ? 7u : 6u) : 4u}});
        }
    lines.push_back({device_name + " splats - - bin_count", {"splat_bin_count.comp", {}, 2}});
    lines.push_back({device_name + " splats - - scan", {"splat_scan.comp", {}, 4}});
    lines.push_back({device_name + " splats - - emit", {"splat_emit.comp", {}, 3}});
    lines.push_back({device_name + " splats - - adam", {"splat_adam.comp", {}, 4}});
    lines.push_back({device_name + " image - - grayscale", {"grayscale.comp", {}, 2}});
    lines.push_back({device_name + " image - - downsample", {"downsample.comp", {}, 2}});
}

void probe() {
    Device device = Device::open("auto");
    const DeviceFeatures& f = device.impl().features();
    std::printf("%s: coopmat %d narrow %d shared_blocks %d fixed_point %d cpu %d loops_capped %d subgroup %u "
                "multiprocessors %u max_shared %u max_invocations %u max_group_count %u max_buffer_bytes %llu "
                "memory_bytes %llu\n",
                f.name.c_str(), f.coopmat, f.narrow_coopmat, f.shared_blocks, f.fixed_point_gradients, f.cpu,
                f.loops_capped, f.subgroup_size, f.multiprocessors, f.max_shared, f.max_invocations,
                f.max_group_count, (unsigned long long)f.max_buffer_bytes, (unsigned long long)f.memory_bytes);
}

} // namespace

int main(int argc, char** argv) {
    std::string which = "all";
    bool print_defines = false;
    for (int i = 1; i < argc; ++i) {
        const std::string a = argv[i];
        if (a == "--device" && i + 1 < argc) which = argv[++i];
        else if (a == "--defines") print_defines = true;
        else if (a == "--probe") {
            probe();
            return 0;
        } else {
            std::fprintf(stderr, "usage: ff-shipped-kernels [--device nvidia|lavapipe|all] [--defines] [--probe]\n");
            return 2;
        }
    }
    // SPIR-V depends on the shader and its defines alone: the cache would only hide a compiler change.
    setenv("FIELDFLOW_SPIRV_CACHE_DIR", "", 1);
    std::vector<Line> lines;
    for (const auto& [name, features] : {std::pair{std::string("nvidia"), nvidia_h100()}, {"lavapipe", lavapipe()}})
        if (which == "all" || which == name) {
            add_model_kernels(name, features, lines);
            add_fixed_kernels(name, lines);
        }
    // Each distinct request compiled once, two at a time.
    std::map<std::string, const KernelRequest*> distinct;
    for (const Line& l : lines) distinct.emplace(request_key(l.request), &l.request);
    std::map<std::string, std::string> spirv_hash;
    std::mutex mutex;
    std::vector<std::pair<std::string, const KernelRequest*>> work(distinct.begin(), distinct.end());
    size_t next = 0;
    int failures = 0;
    auto worker = [&] {
        for (;;) {
            std::pair<std::string, const KernelRequest*> item;
            {
                std::lock_guard lock(mutex);
                if (next == work.size()) return;
                item = work[next++];
            }
            std::string hash;
            try {
                const detail::CompileResult r = detail::compile_shader(item.second->shader, item.second->defines);
                hash = hex(XXH3_128bits(r.spirv.data(), r.spirv.size() * 4));
            } catch (const std::exception& e) {
                hash = std::string("COMPILE-ERROR ") + e.what();
                std::lock_guard lock(mutex);
                ++failures;
            }
            std::lock_guard lock(mutex);
            spirv_hash[item.first] = hash;
        }
    };
    std::future<void> second = std::async(std::launch::async, worker);
    worker();
    second.get();
    for (const Line& l : lines) {
        const std::string key = request_key(l.request);
        std::printf("%s %s %s", l.where.c_str(), l.request.shader.c_str(), spirv_hash[key].c_str());
        if (print_defines) std::printf(" %s", key.c_str());
        std::printf("\n");
    }
    std::fprintf(stderr, "ff-shipped-kernels: %zu kernels, %zu distinct requests, %d failed to compile\n",
                 lines.size(), distinct.size(), failures);
    return failures ? 1 : 0;
}
