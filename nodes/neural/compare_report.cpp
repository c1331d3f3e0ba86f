// CompareReport: the representations of one image side by side: PSNR, SSIM, parameter count,
// file bytes and training time (device time from GPU timestamps, and wall time) of each connected
// model's render (grid+MLP, SIREN, splats), of the bilinear baseline and of JPEG and WebP at one
// model's file bytes, as a Markdown table (ready for bench/RESULTS.md), CSV and JSON.
#include "codec_baselines.hpp"
#include "compare_table.hpp"
#include "model_input.hpp"

#include "common/atomic_write.hpp"
#include "common/grid_size.hpp"
#include "common/image_mat.hpp"
#include "metrics/image_metrics.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

namespace ff::neural {
namespace {

using json = nlohmann::json;

json stats_of(const Node& node, const std::string& port) {
    auto blob = node.optional_blob(port.c_str());
    if (!blob) return json::object();
    json j = json::parse(reinterpret_cast<const char*>(blob->data()),
                         reinterpret_cast<const char*>(blob->data()) + blob->size(), nullptr, false);
    if (j.is_discarded() || !j.is_object()) throw Error("input '" + port + "' is not a JSON object");
    return j;
}

std::string configuration(const json& stats) {
    const std::string model = stats.value("model", std::string("grid"));
    auto u = [&](const char* key) { return std::to_string(stats.value(key, uint64_t(0))); };
    if (model == "splats") return u("splats") + " splats, " + u("steps") + " steps";
    std::string mlp = u("hidden_width") + "x" + u("hidden_layers");
    if (model == "siren") {
        char omega[32];
        std::snprintf(omega, sizeof omega, "%g", stats.value("omega", 0.0));
        return "sine MLP " + mlp + ", omega " + omega + ", " + u("steps") + " steps";
    }
    if (stats.contains("model_summary"))
        return stats["model_summary"].get<std::string>() + ", " + u("steps") + " steps";
    return u("grid_width") + "x" + u("grid_height") + "x" + u("grid_channels") + " grid + MLP " +
           mlp + ", " + u("steps") + " steps";
}

void execute_compare_report(Node& node) {
    const cv::Mat truth = ff::nodes::rgb_mat(node.image("ground_truth"), "ground_truth");
    std::vector<CompareRow> rows;
    const std::pair<const char*, const char*> models[] = {
        {"grid", "grid+MLP"}, {"hash", "hash grid+MLP"}, {"siren", "SIREN"}, {"splats", "splats"}};
    for (const auto& [port, name] : models) {
        auto image = node.optional_image(port);
        const std::string stats_port = std::string(port) + "_stats";
        if (!image) {
            if (node.optional_blob(stats_port.c_str()))
                throw Error("input '" + stats_port + "' is connected but '" + port + "' is not");
            continue;
        }
        const cv::Mat rendered = ff::nodes::rgb_mat(*image, port);
        if (rendered.size() != truth.size())
            throw Error("input '" + std::string(port) + "' is " + ff::nodes::size_text(rendered.size()) +
                        ", the ground truth " + ff::nodes::size_text(truth.size()));
        ff::metrics::ImageMetrics m = ff::metrics::compare(truth, rendered);
        json stats = stats_of(node, stats_port);
        CompareRow row;
        row.name = name;
        row.psnr = m.psnr;
        row.ssim = m.ssim;
        row.parameters = stats.value("parameter_count", uint64_t(0));
        if (stats.contains("model_bytes")) row.bytes = stats["model_bytes"].get<uint64_t>();
        if (stats.contains("train_seconds")) row.train_seconds = stats["train_seconds"].get<double>();
        if (stats.value("gpu_seconds", 0.0) > 0) row.device_seconds = stats["gpu_seconds"].get<double>();
        if (stats.contains("steps")) row.steps = stats["steps"].get<uint64_t>();
        row.detail = stats.empty() ? std::string("(no stats connected)") : configuration(stats);
        rows.push_back(std::move(row));
    }
    if (auto bilinear = node.optional_image("bilinear")) {
        const cv::Mat image = ff::nodes::rgb_mat(*bilinear, "bilinear");
        if (image.size() != truth.size())
            throw Error("input 'bilinear' is " + ff::nodes::size_text(image.size()) +
                        ", the ground truth " + ff::nodes::size_text(truth.size()));
        ff::metrics::ImageMetrics m = ff::metrics::compare(truth, image);
        ff::nodes::GridSize grid = ff::nodes::resolve_grid_size(
            node.string("bilinear_grid"), uint32_t(truth.cols), uint32_t(truth.rows));
        CompareRow row{"bilinear", m.psnr, m.ssim, uint64_t(grid.width) * grid.height * 3};
        row.detail = std::to_string(grid.width) + "x" + std::to_string(grid.height) + " area-downscaled RGB, bilinear up";
        rows.push_back(std::move(row));
    }
    // JPEG and WebP of the ground truth at one model's file bytes (`codec_budget`).
    if (const std::string budget_model = node.string("codec_budget"); !budget_model.empty()) {
        const json stats = stats_of(node, budget_model + "_stats");
        if (!stats.contains("model_bytes"))
            throw ParamError("codec_budget", "codec_budget '" + budget_model + "': input '" + budget_model +
                                                 "_stats' is not connected or holds no model_bytes");
        const size_t budget = stats["model_bytes"].get<size_t>();
        const cv::Mat truth8 = ff::nodes::to_8bit(truth);
        for (Codec codec : {Codec::jpeg, Codec::webp}) {
            const CodecBaseline b = codec_at_bytes(truth8, false, codec, budget, false, [&](size_t, size_t) {
                node.throw_if_cancelled();
            });
            CompareRow row{codec_name(codec) + " at " + budget_model + "'s bytes"};
            if (!b.unavailable.empty()) {
                node.warn("no " + codec_name(codec) + " row: " + b.unavailable);
                continue;
            }
            cv::Mat decoded;
            b.decoded.convertTo(decoded, CV_32FC3, 1.0 / 255.0);
            const ff::metrics::ImageMetrics m = ff::metrics::compare(truth, decoded);
            row.psnr = m.psnr;
            row.ssim = m.ssim;
            row.bytes = b.chosen.bytes;
            row.detail = "quality " + std::to_string(b.chosen.quality) + ", the highest within " +
                         std::to_string(budget) + " bytes (the " + budget_model + " model file)";
            rows.push_back(std::move(row));
        }
    }
    if (rows.empty()) throw Error("no model or bilinear image is connected: nothing to compare");

    const uint32_t w = uint32_t(truth.cols), h = uint32_t(truth.rows);
    const std::string markdown = compare_markdown(node.string("title"), w, h, rows);
    const std::string metrics = compare_json(w, h, rows).dump(2) + "\n";
    const std::string csv = compare_csv(rows);
    std::vector<ff::nodes::FileBytes> files;
    if (const std::string path = node.string("path"); !path.empty()) files.push_back({path, markdown});
    if (const std::string path = node.string("metrics"); !path.empty()) files.push_back({path, metrics});
    if (const std::string path = node.string("csv"); !path.empty()) files.push_back({path, csv});
    ff::nodes::atomic_write_files(files);
    node.log("\n" + markdown);
    node.output_text("metrics", metrics);
}

} // namespace

FF_NODE(compare_report) =
    ff::op("CompareReport", "neural")
        .doc("Compares representations of one image: for each connected render (grid+MLP, SIREN, "
             "splats), the bilinear baseline and JPEG and WebP of the ground truth at one model's "
             "file bytes (codec_budget), PSNR and SSIM against the ground truth (8-bit values, as "
             "saved), parameter count, file bytes and training time (from the Train stats: the "
             "steps' device time from GPU timestamps, which models training side by side do not "
             "share, and the training loop's wall time, which they do). Writes a Markdown table, "
             "CSV and JSON.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(2)
        .input("ground_truth", kImage, "the original image")
        .optional_input("grid", kImage, "render of the grid+MLP model")
        .optional_input("grid_stats", kJson, "its Train stats")
        .optional_input("hash", kImage, "render of the hash grid+MLP model")
        .optional_input("hash_stats", kJson, "its Train stats")
        .optional_input("siren", kImage, "render of the SIREN")
        .optional_input("siren_stats", kJson, "its Train stats")
        .optional_input("splats", kImage, "render of the splat model")
        .optional_input("splats_stats", kJson, "its Train stats")
        .optional_input("bilinear", kImage, "the bilinear baseline")
        .output("metrics", kJson, "the table as JSON")
        .param_string("path", std::string(""), "Markdown file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("metrics", std::string(""), "JSON file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("csv", std::string(""), "CSV file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("codec_budget", std::string(""),
                      "the model (grid, hash, siren, splats) whose file bytes JPEG and WebP rows get; "
                      "empty = no codec rows")
        .param_string("bilinear_grid", std::string("auto"),
                      "the baseline's grid (as BilinearBaseline), for its parameter count")
        .param_string("title", std::string("Model comparison"), "table heading")
        .execute(execute_compare_report);

} // namespace ff::neural
