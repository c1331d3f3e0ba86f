// ff-engine-bench: trains the engine on one PPM image and prints JSON lines (timings, PSNR,
// memory). No OpenCV, so it builds with -DFIELDFLOW_ENGINE_ONLY=ON and travels light.
//
//   ff-engine-bench --image leuvenA.ppm --steps 40000 --batch 16384 --device auto
#include "cli_args.hpp"
#include "fieldflow/engine/encoding_names.hpp"
#include "fieldflow/engine/engine.hpp"
#include "fieldflow/engine/testing.hpp"
#include "ppm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <iostream>
#include <optional>
#include <sstream>
#include <stdexcept>
#include <string>

namespace {

using namespace ff::engine;
using Clock = std::chrono::steady_clock;

struct Args {
    std::string image, device = "auto", out, save_init;
    TrainOptions train;
    uint32_t grid_divisor = 4, hidden = 32, layers = 2, report_every = 1000;
    uint32_t profile_steps = 0, render_repeats = 5, trace_steps = 0;
    bool profile_warm = false; // --profile-warm: the profile straight after training
    bool validation = false, check_paths = false;
    DeviceOptions device_options; // --kernel-path, --float-gradients, --pipeline-stats
    EncodingKind encoding = EncodingKind::dense_grid;
    bool siren = false;
    float omega = 30.0f;
    Activation output = Activation::sigmoid; // --output: the grid model's output activation
    HashGridConfig hash;
};

using ff::bench::ArgReader;

[[noreturn]] void usage(const std::string& problem);

// The kernel choices a measurement can fix (TrainOptions::kernels, kernel_overrides.hpp): each
// field's flag is --kernel- and its name with dashes (--kernel-weight-fragments 0|1).
struct SwitchFlag {
    const char* flag;
    std::optional<bool> KernelOverrides::*field;
};
struct CountFlag {
    const char* flag;
    std::optional<uint32_t> KernelOverrides::*field;
};
constexpr SwitchFlag kSwitchFlags[] = {
    {"--kernel-shared-tile", &KernelOverrides::shared_tile},
    {"--kernel-weight-fragments", &KernelOverrides::weight_fragments},
    {"--kernel-bias-fragments", &KernelOverrides::bias_fragments},
    {"--kernel-first-weight-fragments", &KernelOverrides::first_weight_fragments},
    {"--kernel-ends-by-columns", &KernelOverrides::ends_by_columns},
    {"--kernel-narrow-ends", &KernelOverrides::narrow_ends},
    {"--kernel-encoding-inputs-by-rows", &KernelOverrides::encoding_inputs_by_rows},
    {"--kernel-stage-inputs", &KernelOverrides::stage_inputs},
    {"--kernel-late-encoding", &KernelOverrides::late_encoding},
    {"--kernel-stage-targets", &KernelOverrides::stage_targets},
    {"--kernel-prefetch", &KernelOverrides::prefetch},
    {"--kernel-local-gradients", &KernelOverrides::local_gradients},
    {"--kernel-deferred-gradients", &KernelOverrides::deferred_gradients},
    {"--kernel-read-beside-claim", &KernelOverrides::read_beside_claim},
    {"--kernel-samples-xy16", &KernelOverrides::samples_xy16},
};
constexpr CountFlag kCountFlags[] = {
    {"--kernel-tile", &KernelOverrides::tile},
    {"--kernel-row-split", &KernelOverrides::row_split},
    {"--kernel-shared-rows", &KernelOverrides::shared_rows},
    {"--kernel-deferred-sets", &KernelOverrides::deferred_sets},
    {"--kernel-optimizer-params-per-group", &KernelOverrides::optimizer_params_per_group},
    {"--kernel-samples-block", &KernelOverrides::samples_block},
    {"--kernel-render-band-rows", &KernelOverrides::render_band_rows},
};

// The names of `flags` after "--kernel-", as "{a,b,...}" in lines of about 80 characters: the help
// is written from the tables that parse the flags, so it names only flags that exist.
template <class Flags> std::string kernel_flag_names(const Flags& flags) {
    std::string out = "--kernel-{", line;
    for (const auto& f : flags) {
        const std::string name = std::string(f.flag).substr(std::strlen("--kernel-"));
        if (!line.empty() && line.size() + name.size() > 80) out += line + ",\n           ", line.clear();
        line += (line.empty() ? "" : ",") + name;
    }
    return out + line + "}";
}

// Reads one of the kernel flags into `o`; false where `key` is none of them.
bool read_kernel_flag(ArgReader& args, const std::string& key, KernelOverrides& o) {
    auto choice = [&](const char* a, const char* b) {
        const std::string v = args.value();
        if (v != a && v != b) usage(key + " expects " + a + " or " + b + ", got '" + v + "'");
        return v == a;
    };
    for (const SwitchFlag& f : kSwitchFlags)
        if (key == f.flag) return o.*f.field = choice("1", "0"), true;
    for (const CountFlag& f : kCountFlags)
        if (key == f.flag) return o.*f.field = args.u32(), true;
    if (key == "--kernel-weights") o.weights_in_shared = choice("shared", "memory");
    else if (key == "--kernel-siren-path") o.siren_portable = choice("portable", "coopmat");
    else if (key == "--kernel-gradient-min-hits") o.gradient_min_hits = args.f32();
    else return false;
    return true;
}

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "ff-engine-bench: " << problem << "\n"
              << "usage: ff-engine-bench --image FILE.ppm [--steps N] [--batch N] [--seed N]\n"
              << "       [--lr-mlp X] [--lr-grid X] [--beta1 X] [--beta2 X] [--eps X]\n"
              << "       [--warmup F] [--decay-start F] [--final-scale F] [--hidden-bias X] [--grid-adam sparse|dense|dense-eager|dense-lazy] [--grid-divisor N] [--hidden N]\n"
              << "       [--layers N] [--device auto|cpu|INDEX] [--kernel-path auto|portable] [--validation] [--report-every N]\n"
              << "       [--encoding " << encoding_names("|") << "] [--hash-levels N] [--hash-features N]\n"
              << "       [--model grid|siren] [--omega X]   (siren: a sine MLP of --hidden x --layers)\n"
              << "       [--hash-log2-table N] [--hash-base N] [--hash-scale X] [--output sigmoid|linear]\n"
              << "       [--out prediction.ppm] [--profile STEPS] [--render-repeats N] [--check-paths]\n"
              << "  --profile STEPS  after training, time each dispatch over STEPS more steps (GPU timestamps)\n"
              << "  --profile-warm STEPS  the same straight after training, before the render and evaluation\n"
              << "                   (on a large photo those leave the GPU's clocks low; the PSNR then\n"
              << "                   includes these steps)\n"
              << "  --check-paths    compare the tensor-core and portable kernels on the trained model\n"
              << "                   (forward on every pixel, one forward+backward on a batch)\n"
              << "  --save-init PREFIX  write the initial model (PREFIX.init.f32: grid then padded MLP, fp32)\n"
              << "                   and the sampler's pixel indices of steps 0 and 1 (PREFIX.idx.u32), so a\n"
              << "                   peer can start from the same weights and draw the same samples\n"
              << "  --trace-steps K  report the loss of each of the first K steps\n"
              << "  --float-gradients  the encoding's gradients as float atomics, not fixed-point\n"
              << "  --pipeline-stats the driver's figures for each kernel it compiles (stderr)\n"
              << "  kernel choices fixed for a measurement (docs/engine.md, \"Measuring a kernel choice\"):\n"
              << "  --kernel-weights shared|memory  --kernel-siren-path portable|coopmat  --kernel-gradient-min-hits X\n"
              << "  " << kernel_flag_names(kCountFlags) << " N\n"
              << "  " << kernel_flag_names(kSwitchFlags) << " 0|1\n";
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args a;
    ArgReader args(argc, argv, usage);
    while (args.next()) {
        const std::string& k = args.key();
        if (k == "--image") a.image = args.value();
        else if (k == "--device") a.device = args.value();
        else if (k == "--out") a.out = args.value();
        else if (k == "--steps") a.train.steps = args.u32();
        else if (k == "--batch") a.train.batch = args.u32();
        else if (k == "--seed") a.train.seed = args.u32();
        else if (k == "--lr-mlp") a.train.lr_mlp = args.f32();
        else if (k == "--lr-grid") a.train.lr_grid = args.f32();
        else if (k == "--beta1") a.train.beta1 = args.f32();
        else if (k == "--beta2") a.train.beta2 = args.f32();
        else if (k == "--eps") a.train.epsilon = args.f32();
        else if (k == "--decay-start") a.train.lr_decay_start = args.f32();
        else if (k == "--warmup") a.train.lr_warmup = args.f32();
        else if (k == "--hidden-bias") a.train.hidden_bias = args.f32();
        else if (k == "--grid-adam") {
            std::string v = args.value();
            if (v != "sparse" && v != "dense" && v != "dense-eager" && v != "dense-lazy")
                usage("--grid-adam expects sparse, dense, dense-eager or dense-lazy, got '" + v + "'");
            a.train.grid_adam = v == "sparse" ? GridAdam::sparse : GridAdam::dense;
            a.train.dense_adam = v == "dense-lazy"    ? DenseAdam::lazy
                                 : v == "dense-eager" ? DenseAdam::eager
                                                      : DenseAdam::automatic;
        }
        else if (k == "--final-scale") a.train.lr_final_scale = args.f32();
        else if (k == "--grid-divisor") a.grid_divisor = args.u32();
        else if (k == "--hidden") a.hidden = args.u32();
        else if (k == "--layers") a.layers = args.u32();
        else if (k == "--encoding") {
            std::string v = args.value();
            std::optional<EncodingKind> kind = find_encoding(v);
            if (!kind) usage("--encoding expects " + encoding_names() + ", got '" + v + "'");
            a.encoding = *kind;
        }
        else if (k == "--model") {
            std::string v = args.value();
            if (v != "grid" && v != "siren") usage("--model expects grid or siren, got '" + v + "'");
            a.siren = v == "siren";
        }
        else if (k == "--omega") a.omega = args.f32();
        else if (k == "--output") {
            std::string v = args.value();
            if (v != "sigmoid" && v != "linear") usage("--output expects sigmoid or linear, got '" + v + "'");
            a.output = v == "linear" ? Activation::none : Activation::sigmoid;
        }
        else if (k == "--hash-levels") a.hash.levels = args.u32();
        else if (k == "--hash-features") a.hash.features = args.u32();
        else if (k == "--hash-log2-table") a.hash.log2_table_size = args.u32();
        else if (k == "--hash-base") a.hash.base_resolution = args.u32();
        else if (k == "--hash-scale") a.hash.per_level_scale = args.f32();
        else if (k == "--report-every") a.report_every = std::max(1u, args.u32());
        else if (k == "--validation") a.validation = true;
        else if (k == "--profile") a.profile_steps = args.u32();
        else if (k == "--profile-warm") {
            a.profile_steps = args.u32();
            a.profile_warm = true;
        }
        else if (k == "--render-repeats") a.render_repeats = std::max(1u, args.u32());
        else if (k == "--check-paths") a.check_paths = true;
        else if (k == "--save-init") a.save_init = args.value();
        else if (k == "--trace-steps") a.trace_steps = args.u32();
        else if (k == "--kernel-path") {
            std::string v = args.value();
            if (v != "auto" && v != "portable") usage("--kernel-path expects auto or portable, got '" + v + "'");
            a.device_options.force_portable = v == "portable";
        }
        else if (k == "--float-gradients") a.device_options.fixed_point_gradients = false;
        else if (k == "--pipeline-stats") a.device_options.pipeline_stats = true;
        else if (read_kernel_flag(args, k, a.train.kernels)) {}
        else if (k == "--help" || k == "-h") usage("help");
        else usage("unknown option " + k);
    }
    if (a.image.empty()) usage("--image is required");
    if (a.grid_divisor == 0) usage("--grid-divisor must be at least 1");
    return a;
}

double seconds_since(Clock::time_point t) {
    return std::chrono::duration<double>(Clock::now() - t).count();
}

double psnr(double mse) { return mse > 0 ? 10.0 * std::log10(1.0 / mse) : 99.0; }

// A measurement with `digits` decimals, or null when it was not taken (negative).
std::string json_measure(double value, int digits) {
    if (value < 0) return "null";
    char text[64];
    std::snprintf(text, sizeof text, "%.*f", digits, value);
    return text;
}

double mse_of(const std::vector<float>& a, const std::vector<float>& b, bool quantize) {
    double s = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        double p = std::clamp(a[i], 0.0f, 1.0f);
        if (quantize) p = std::round(p * 255.0) / 255.0;
        double d = p - b[i];
        s += d * d;
    }
    return s / double(a.size());
}

// Area-average downscale (as cv::INTER_AREA) to gw x gh, then bilinear back up with pixel centres
// aligned (as cv::INTER_LINEAR): the baseline a plain grid of the same size reaches.
std::vector<float> bilinear_baseline(const ff::bench::RgbImage& img, uint32_t gw, uint32_t gh) {
    const uint32_t W = img.width, H = img.height;
    std::vector<double> small(size_t(gw) * gh * 3, 0.0);
    double sx = double(W) / gw, sy = double(H) / gh;
    for (uint32_t gy = 0; gy < gh; ++gy) {
        double y0 = gy * sy, y1 = (gy + 1) * sy;
        for (uint32_t gx = 0; gx < gw; ++gx) {
            double x0 = gx * sx, x1 = (gx + 1) * sx, acc[3] = {0, 0, 0}, area = 0;
            for (uint32_t y = uint32_t(y0); y < std::min<double>(H, std::ceil(y1)); ++y) {
                double wy = std::min<double>(y + 1, y1) - std::max<double>(y, y0);
                for (uint32_t x = uint32_t(x0); x < std::min<double>(W, std::ceil(x1)); ++x) {
                    double w = wy * (std::min<double>(x + 1, x1) - std::max<double>(x, x0));
                    if (w <= 0) continue;
                    for (int c = 0; c < 3; ++c) acc[c] += w * img.rgb[(size_t(y) * W + x) * 3 + c];
                    area += w;
                }
            }
            for (int c = 0; c < 3; ++c) small[(size_t(gy) * gw + gx) * 3 + c] = acc[c] / area;
        }
    }
    std::vector<float> up(size_t(W) * H * 3);
    for (uint32_t y = 0; y < H; ++y) {
        double py = (y + 0.5) * gh / H - 0.5;
        int iy = int(std::floor(py));
        double fy = py - iy;
        int y0 = std::clamp(iy, 0, int(gh) - 1), y1 = std::clamp(iy + 1, 0, int(gh) - 1);
        for (uint32_t x = 0; x < W; ++x) {
            double px = (x + 0.5) * gw / W - 0.5;
            int ix = int(std::floor(px));
            double fx = px - ix;
            int x0 = std::clamp(ix, 0, int(gw) - 1), x1 = std::clamp(ix + 1, 0, int(gw) - 1);
            for (int c = 0; c < 3; ++c) {
                auto g = [&](int xx, int yy) { return small[(size_t(yy) * gw + xx) * 3 + c]; };
                double v = (1 - fy) * ((1 - fx) * g(x0, y0) + fx * g(x1, y0)) +
                           fy * ((1 - fx) * g(x0, y1) + fx * g(x1, y1));
                up[(size_t(y) * W + x) * 3 + c] = float(v);
            }
        }
    }
    return up;
}

std::string json_string(const std::string& s) {
    std::string o = "\"";
    for (char c : s) {
        if (c == '"' || c == '\\') o += '\\';
        if (static_cast<unsigned char>(c) < 0x20) continue;
        o += c;
    }
    return o + "\"";
}

// Compares the tensor-core kernels with the portable ones on one model: forward at every pixel
// (render) and one fused forward + backward on `batch` random pixels. Prints one JSON line.
void check_paths(const Args& a, const Model& model, const ff::bench::RgbImage& img) {
    DeviceOptions fast = a.device_options, portable = a.device_options;
    fast.force_portable = false;
    fast.validation = portable.validation = a.validation;
    portable.force_portable = true;
    Device dev_fast = Device::open(a.device, fast);
    Device dev_portable = Device::open(a.device, portable);
    const uint32_t w = img.width, h = img.height;
    std::vector<float> r_fast = render(dev_fast, model, w, h);
    std::vector<float> r_port = render(dev_portable, model, w, h);
    double max_render = 0;
    for (size_t i = 0; i < r_fast.size(); ++i)
        max_render = std::max(max_render, std::abs(double(r_fast[i]) - double(r_port[i])));
    double psnr_fast = psnr(mse_of(r_fast, img.rgb, true)), psnr_port = psnr(mse_of(r_port, img.rgb, true));

    // One batch of pixel centres with their image targets.
    uint32_t n = std::min<uint32_t>(a.train.batch, w * h);
    std::vector<uint32_t> idx = testing::sample_indices(dev_portable, model.config, a.train.seed, 12345, n, w, h);
    std::vector<float> uv, targets;
    for (uint32_t p : idx) {
        uv.push_back((float(p % w) + 0.5f) / float(w));
        uv.push_back((float(p / w) + 0.5f) / float(h));
        for (int c = 0; c < 3; ++c) targets.push_back(img.rgb[size_t(p) * 3 + c]);
    }
    testing::ForwardBackward f = testing::forward_backward(dev_fast, model, uv, targets, 0, {}, a.train.kernels);
    testing::ForwardBackward p = testing::forward_backward(dev_portable, model, uv, targets, 0, {}, a.train.kernels);
    double max_out = 0;
    for (size_t i = 0; i < f.outputs.size(); ++i)
        max_out = std::max(max_out, std::abs(double(f.outputs[i]) - double(p.outputs[i])));
    auto rel_l2 = [](const std::vector<float>& x, const std::vector<float>& ref) {
        double d = 0, r = 0;
        for (size_t i = 0; i < x.size(); ++i) {
            d += (double(x[i]) - ref[i]) * (double(x[i]) - ref[i]);
            r += double(ref[i]) * ref[i];
        }
        return r > 0 ? std::sqrt(d / r) : std::sqrt(d);
    };
    std::printf("{\"event\":\"check_paths\",\"paths\":[%s,%s],\"render_max_abs_diff\":%.3g,"
                "\"render_psnr_8bit\":[%.3f,%.3f],\"batch\":%u,\"forward_max_abs_diff\":%.3g,"
                "\"loss\":[%.6g,%.6g],\"grad_mlp_rel_l2\":%.3g,\"grad_grid_rel_l2\":%.3g}\n",
                json_string(dev_fast.kernel_path()).c_str(), json_string(dev_portable.kernel_path()).c_str(),
                max_render, psnr_fast, psnr_port, n, max_out, f.loss, p.loss,
                rel_l2(f.grad_mlp, p.grad_mlp), rel_l2(f.grad_encoding, p.grad_encoding));
    std::fflush(stdout);
}

// The starting point of a training run, for a peer implementation to start from the same place:
// the trainer's model before its first step (so every option that shapes it, the seed and the
// hidden bias among them, is the run's own) as raw fp32 (grid, then the MLP in its padded layout),
// and the pixel indices the sampler draws at steps 0 and 1.
void save_init(const Args& a, const Device& device, const Model& m, const ff::bench::RgbImage& img) {
    auto write = [](const std::string& path, const void* data, size_t bytes) {
        std::FILE* f = std::fopen(path.c_str(), "wb");
        if (!f || std::fwrite(data, 1, bytes, f) != bytes || std::fclose(f) != 0)
            throw std::runtime_error(path + ": cannot write");
    };
    std::vector<float> weights = m.encoding_params;
    weights.insert(weights.end(), m.mlp.begin(), m.mlp.end());
    write(a.save_init + ".init.f32", weights.data(), weights.size() * sizeof(float));
    std::vector<uint32_t> idx;
    for (uint32_t step = 0; step < 2; ++step) {
        std::vector<uint32_t> s =
            testing::sample_indices(device, m.config, a.train.seed, step, a.train.batch, img.width, img.height,
                                    a.train.kernels);
        idx.insert(idx.end(), s.begin(), s.end());
    }
    write(a.save_init + ".idx.u32", idx.data(), idx.size() * sizeof(uint32_t));
    std::printf("{\"event\":\"saved_init\",\"prefix\":%s,\"grid_floats\":%zu,\"mlp_floats\":%zu}\n",
                json_string(a.save_init).c_str(), m.encoding_params.size(), m.mlp.size());
}

// Each dispatch's GPU time over `steps` more steps, as one JSON line.
void print_profile(Trainer& trainer, uint32_t steps) {
    std::vector<DispatchTime> times = trainer.profile_dispatches(steps);
    std::printf("{\"event\":\"profile\",\"steps\":%u", std::min(steps, 1000u));
    double total = 0;
    for (const auto& t : times) {
        std::printf(",\"%s_us\":%.2f", t.name.c_str(), t.us);
        total += t.us;
    }
    std::printf(",\"step_us\":%.2f,\"kernel_path\":%s}\n", total, json_string(trainer.kernel_path()).c_str());
    std::fflush(stdout);
}

} // namespace

int main(int argc, char** argv) {
    Args a = parse(argc, argv);
    try {
        ff::bench::RgbImage img = ff::bench::read_ppm(a.image);
        ModelConfig config;
        // Same rule as the Train node's `auto` grid: image / divisor, rounded down, at least 2 (800x550 -> 200x137).
        config.grid_width = std::max(2u, img.width / a.grid_divisor);
        config.grid_height = std::max(2u, img.height / a.grid_divisor);
        config.hidden_width = a.hidden;
        config.hidden_layers = a.layers;
        config.output_activation = a.output;
        // The bilinear baseline keeps the divisor's grid size whichever encoding is trained.
        const uint32_t base_w = config.grid_width, base_h = config.grid_height;
        config.encoding.kind = a.encoding;
        // Only the dense grid has a grid to size (as in Train); the other encodings take 0x0.
        if (a.encoding != EncodingKind::dense_grid) config.grid_width = config.grid_height = 0;
        if (a.encoding == EncodingKind::hash_grid) config.encoding.hash = a.hash;
        if (a.siren) config = siren_config(a.hidden, a.layers, a.omega);
        if (std::string why = config.validate(); !why.empty()) usage(why);

        DeviceOptions dopt = a.device_options;
        dopt.validation = a.validation;
        Device device = Device::open(a.device, dopt);
        const DeviceInfo& info = device.info();
        std::printf("{\"event\":\"device\",\"name\":%s,\"type\":%s,\"driver\":%s,\"kernel_path\":%s,"
                    "\"subgroup_size\":%u,\"multiprocessors\":%u}\n",
                    json_string(info.name).c_str(), json_string(info.type).c_str(),
                    json_string(info.driver).c_str(), json_string(device.kernel_path()).c_str(),
                    info.subgroup_size, info.multiprocessors);

        // Above 64 megapixels (a gigapixel mosaic) the extras are left out: the host's bilinear
        // baseline (one core) and the 2x render (4x the pixels) would take minutes.
        const bool large = uint64_t(img.width) * img.height > (uint64_t(1) << 26);
        double base_mse = -1;
        if (!large) base_mse = mse_of(bilinear_baseline(img, base_w, base_h), img.rgb, false);

        ImageData data{img.width, img.height, img.rgb};
        auto t_setup = Clock::now();
        Trainer trainer(device, config, a.train, data);
        double setup_s = seconds_since(t_setup);
        std::printf("{\"event\":\"setup\",\"image\":%s,\"width\":%u,\"height\":%u,\"grid\":[%u,%u,%u],"
                    "\"encoding\":\"%s\",\"parameters\":%llu,\"tile\":%u,\"local_gradient_cells\":%u,"
                    "\"deferred_gradient_cells\":%u,\"setup_seconds\":%.3f,\"kernel_path_reason\":%s,\"encoding_optimizer\":%s}\n",
                    json_string(a.image).c_str(), img.width, img.height, config.grid_width,
                    config.grid_height, config.grid_channels,
                    std::string(encoding_name(config.encoding.kind)).c_str(),
                    (unsigned long long)config.parameter_count(),
                    trainer.tile_size(), trainer.local_gradient_cells(), trainer.deferred_gradient_cells(),
                    setup_s,
                    json_string(trainer.kernel_path_reason()).c_str(),
                    json_string(trainer.encoding_optimizer()).c_str());
        std::fflush(stdout);

        if (!a.save_init.empty()) save_init(a, device, trainer.model(), img);

        double wall = 0;
        float loss = 0;
        while (trainer.step() < a.train.steps) {
            uint32_t every = trainer.step() < a.trace_steps ? 1 : a.report_every;
            uint32_t n = std::min(every - trainer.step() % every, a.train.steps - trainer.step());
            auto t = Clock::now();
            loss = trainer.train(n);
            wall += seconds_since(t);
            std::printf("{\"event\":\"progress\",\"step\":%u,\"loss\":%.6g,\"wall_seconds\":%.3f,"
                        "\"gpu_seconds\":%.6f}\n",
                        trainer.step(), loss, wall, trainer.gpu_seconds());
            std::fflush(stdout);
            if (trainer.diverged()) throw EngineError("training diverged (non-finite loss)");
        }

        // The profile's steps train too, but are timed apart: the rates below are the timed steps'.
        const uint32_t timed_steps = std::max(1u, trainer.step());
        if (a.profile_steps && a.profile_warm) print_profile(trainer, a.profile_steps);
        auto t1 = Clock::now();
        std::vector<float> pred = trainer.render(img.width, img.height);
        double render1_ms = seconds_since(t1) * 1e3;
        // The render dispatch alone (GPU timestamps), best of a few: the first includes pipeline warm-up.
        double render_gpu_us = trainer.last_render_gpu_seconds() * 1e6;
        for (uint32_t r = 1; r < a.render_repeats; ++r) {
            trainer.render(img.width, img.height);
            render_gpu_us = std::min(render_gpu_us, trainer.last_render_gpu_seconds() * 1e6);
        }
        double render2_ms = -1, render2_gpu_us = -1;
        if (!large) {
            auto t2 = Clock::now();
            trainer.render(img.width * 2, img.height * 2);
            render2_ms = seconds_since(t2) * 1e3;
            render2_gpu_us = trainer.last_render_gpu_seconds() * 1e6;
        }
        double mse = mse_of(pred, img.rgb, false), mse8 = mse_of(pred, img.rgb, true);
        if (!a.out.empty()) ff::bench::write_ppm(a.out, img.width, img.height, pred);

        const uint32_t steps = timed_steps;
        double gpu_s = trainer.gpu_seconds();
        std::printf("{\"event\":\"result\",\"steps\":%u,\"batch\":%u,\"hidden\":%u,\"train_seconds\":%.4f,"
                    "\"gpu_seconds\":%.4f,\"us_per_step_gpu\":%.2f,\"us_per_step_wall\":%.2f,"
                    "\"samples_per_second\":%.4g,"
                    "\"final_loss\":%.6g,\"mse\":%.6g,\"psnr\":%.3f,\"psnr_8bit\":%.3f,"
                    "\"bilinear_psnr\":%s,\"render_ms\":%.3f,\"render_gpu_us\":%.2f,\"render_2x_ms\":%s,"
                    "\"render_2x_gpu_us\":%s,\"tile\":%u,"
                    "\"trainer_device_bytes\":%llu,\"device_bytes\":%llu,\"kernel_path\":%s,"
                    "\"device\":%s,\"validation_messages\":%zu}\n",
                    trainer.step(), a.train.batch, a.hidden, wall, gpu_s, gpu_s / steps * 1e6,
                    wall / steps * 1e6, gpu_s > 0 ? double(a.train.batch) * steps / gpu_s : 0.0, loss,
                    mse, psnr(mse), psnr(mse8), json_measure(base_mse < 0 ? -1 : psnr(base_mse), 3).c_str(), render1_ms,
                    render_gpu_us, json_measure(render2_ms, 3).c_str(), json_measure(render2_gpu_us, 2).c_str(),
                    trainer.tile_size(),
                    (unsigned long long)trainer.device_bytes(),
                    (unsigned long long)device.allocated_bytes(),
                    json_string(trainer.kernel_path()).c_str(), json_string(info.name).c_str(),
                    device.validation_messages().size());
        std::fflush(stdout);

        if (a.profile_steps && !a.profile_warm) print_profile(trainer, a.profile_steps);
        if (a.check_paths) check_paths(a, trainer.model(), img);
        return 0;
    } catch (const std::exception& e) {
        std::printf("{\"event\":\"error\",\"message\":%s}\n", json_string(e.what()).c_str());
        std::cerr << "ff-engine-bench: " << e.what() << "\n";
        return 1;
    }
}
