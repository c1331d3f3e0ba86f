// BilinearBaseline: what a plain grid of the model's size can represent, as the reference the
// learned model must beat. Down to the grid size with area averaging, back up with bilinear.
#include "common/grid_size.hpp"
#include "common/image_mat.hpp"
#include "image/baseline_resize.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <string>

namespace {

constexpr const char* kParamsGrid = "params";
constexpr const char* kModelGrid = "model";

// A Train node's stats: its parameter count (positive) and its feature grid (0x0 when the model
// has none).
struct ModelSize {
    uint64_t parameters = 0;
    ff::nodes::GridSize grid;
};

ModelSize model_size(ff::Node& node, const std::string& mode) {
    const auto blob = node.optional_blob("stats");
    if (!blob)
        throw ff::ParamError("grid", "grid '" + mode + "' needs the stats input (a Train node's stats), "
                                     "whose parameter_count sets the grid");
    const nlohmann::json stats = nlohmann::json::parse(std::string(reinterpret_cast<const char*>(blob->data()), blob->size()), nullptr, false);
    if (!stats.is_object() || !stats.contains("parameter_count") || !stats["parameter_count"].is_number_unsigned() ||
        stats["parameter_count"].get<uint64_t>() == 0)
        throw ff::Error("input 'stats' holds no positive parameter_count (is it a Train node's stats?)");
    ModelSize size{stats["parameter_count"].get<uint64_t>(), {}};
    auto side = [&](const char* key) {
        return stats.contains(key) && stats[key].is_number_unsigned() ? stats[key].get<uint32_t>() : 0u;
    };
    size.grid = {side("grid_width"), side("grid_height")};
    return size;
}

} // namespace

FF_NODE(bilinear_baseline) =
    ff::op("BilinearBaseline", "image")
        .doc("The baseline a learned model must beat: the image shrunk to the feature-grid size "
             "with area averaging (INTER_AREA), then scaled back to its own size bilinearly "
             "(INTER_LINEAR). With grid 'auto' the grid is the size the Train node uses: the "
             "image size / 4, rounded down; with grid 'params' it holds as many values as the "
             "model of the `stats` input has parameters (a comparison at equal size, for "
             "encodings whose size is not a grid's); with grid 'model' it is that model's own "
             "feature grid when it has one, else as 'params'. Gray, RGB and RGBA keep their channels "
             "(alpha is scaled like the colours).")
        .input("image", ff::kImage, "image to approximate")
        .optional_input("stats", ff::kJson,
                        "a Train node's stats (grid 'params' and 'model' read its parameter_count and grid)")
        .output("image", ff::kImage, "baseline reconstruction, same size as the input")
        .param_string("grid", "auto",
                      "grid size: 'auto' (image / 4), 'WxH' / 'W,H', 'params' (the model's "
                      "parameter count in values, from the stats input) or 'model' (the model's "
                      "feature grid, or 'params' for a model without one)")
        .validate([](ff::Node& node) {
            if (node.string("grid") == kParamsGrid || node.string("grid") == kModelGrid) return;
            try {
                ff::nodes::parse_grid_spec(node.string("grid"));
            } catch (const ff::Error& e) {
                throw ff::ParamError("grid", e.what());
            }
        })
        .execute([](ff::Node& node) {
            // Every channel as it is: gray stays gray, alpha is scaled like the colours.
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            ff::nodes::GridSize grid;
            std::string why;
            const std::string mode = node.string("grid");
            if (mode == kParamsGrid || mode == kModelGrid) {
                ModelSize model = model_size(node, mode);
                if (mode == kParamsGrid) model.grid = {};
                grid = ff::nodes::grid_of_model(model.grid, model.parameters, uint32_t(in.channels()),
                                                uint32_t(in.cols), uint32_t(in.rows));
                why = " (" + std::to_string(uint64_t(grid.width) * grid.height * in.channels()) +
                      " values, for the model's " + std::to_string(model.parameters) + " parameters" +
                      (grid == model.grid ? ": its own grid)" : ")");
            } else {
                try {
                    grid = ff::nodes::resolve_grid_size(node.string("grid"), uint32_t(in.cols),
                                                        uint32_t(in.rows));
                } catch (const ff::Error& e) {
                    throw ff::ParamError("grid", e.what());
                }
            }
            // In bands, each answering a cancel (baseline_resize.hpp), straight into the output.
            const cv::Mat small = ff::nodes::shrink_to_grid(
                node, in, cv::Size(int(grid.width), int(grid.height)));
            float* pixels = node.output_image("image", uint32_t(in.cols), uint32_t(in.rows),
                                              uint32_t(in.channels()));
            cv::Mat out(in.size(), in.type(), pixels);
            ff::nodes::enlarge_to(node, small, out);
            node.log("grid " + std::to_string(grid.width) + "x" + std::to_string(grid.height) + why);
        });
