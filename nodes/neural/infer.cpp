// Infer: render a model at any resolution (default: the size of the image it was trained on).
#include "device_cache.hpp"
#include "model_input.hpp"
#include "neural_images.hpp"
#include "output_size.hpp"
#include "train_splats.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include "common/image_mat.hpp"

#include <cstring>
#include <string>

namespace ff::neural {
namespace {

// The largest |weight| of an MLP model, for messages ("n/a" for a splat model).
std::string largest_weight_text(const ff::engine::ModelFile& file) {
    if (file.kind == ff::engine::ModelKind::splats || file.model.mlp.empty()) return "n/a";
    float largest = 0;
    for (float w : file.model.mlp) largest = std::max(largest, std::abs(w));
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.3g", double(largest));
    return buf;
}

void execute_infer(Node& node) {
    ff::engine::ModelFile file = read_model_input(node, "model");
    OutputSize size = infer_output_size(node.integer("width"), node.integer("height"),
                                        node.number("scale"), file.image_width, file.image_height);
    ff::engine::Device device = shared_device(device_selector(node, node.string("device")));
    std::vector<float> rgb;
    try {
        rgb = file.kind == ff::engine::ModelKind::splats
                  ? render_splat_model(device, file.splats, size.width, size.height)
                  : ff::engine::render(device, file.model, size.width, size.height);
    } catch (const ff::engine::EngineError& e) {
        throw Error(e.what());
    }
    if (rgb.size() != size_t(size.width) * size.height * 3)
        throw Error("internal error: render returned " + std::to_string(rgb.size()) + " floats");
    // Weights that overflow float arithmetic (a hand-edited or damaged file) render NaN or
    // infinity, which an 8-bit file would show as a black picture: an error, not a result.
    const size_t non_finite = size_t(std::count_if(rgb.begin(), rgb.end(), [](float v) { return !std::isfinite(v); }));
    if (non_finite > 0)
        throw Error("the model renders " + std::to_string(non_finite) + " of " + std::to_string(rgb.size()) +
                    " values as NaN or infinity: its weights overflow float arithmetic (a damaged or "
                    "hand-edited weights file?)");
    // An output activation that saturates everywhere (every value exactly 0 or 1) is what
    // overflowing weights look like through a sigmoid: a flat picture, named rather than silent.
    if (!rgb.empty() && std::all_of(rgb.begin(), rgb.end(), [](float v) { return v == 0.0f || v == 1.0f; }))
        node.warn("every rendered value is exactly 0 or 1 (the output saturates everywhere), so the "
                  "picture is flat: the model's weights are likely far too large (largest |weight| " +
                  largest_weight_text(file) + ")");
    if (auto like = node.optional_image("like")) {
        // The source's layout and precision (the host gives the output like's bits).
        const cv::Mat rendered(int(size.height), int(size.width), CV_32FC3, rgb.data());
        ff::nodes::output_native(node, "image", ff::nodes::like_layout(rendered, *like));
        return;
    }
    float* out = node.output_image("image", size.width, size.height, 3);
    std::memcpy(out, rgb.data(), rgb.size() * sizeof(float));
}

} // namespace

FF_NODE(infer) =
    ff::op("Infer", "neural")
        .doc("Renders a model at any resolution: the learned field evaluated at the output "
             "pixels' centres. Default size: the training image's; or width and/or height (the "
             "other follows the aspect ratio), or a scale of the training size.")
        .version(ff::engine::kVersion)
        .input("model", kModel, "model from Train or LoadModel")
        .optional_input("like", kImage,
                        "the training image: the render takes its layout and precision (gray "
                        "stays one channel, RGBA gets its alpha resized to the render, a 16-bit "
                        "source gives a 16-bit-tagged render)")
        .output("image", kImage, "the rendered RGB image")
        .param_int("width", 0, 0, 65536, "output width; 0 = from height or the training size")
        .param_int("height", 0, 0, 65536, "output height; 0 = from width or the training size")
        .param_float("scale", 0.0, 0.0, 64.0,
                     "output size as a multiple of the training size; 0 = unused")
        .param_string("device", std::string(""),
                      "compute device: 'auto', 'cpu' or an index; empty = the run's --device")
        .validate([](Node& node) {
            if (node.number("scale") > 0 && (node.integer("width") > 0 || node.integer("height") > 0))
                throw ParamError("scale", "give either width/height or scale, not both");
            check_device_param(node.string("device"));
        })
        .execute(execute_infer);

} // namespace ff::neural
