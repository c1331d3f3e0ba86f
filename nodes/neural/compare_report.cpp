// CompareReport: the representations of one image side by side: PSNR, SSIM, parameter count and
// training time of each connected model's render (grid+MLP, SIREN, splats) and of the bilinear
// baseline, as a Markdown table (ready for bench/RESULTS.md) and JSON.
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
        if (stats.contains("train_seconds")) row.train_seconds = stats["train_seconds"].get<double>();
        if (stats.contains("steps_per_second"))
            row.steps_per_second = stats["steps_per_second"].get<double>();
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
        rows.push_back({"bilinear", m.psnr, m.ssim, uint64_t(grid.width) * grid.height * 3,
                        std::nullopt, std::nullopt,
                        std::to_string(grid.width) + "x" + std::to_string(grid.height) +
                            " area-downscaled RGB, bilinear up"});
    }
    if (rows.empty()) throw Error("no model or bilinear image is connected: nothing to compare");

    const uint32_t w = uint32_t(truth.cols), h = uint32_t(truth.rows);
    const std::string markdown = compare_markdown(node.string("title"), w, h, rows);
    const std::string metrics = compare_json(w, h, rows).dump(2) + "\n";
    if (const std::string path = node.string("path"); !path.empty())
        ff::nodes::atomic_write_file(path, markdown);
    if (const std::string path = node.string("metrics"); !path.empty())
        ff::nodes::atomic_write_file(path, metrics);
    node.log("\n" + markdown);
    node.output_text("metrics", metrics);
}

} // namespace

FF_NODE(compare_report) =
    ff::op("CompareReport", "neural")
        .doc("Compares representations of one image: for each connected render (grid+MLP, SIREN, "
             "splats) and the bilinear baseline, PSNR and SSIM against the ground truth (8-bit "
             "values, as saved), parameter count and training time (from the Train stats). Writes "
             "a Markdown table and JSON.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .version(1)
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
        .param_string("bilinear_grid", std::string("auto"),
                      "the baseline's grid (as BilinearBaseline), for its parameter count")
        .param_string("title", std::string("Model comparison"), "table heading")
        .execute(execute_compare_report);

} // namespace ff::neural
