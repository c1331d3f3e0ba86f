// Infer: render a model at any resolution (default: the size of the image it was trained on).
#include "device_cache.hpp"
#include "model_input.hpp"
#include "neural_images.hpp"
#include "output_size.hpp"
#include "train_splats.hpp"

#include "common/bands.hpp"
#include "common/cancellable_call.hpp"
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <algorithm>
#include <cmath>
#include <cstddef>
#include <cstdio>
#include <memory>
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

// What a render holds that is not a picture: values that are not finite, and whether every value
// is exactly 0 or 1. Scanned in bands, a cancel check between them.
struct RenderScan {
    size_t non_finite = 0;
    bool saturated = true;
};

RenderScan scan_render(const Node& node, const std::vector<float>& rgb) {
    RenderScan scan;
    scan.saturated = !rgb.empty();
    constexpr size_t kValuesPerBand = ff::nodes::kBandBytes / sizeof(float);
    for (size_t first = 0; first < rgb.size(); first += kValuesPerBand) {
        node.throw_if_cancelled();
        const auto begin = rgb.begin() + std::ptrdiff_t(first);
        const auto end = rgb.begin() + std::ptrdiff_t(std::min(rgb.size(), first + kValuesPerBand));
        scan.non_finite += size_t(std::count_if(begin, end, [](float v) { return !std::isfinite(v); }));
        if (scan.saturated)
            scan.saturated = std::all_of(begin, end, [](float v) { return v == 0.0f || v == 1.0f; });
    }
    return scan;
}

std::string rendering_text(const OutputSize& size, double seconds) {
    char text[96];
    std::snprintf(text, sizeof text, "rendering %ux%u, %.1f s", size.width, size.height, seconds);
    return text;
}

void execute_infer(Node& node) {
    // Shared with the render, which a cancel abandons (it may outlive this call).
    const auto file = std::make_shared<const ff::engine::ModelFile>(read_model_input(node, "model"));
    const OutputSize size = infer_output_size(node.integer("width"), node.integer("height"),
                                              node.number("scale"), file->image_width, file->image_height);
    const ff::engine::Device device = shared_device(device_selector(node, node.string("device")));
    std::vector<float> rgb;
    try {
        // One engine call (dispatch and read-back) of seconds on a large image: on a thread of its
        // own, so a cancel is answered at once (common/cancellable_call.hpp).
        rgb = ff::nodes::call_cancellable_result(
            node,
            [file, device, size] {
                return file->kind == ff::engine::ModelKind::splats
                           ? render_splat_model(device, file->splats, size.width, size.height)
                           : ff::engine::render(device, file->model, size.width, size.height);
            },
            [&](double seconds) { node.progress(0, 0, rendering_text(size, seconds)); });
    } catch (const ff::engine::EngineError& e) {
        throw Error(e.what());
    }
    if (rgb.size() != size_t(size.width) * size.height * 3)
        throw Error("internal error: render returned " + std::to_string(rgb.size()) + " floats");
    const RenderScan scan = scan_render(node, rgb);
    // Weights that overflow float arithmetic (a hand-edited or damaged file) render NaN or
    // infinity, which an 8-bit file would show as a black picture: an error, not a result.
    if (scan.non_finite > 0)
        throw Error("the model renders " + std::to_string(scan.non_finite) + " of " + std::to_string(rgb.size()) +
                    " values as NaN or infinity: its weights overflow float arithmetic (a damaged or "
                    "hand-edited weights file?)");
    // An output activation that saturates everywhere (every value exactly 0 or 1) is what
    // overflowing weights look like through a sigmoid: a flat picture, named rather than silent.
    if (scan.saturated)
        node.warn("every rendered value is exactly 0 or 1 (the output saturates everywhere), so the "
                  "picture is flat: the model's weights are likely far too large (largest |weight| " +
                  largest_weight_text(*file) + ")");
    const cv::Mat rendered(int(size.height), int(size.width), CV_32FC3, rgb.data());
    // The source's layout and precision when `like` is connected (the host gives the output
    // like's bits); copied into the output in bands (a cancel check between them).
    if (auto like = node.optional_image("like")) {
        ff::nodes::output_native(node, "image", ff::nodes::like_layout(rendered, *like));
        return;
    }
    ff::nodes::output_native(node, "image", rendered);
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
        .prepare([](Node& node) { open_device_early(node, node.string("device")); })
        .release([](Node& node) { release_device(node, node.string("device")); })
        .execute(execute_infer);

} // namespace ff::neural
