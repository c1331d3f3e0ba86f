// Report: ground truth | bilinear | learned side by side with PSNR/SSIM, and JPEG and WebP of the
// ground truth at the model file's bytes; an A/B view, 1:1 crops where learned wins most and where
// bilinear does, error maps and where each wins, a rate-distortion plot, the snapshot strip, the
// training curve, what ran against what was asked, what each baseline and metric is, timings,
// device and model size, as one self-contained HTML page; and the numbers as metrics.json.
#include "codec_baselines.hpp"
#include "model_alternative.hpp"
#include "model_input.hpp"
#include "png_size.hpp"
#include "png_thumbnail.hpp"
#include "neural_images.hpp"
#include "report_notes.hpp"
#include "report_page.hpp"
#include "report_rate_plot.hpp"
#include "report_views.hpp"
#include "snapshot_files.hpp"
#include "training_log.hpp"

#include "common/atomic_write.hpp"
#include "common/grid_size.hpp"
#include "common/image_mat.hpp"
#include "common/side_task.hpp"
#include "common/whole_file.hpp"
#include "metrics/error_map.hpp"
#include "metrics/image_metrics.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/core/utility.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <set>

namespace ff::neural {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

std::string bytes_text(double bytes) {
    if (bytes >= 1024.0 * 1024.0) return fixed(bytes / (1024.0 * 1024.0), 2) + " MiB";
    if (bytes >= 1024.0) return fixed(bytes / 1024.0, 1) + " KiB";
    return fixed(bytes, 0) + " bytes";
}

std::optional<PngBytes> read_png_file(const fs::path& path) {
    if (path.empty()) return std::nullopt;
    std::optional<PngBytes> bytes = ff::nodes::read_whole_file(path);
    if (!bytes || bytes->size() < 8) return std::nullopt;
    return bytes;
}

// The page stays under this size at any image size (the views and strip shrink until it does).
constexpr size_t kPageBudget = 10'000'000;
// Sizes tried in turn: the longest side of the shown images, and the snapshot strip's width
// (wide enough for a strip column on a high-density screen at first).
constexpr int kViewSides[] = {1280, 1024, 768, 512, 384, 256};
constexpr int kStripWidths[] = {320, 320, 240, 160, 120, 80};
constexpr int kCropsPerSide = 2; // where learned wins most, and where bilinear does
constexpr int kThumbnailHeight = 72;

// `target` relative to the folder of the page at `page_path`, for a link; empty when it has none.
std::string link_from(const std::string& page_path, const fs::path& target) {
    if (target.empty()) return {};
    std::error_code ec;
    fs::path base = fs::absolute(fs::path(page_path), ec).parent_path();
    fs::path file = fs::absolute(target, ec);
    if (ec) return {};
    return file.lexically_normal().lexically_relative(base.lexically_normal()).generic_string();
}

// The JSON object on an optional input; nullopt when unconnected, an error naming the port when
// it is not a JSON object.
std::optional<json> json_object_input(const Node& node, const char* port) {
    const auto blob = node.optional_blob(port);
    if (!blob) return std::nullopt;
    json j = json::parse(reinterpret_cast<const char*>(blob->data()),
                         reinterpret_cast<const char*>(blob->data()) + blob->size(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error(std::string("input '") + port + "' is not a JSON object");
    return j;
}

// Training facts: from the Train node's stats when connected, else from the model file's header.
json training_facts(const Node& node, const std::optional<ff::engine::ModelFile>& model) {
    json facts = json::object();
    if (std::optional<json> stats = json_object_input(node, "stats")) facts = std::move(*stats);
    if (model) {
        const ff::engine::TrainingInfo& t = model->training;
        facts.emplace("steps", t.steps);
        facts.emplace("train_seconds", t.train_seconds);
        facts.emplace("device", t.device);
        facts.emplace("kernel_path", t.kernel_path);
        facts.emplace("batch", t.batch);
        facts.emplace("grid_width", model->model.config.grid_width);
        facts.emplace("grid_height", model->model.config.grid_height);
        facts.emplace("parameter_count", model->kind == ff::engine::ModelKind::splats
                                              ? model->splats.parameter_count()
                                              : model->model.parameter_count());
        if (t.train_seconds > 0) facts.emplace("steps_per_second", t.steps / t.train_seconds);
    }
    return facts;
}

// PngSize's output on input 'png_size', when connected.
std::optional<PngSize> png_size_input(const Node& node) {
    const std::optional<json> j = json_object_input(node, "png_size");
    if (!j) return std::nullopt;
    if (!j->contains("png_bytes") || !(*j)["png_bytes"].is_number_unsigned() || !j->contains("estimated") ||
        !(*j)["estimated"].is_boolean())
        throw Error("input 'png_size' is not PngSize's output ({\"png_bytes\": N, \"estimated\": true|false})");
    return PngSize{(*j)["png_bytes"].get<size_t>(), (*j)["estimated"].get<bool>()};
}

// The bilinear baseline's grid as BilinearBaseline resolves the `bilinear_grid` param: 'auto',
// 'WxH', 'params' (as many values as the model has parameters) or 'model' (the model's own grid,
// else as 'params').
ff::nodes::GridSize baseline_grid(const Node& node, cv::Size image, uint64_t parameters,
                                  ff::nodes::GridSize model_grid) {
    const std::string spec = node.string("bilinear_grid");
    if (spec == "params" || spec == "model") {
        if (parameters == 0)
            throw ParamError("bilinear_grid", "bilinear_grid '" + spec +
                                                  "' needs the model's parameter count (inputs 'stats' or 'model')");
        return ff::nodes::grid_of_model(spec == "model" ? model_grid : ff::nodes::GridSize{}, parameters, 3,
                                        uint32_t(image.width), uint32_t(image.height));
    }
    try {
        return ff::nodes::resolve_grid_size(spec, uint32_t(image.width), uint32_t(image.height));
    } catch (const Error& e) {
        throw ParamError("bilinear_grid", e.what());
    }
}

// The codecs the `codecs` param names ("jpeg,webp"; empty: none).
std::vector<Codec> codecs_param(const Node& node) {
    std::vector<Codec> out;
    std::string list = node.string("codecs");
    size_t at = 0;
    while (at <= list.size()) {
        const size_t comma = std::min(list.find(',', at), list.size());
        std::string name = list.substr(at, comma - at);
        std::erase(name, ' ');
        if (name == "jpeg") out.push_back(Codec::jpeg);
        else if (name == "webp") out.push_back(Codec::webp);
        else if (!name.empty()) throw ParamError("codecs", "codecs: '" + name + "' is not jpeg or webp");
        at = comma + 1;
    }
    return out;
}

void execute_report(Node& node) {
    const std::string path = node.string("path");
    const std::string metrics_path = node.string("metrics");
    const std::string snapshots = node.string("snapshots");
    const std::string title = node.string("title");
    const std::string thumbnail_path = node.string("thumbnail");
    const std::vector<Codec> codecs = codecs_param(node);

    const ImageView truth_view = node.image("ground_truth");
    const cv::Mat truth = ff::nodes::rgb_mat(truth_view, "ground_truth");
    auto compared = [&](const char* port) {
        cv::Mat image = ff::nodes::rgb_mat(node.image(port), port);
        if (image.size() != truth.size())
            throw Error(std::string("input '") + port + "' is " + ff::nodes::size_text(image.size()) +
                        " but the ground truth is " + ff::nodes::size_text(truth.size()) +
                        "; the report compares images of the same size");
        return image;
    };
    const cv::Mat bilinear = compared("bilinear");
    const cv::Mat learned = compared("learned");

    std::optional<ff::engine::ModelFile> model;
    std::optional<size_t> model_bytes;
    if (auto blob = node.optional_blob("model")) {
        model = decode_model(*blob, "input 'model'");
        model_bytes = blob->size();
    }
    const json facts = training_facts(node, model);
    if (!model_bytes && facts.contains("model_bytes")) model_bytes = fact<size_t>(facts, "model_bytes", 0);

    // Progress in parts of 1000: SSIM of each image (the long part on large images), the codecs,
    // then the error maps and crops, then the page. Every check also answers an interrupt.
    constexpr uint64_t kParts = 1000;
    auto phase = [&](uint64_t from, uint64_t to, const char* what) -> ff::metrics::WorkCheck {
        return [&node, from, to, what](size_t done, size_t total) {
            node.throw_if_cancelled();
            node.progress(from + (to - from) * done / std::max<size_t>(total, 1), kParts, what);
        };
    };
    ReportImages images;
    images.truth = ff::nodes::to_8bit(truth);
    images.bilinear = ff::nodes::to_8bit(bilinear);
    images.learned = ff::nodes::to_8bit(learned);
    // The ground truth's size as a PNG at maximum compression needs nothing else and is, on small
    // images, the report's longest part (zlib level 9). A graph does best to have a PngSize node
    // compute it beside training (input 'png_size'), off the report's path; otherwise it runs here
    // beside the metrics and the first views (which gain little, its strips already busy on every
    // core). Node::cancelled() is a plain atomic read, safe from the task's thread.
    const std::optional<PngSize> given_png_size = png_size_input(node);
    std::optional<ff::nodes::SideTask<PngSize>> truth_png_task;
    if (!given_png_size)
        truth_png_task.emplace([&truth8 = images.truth, &node](const ff::nodes::StopRequested& stop) {
            return smallest_png_size(truth8, [&](size_t, size_t) {
                if (stop() || node.cancelled()) throw Cancelled();
            });
        });
    node.throw_if_cancelled();
    // Scored at the ground truth's source depth (16-bit PNG: 16-bit values), as the images are
    // saved; the page's pictures are 8-bit views.
    const uint32_t bits = ff::metrics::metrics_bits(truth_view.bits);
    const std::string computed_on = ff::nodes::depth_text(bits) + " values, as saved";
    // An 8-bit source is scored on the 8-bit images made above for the page: what compare() would
    // otherwise quantise again, twice per image. (One image after the other: SSIM's tiles take
    // OpenCV's whole thread pool, which a second caller at the same time would find busy and run
    // its tiles alone: slower than one image after the other.)
    const bool on_views = bits == 8;
    const uint32_t scored_bits = on_views ? 0 : bits;
    const cv::Mat& truth_scored = on_views ? images.truth : truth;
    const ff::metrics::ImageMetrics m_bilinear = ff::metrics::compare(
        truth_scored, on_views ? images.bilinear : bilinear, scored_bits, phase(0, 250, "SSIM of bilinear"));
    const ff::metrics::ImageMetrics m_learned = ff::metrics::compare(
        truth_scored, on_views ? images.learned : learned, scored_bits, phase(250, 500, "SSIM of learned"));

    // The same bytes spent on JPEG and WebP: the highest quality within the model file's size,
    // with each codec's curve over its quality range for the plot.
    struct Scored {
        CodecBaseline codec;
        ff::metrics::ImageMetrics metrics;
    };
    std::vector<Scored> same_bytes;
    if (model_bytes && *model_bytes > 0) {
        const bool gray = truth_view.channels <= 2;
        for (size_t i = 0; i < codecs.size(); ++i) {
            const uint64_t from = 500 + 250 * i / codecs.size(), to = 500 + 250 * (i + 1) / codecs.size();
            Scored s{codec_at_bytes(images.truth, gray, codecs[i], *model_bytes, true, phase(from, (from + to) / 2, "codecs")), {}};
            if (s.codec.unavailable.empty()) {
                cv::Mat decoded = s.codec.decoded;
                if (!on_views) decoded.convertTo(decoded, CV_32FC3, 1.0 / 255.0);
                s.metrics = ff::metrics::compare(truth_scored, decoded, scored_bits,
                                                 phase((from + to) / 2, to, "SSIM of the codecs"));
                images.others.push_back({codec_name(codecs[i]), s.codec.decoded});
            }
            same_bytes.push_back(std::move(s));
        }
    }
    // An image equal to the ground truth has an infinite PSNR: null in JSON, "identical" on the page.
    auto psnr_json = [](const ff::metrics::ImageMetrics& m) { return m.identical ? json(nullptr) : json(m.psnr); };
    auto psnr_text = [](const ff::metrics::ImageMetrics& m) {
        return m.identical ? std::string("identical to the ground truth (PSNR infinite)") : fixed(m.psnr, 2) + " dB";
    };
    auto psnr_shown = [](const ff::metrics::ImageMetrics& m) {
        return m.identical ? std::optional<double>() : std::optional<double>(m.psnr);
    };
    // Each step below takes up to about a second on a 67-megapixel image on 2 cores: a check
    // after each keeps an interrupt's answer within a second.
    images.bilinear_error = ff::metrics::absolute_error(images.truth, images.bilinear);
    node.throw_if_cancelled();
    images.learned_error = ff::metrics::absolute_error(images.truth, images.learned);
    node.throw_if_cancelled();
    ReportErrorMaps error_maps;
    error_maps.scale = shared_error_scale(images);
    node.throw_if_cancelled();
    error_maps.colours = ff::metrics::error_colour_steps(16);
    error_maps.bilinear_mean = cv::mean(images.bilinear_error)[0];
    error_maps.learned_mean = cv::mean(images.learned_error)[0];
    error_maps.win_scale = win_scale(images);
    node.throw_if_cancelled();
    const BlockErrors win_blocks = block_squared_errors(images, kWinBlock);
    std::tie(error_maps.learned_better_blocks, error_maps.bilinear_better_blocks) = block_wins(win_blocks);
    node.throw_if_cancelled();
    std::vector<ReportCrop> crops = regions_where_each_wins(images, crop_side(truth.size()), kCropsPerSide, win_blocks);
    node.progress(850, kParts, "error maps and crops");
    node.throw_if_cancelled();

    // The snapshot strip's files as written (thumbnails are made per size level, below).
    std::vector<ReportSnapshot> full_snapshots;
    std::optional<PngBytes> training_curve;
    if (!snapshots.empty()) {
        std::set<uint32_t> wanted;
        if (facts.contains("snapshot_steps") && facts["snapshot_steps"].is_array())
            for (const json& step : facts["snapshot_steps"])
                if (step.is_number_unsigned()) wanted.insert(step.get<uint32_t>());
        for (const auto& [step, files] : find_snapshots(snapshots)) {
            if (!wanted.empty() && !wanted.count(step)) continue; // left over from another run
            ReportSnapshot shot{step, read_png_file(files.prediction), read_png_file(files.feature),
                                link_from(path, files.prediction), link_from(path, files.feature)};
            // The strip shows each snapshot small (png_thumbnail below, per size level): full-size
            // predictions would make the page ~10 MB for a 40k-step run; the thumbnails link to
            // the full-size files.
            if (shot.prediction || shot.feature) full_snapshots.push_back(std::move(shot));
            node.throw_if_cancelled();
        }
        training_curve = read_png_file(TrainingLog::curve_path(fs::path(snapshots) / "training_log.csv"));
    }

    // The page's pictures at each size level, largest first; the first level's are encoded while
    // the PNG size is still running. In order: the three images, the codecs', the two error maps
    // and the win map, then the snapshot thumbnails.
    const size_t codec_views = images.others.size();
    const size_t first_snapshot_view = 3 + codec_views + 3;
    auto encode_views = [&](size_t level) {
        const int side = kViewSides[level];
        // The views and the snapshot thumbnails are independent PNG encodes: one per core.
        std::vector<std::function<PngBytes()>> encodes = {
            [&images, side] { return rgb8_png(view_of(images.truth, side)); },
            [&images, side] { return rgb8_png(view_of(images.bilinear, side)); },
            [&images, side] { return rgb8_png(view_of(images.learned, side)); },
        };
        for (const auto& other : images.others)
            encodes.push_back([&image = other.second, side] { return rgb8_png(view_of(image, side)); });
        encodes.push_back([&images, &error_maps, side] { return error_view_png(images.bilinear_error, side, float(error_maps.scale)); });
        encodes.push_back([&images, &error_maps, side] { return error_view_png(images.learned_error, side, float(error_maps.scale)); });
        encodes.push_back([&images, &error_maps, side] { return win_map_png(images, side, float(error_maps.win_scale)); });
        // Both rows of the strip as thumbnails: a large photo's feature grid is megapixels too
        // (2048x2048 at 8192x8192, ~2.5 MB a snapshot as written).
        for (const ReportSnapshot& shot : full_snapshots)
            for (const std::optional<PngBytes>* png : {&shot.prediction, &shot.feature})
                if (*png)
                    encodes.push_back([png, width = kStripWidths[level]] { return png_thumbnail(**png, width); });
        std::vector<PngBytes> views = encode_in_parallel(encodes);
        node.throw_if_cancelled();
        return views;
    };
    std::vector<PngBytes> first_views = encode_views(0);
    node.progress(900, kParts, "page");
    const PngSize truth_png = given_png_size ? *given_png_size : truth_png_task->get();

    const uint64_t parameters = fact<uint64_t>(facts, "parameter_count", 0);
    const ff::nodes::GridSize bilinear_grid =
        baseline_grid(node, truth.size(), parameters,
                      {fact<uint32_t>(facts, "grid_width", 0), fact<uint32_t>(facts, "grid_height", 0)});
    json metrics = {
        {"psnr_learned", psnr_json(m_learned)},
        {"psnr_bilinear", psnr_json(m_bilinear)},
        {"learned_identical", m_learned.identical},
        {"bilinear_identical", m_bilinear.identical},
        {"ssim_learned", m_learned.ssim},
        {"ssim_bilinear", m_bilinear.ssim},
        {"mse_learned", m_learned.mse},
        {"mse_bilinear", m_bilinear.mse},
        {"metrics_on", computed_on},
        {"ssim_window", "11x11 Gaussian, sigma 1.5"},
        {"image_channels", truth_view.channels},
        {"image_width", truth.cols},
        {"image_height", truth.rows},
        {"bilinear_grid_width", bilinear_grid.width},
        {"bilinear_grid_height", bilinear_grid.height},
        {"bilinear_values", uint64_t(bilinear_grid.width) * bilinear_grid.height * 3},
        {"blocks_learned_better", error_maps.learned_better_blocks},
        {"blocks_bilinear_better", error_maps.bilinear_better_blocks},
        {"steps", fact<uint64_t>(facts, "steps", 0)},
        {"batch", fact<uint64_t>(facts, "batch", 0)},
        {"asked_steps", fact<uint64_t>(facts, "asked_steps", fact<uint64_t>(facts, "steps", 0))},
        {"asked_batch", fact<uint64_t>(facts, "asked_batch", fact<uint64_t>(facts, "batch", 0))},
        {"cpu_budget", fact<std::string>(facts, "cpu_budget", "")},
        {"train_seconds", fact<double>(facts, "train_seconds", 0.0)},
        {"steps_per_second", fact<double>(facts, "steps_per_second", 0.0)},
        {"device", fact<std::string>(facts, "device", "")},
        {"kernel_path", fact<std::string>(facts, "kernel_path", "")},
        {"parameter_count", parameters},
        {"model_bytes", model_bytes.value_or(0)},
        {"model_precision", model ? std::string(ff::engine::weight_precision_name(model->precision)) : std::string()},
        {"png_bytes", truth_png.bytes},
        {"png_bytes_estimated", truth_png.estimated},
    };
    // Which model ran and what the other grid encoding would cost (model_alternative.hpp).
    std::optional<ReportNote> model_text;
    if (model && model->kind == ff::engine::ModelKind::grid) {
        const std::optional<ModelAlternative> other = model_alternative(*model);
        metrics["model_summary"] = ff::engine::model_summary(model->model.config);
        if (other)
            metrics["other_encoding"] = {{"set", other->set}, {"model_summary", other->summary},
                                         {"parameter_count", other->parameters},
                                         {"model_bytes", other->bytes}, {"bytes_exact", other->bytes_exact}};
        model_text = model_note(*model, *model_bytes, other);
    }
    if (facts.contains("final_psnr")) metrics["final_training_psnr"] = facts["final_psnr"];
    if (facts.contains("device_bytes")) metrics["device_bytes"] = facts["device_bytes"];
    // Where the train node's time went besides the steps (for a run's own accounting): all wall
    // times but gpu_seconds, the steps' device time from GPU timestamps.
    for (const char* key : {"gpu_seconds", "device_open_seconds", "setup_seconds", "eval_seconds",
                            "snapshot_seconds", "wall_seconds"})
        if (facts.contains(key)) metrics[std::string("train_") + key] = facts[key];
    for (const Scored& s : same_bytes) {
        json j = {{"budget_bytes", *model_bytes}};
        if (!s.codec.unavailable.empty()) {
            j["unavailable"] = s.codec.unavailable;
        } else {
            j.update({{"quality", s.codec.chosen.quality},
                      {"bytes", s.codec.chosen.bytes},
                      {"psnr", psnr_json(s.metrics)},
                      {"ssim", s.metrics.ssim},
                      {"mse", s.metrics.mse}});
        }
        json curve = json::array();
        for (const CodecPoint& p : s.codec.curve)
            curve.push_back({{"quality", p.quality}, {"bytes", p.bytes}, {"psnr_8bit", p.psnr}});
        j["curve"] = std::move(curve);
        metrics[s.codec.codec == Codec::jpeg ? "jpeg" : "webp"] = std::move(j);
    }

    // The page.
    ReportPage page;
    page.title = title;
    page.subtitle = ff::nodes::size_text(truth.size()) + " image";
    if (uint64_t steps = metrics["steps"]; steps > 0)
        page.subtitle += ", " + std::to_string(steps) + " training steps in " +
                         fixed(metrics["train_seconds"].get<double>(), 1) + " s (wall time)";
    if (std::string device = metrics["device"]; !device.empty()) page.subtitle += " on " + device;
    page.crops = std::move(crops);
    page.training_curve = std::move(training_curve);
    page.run_notes = run_notes(facts);
    if (model_text) page.run_notes.push_back(*model_text);
    page.baseline_notes.push_back(bilinear_note(bilinear_grid.width, bilinear_grid.height, 3, parameters));
    for (const Scored& s : same_bytes) page.baseline_notes.push_back(codec_note(s.codec, *model_bytes));
    page.metric_notes = metric_notes(computed_on);

    const double gain = m_learned.psnr - m_bilinear.psnr;
    const bool any_identical = m_learned.identical || m_bilinear.identical;
    page.quality = {
        {"PSNR, learned", psnr_text(m_learned)},
        {"PSNR, bilinear", psnr_text(m_bilinear)},
        {"Learned minus bilinear", any_identical ? std::string("not a number (an image is identical to the ground truth)")
                                                 : (gain >= 0 ? "+" : "") + fixed(gain, 2) + " dB"},
        {"SSIM, learned", fixed(m_learned.ssim, 4)},
        {"SSIM, bilinear", fixed(m_bilinear.ssim, 4)},
    };
    for (const Scored& s : same_bytes) {
        const std::string name = codec_name(s.codec.codec);
        if (!s.codec.unavailable.empty()) {
            page.quality.push_back({name + " at the model's bytes", "none: " + s.codec.unavailable});
            continue;
        }
        page.quality.push_back({"PSNR, " + name + " at the model's bytes",
                                psnr_text(s.metrics) + " (quality " + std::to_string(s.codec.chosen.quality) + ", " +
                                    grouped(s.codec.chosen.bytes) + " bytes)"});
        page.quality.push_back({"SSIM, " + name + " at the model's bytes", fixed(s.metrics.ssim, 4)});
    }
    page.quality.push_back(
        {"Computed on", computed_on + (truth_view.channels == 4 ? " (RGB; alpha is carried through, not scored)" : "")});

    // The plot: the codecs' curves, the model and the bilinear grid (as 8-bit values) as points.
    std::vector<RateSeries> series;
    for (const Scored& s : same_bytes) {
        RateSeries curve{codec_name(s.codec.codec), s.codec.codec == Codec::jpeg ? "#d95f02" : "#1b9e77", {}, true};
        for (const CodecPoint& p : s.codec.curve)
            curve.points.push_back({double(p.bytes), p.psnr, "quality " + std::to_string(p.quality)});
        series.push_back(std::move(curve));
    }
    if (!series.empty() && !m_learned.identical) {
        series.push_back({"learned model", "#7570b3",
                          {{double(*model_bytes), cv::PSNR(images.truth, images.learned),
                            model ? std::string(ff::engine::weight_precision_name(model->precision)) + " model file"
                                  : std::string("model file")}},
                          false});
        series.push_back({"bilinear grid, 8-bit", "#888",
                          {{double(metrics["bilinear_values"].get<uint64_t>()), cv::PSNR(images.truth, images.bilinear),
                            "bilinear"}},
                          false});
        page.rate_plot_svg = rate_plot_svg(series);
    }

    page.training = timing_rows(facts);
    auto add = [&](const char* name, const std::string& value) { page.training.push_back({name, value}); };
    if (metrics["steps"].get<uint64_t>() > 0) {
        add("Steps", grouped(metrics["steps"].get<uint64_t>()) + " (asked: " +
                         grouped(metrics["asked_steps"].get<uint64_t>()) + ")");
        if (facts.contains("batch"))
            add("Batch", grouped(metrics["batch"].get<uint64_t>()) + " (asked: " +
                             grouped(metrics["asked_batch"].get<uint64_t>()) + ")");
        if (facts.contains("final_loss"))
            add("Final training loss (MSE)", fixed(fact<double>(facts, "final_loss", 0), 6));
    }
    if (!metrics["device"].get<std::string>().empty()) add("Device", metrics["device"]);
    if (facts.contains("device_type")) add("Device type", fact<std::string>(facts, "device_type", ""));
    if (!metrics["kernel_path"].get<std::string>().empty()) add("Kernel path", metrics["kernel_path"]);
    if (facts.contains("device_bytes"))
        add("Device memory", bytes_text(fact<double>(facts, "device_bytes", 0)));
    if (model) {
        const auto& c = model->model.config;
        if (model->kind == ff::engine::ModelKind::splats)
            add("Model", std::to_string(model->splats.config.count) + " Gaussian splats");
        else
            add("Model", ff::engine::model_summary(c));
    }
    if (parameters > 0) add("Parameters", grouped(parameters));
    if (model_bytes)
        add("Model file", bytes_text(double(*model_bytes)) + " (" + grouped(*model_bytes) + " bytes" +
                              (model ? std::string(", ") + std::string(ff::engine::weight_precision_name(model->precision)) +
                                           " weights"
                                     : std::string()) +
                              ")");
    add("Ground truth as lossless PNG", bytes_text(double(truth_png.bytes)) + " (" + grouped(truth_png.bytes) +
                                            " bytes, maximum compression" +
                                            (truth_png.estimated ? ", estimated from " + std::to_string(PngSizeSampling{}.strips) +
                                                                       " strips of the image)"
                                                                 : std::string(")")) +
                                            "; the model is lossy: compare it with the codecs at its bytes above");

    // The page at the largest sizes that keep it within the budget.
    std::string html;
    for (size_t level = 0; level < std::size(kViewSides); ++level) {
        std::vector<PngBytes> views = level == 0 ? std::move(first_views) : encode_views(level);
        page.snapshots = full_snapshots;
        size_t next = first_snapshot_view;
        for (ReportSnapshot& shot : page.snapshots)
            for (std::optional<PngBytes>* png : {&shot.prediction, &shot.feature})
                if (*png) *png = std::move(views[next++]);
        page.images = {
            {"Ground truth", std::move(views[0]), std::nullopt, std::nullopt},
            {"Bilinear", std::move(views[1]), psnr_shown(m_bilinear), m_bilinear.ssim},
            {"Learned", std::move(views[2]), psnr_shown(m_learned), m_learned.ssim},
        };
        size_t shown_codec = 0;
        for (const Scored& s : same_bytes)
            if (s.codec.unavailable.empty())
                page.images.push_back({codec_name(s.codec.codec) + " at the model's bytes (q" +
                                           std::to_string(s.codec.chosen.quality) + ")",
                                       std::move(views[3 + shown_codec++]), psnr_shown(s.metrics), s.metrics.ssim});
        error_maps.bilinear = std::move(views[3 + codec_views]);
        error_maps.learned = std::move(views[4 + codec_views]);
        error_maps.win_map = std::move(views[5 + codec_views]);
        page.error_maps = error_maps;
        const cv::Size shown = view_size(truth.size(), kViewSides[level]);
        page.view_note = shown == truth.size()
                             ? std::string()
                             : "Shown at " + ff::nodes::size_text(shown) +
                                   ", scaled down (area average) from " + ff::nodes::size_text(truth.size()) +
                                   "; the crops below show full-resolution pixels.";
        html = render_report_html(page);
        node.progress(900 + 100 * (level + 1) / std::size(kViewSides), kParts, "page");
        node.throw_if_cancelled();
        if (html.size() <= kPageBudget) break;
    }
    if (html.size() > kPageBudget)
        node.warn("report page is " + bytes_text(double(html.size())) + ", above the " +
                  bytes_text(double(kPageBudget)) + " aimed at, even with the smallest views");
    const std::optional<PngBytes> thumbnail =
        thumbnail_path.empty() ? std::nullopt : std::optional<PngBytes>(index_thumbnail(images, kThumbnailHeight));
    node.throw_if_cancelled(); // the last point where stopping leaves no output at all
    const std::string metrics_text = metrics.dump(2) + "\n";
    std::vector<ff::nodes::FileBytes> files{{path, html}};
    if (!metrics_path.empty()) files.push_back({metrics_path, metrics_text});
    if (thumbnail)
        files.push_back({thumbnail_path, std::string_view(reinterpret_cast<const char*>(thumbnail->data()), thumbnail->size())});
    for (const Scored& s : same_bytes) {
        const std::string file = node.string(s.codec.codec == Codec::jpeg ? "jpeg" : "webp");
        if (!file.empty() && s.codec.unavailable.empty())
            files.push_back({file, std::string_view(reinterpret_cast<const char*>(s.codec.file.data()), s.codec.file.size())});
    }
    ff::nodes::atomic_write_files(files);
    std::string line = "report " + path + ": learned " + psnr_text(m_learned) + ", bilinear " + psnr_text(m_bilinear);
    for (const Scored& s : same_bytes)
        if (s.codec.unavailable.empty())
            line += ", " + codec_name(s.codec.codec) + " at the model's bytes " + psnr_text(s.metrics);
    node.log(line);
    node.output_text("metrics", metrics_text);
}

} // namespace

FF_NODE(report) =
    ff::op("Report", "neural")
        .doc("Compares a learned image with the bilinear baseline, and with JPEG and WebP of the "
             "ground truth at the model file's bytes (the highest quality that fits, found by "
             "search), against the ground truth: one self-contained HTML page (images embedded, "
             "at most 10 MB at any image size) with them side by side and their PSNR/SSIM, what "
             "ran against what was asked (the CPU budget), what each baseline and metric is, an "
             "A/B view with zoom, 1:1 crops where learned wins most and where bilinear does, both "
             "error maps on one colour scale and where each wins, PSNR against bytes (the codecs' "
             "curves, the model as a point), the training snapshot strip and curve, timings "
             "(device time from GPU timestamps, wall times named so), device and model size; and "
             "metrics.json (psnr_learned, psnr_bilinear, ssim_learned, ssim_bilinear, jpeg, webp, "
             "steps, asked_steps, train_seconds, device, ...). Metrics use the ground truth's "
             "source depth (8- or 16-bit values, or floats), as the images are saved; a PSNR of an "
             "image identical to the ground truth is null in metrics.json and \"identical\" on "
             "the page.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(2)
        .input("ground_truth", kImage, "the original image")
        .input("bilinear", kImage, "the bilinear baseline, same size")
        .input("learned", kImage, "the learned model's render, same size")
        .optional_input("stats", kJson, "Train's stats output (steps, timings, device)")
        .optional_input("model", kModel, "the model, for its size and configuration")
        .optional_input("png_size", kJson,
                        "PngSize's output for the ground truth (computed here when not connected)")
        .output("metrics", kJson, "the metrics.json content")
        .param_string("path", std::nullopt, "HTML file to write, e.g. out/lake/report.html")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("metrics", std::string(""), "metrics JSON file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("snapshots", std::string(""),
                      "Train's snapshot folder, for the snapshot strip and training curve")
        .param_string("title", std::string("Learned image vs bilinear baseline"),
                      "page title")
        .param_string("codecs", std::string("jpeg,webp"),
                      "codecs to spend the model file's bytes on: 'jpeg,webp', one of them, or empty "
                      "for none (needs the model's size: input 'model' or 'stats')")
        .param_string("jpeg", std::string(""), "the JPEG at the model's bytes to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("webp", std::string(""), "the WebP at the model's bytes to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("bilinear_grid", std::string("auto"),
                      "the bilinear input's grid, as BilinearBaseline's `grid` ('auto', 'WxH', "
                      "'params' or 'model'), for the page's account of it")
        .param_string("thumbnail", std::string(""),
                      "PNG to write for the batch index: the learned image and where it gains "
                      "(green) or loses (magenta) against bilinear; empty = none")
        .validate([](Node& node) {
            codecs_param(node);
            const std::string grid = node.string("bilinear_grid");
            if (grid == "params" || grid == "model") return;
            try {
                ff::nodes::parse_grid_spec(grid);
            } catch (const Error& e) {
                throw ParamError("bilinear_grid", e.what());
            }
        })
        .execute(execute_report);

} // namespace ff::neural
