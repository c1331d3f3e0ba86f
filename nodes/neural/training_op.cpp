#include "training_op.hpp"

#include "cpu_budget.hpp"
#include "device_cache.hpp"
#include "training_estimate.hpp"

#include "common/image_mat.hpp"


#include <algorithm>
#include <chrono>
#include <cmath>

namespace ff::neural {
namespace {

namespace fe = ff::engine;
using Clock = std::chrono::steady_clock;

// The first `limit` pixels in row order, rounded up to whole rows (Train's `limit`).
fe::ImageData limited(fe::ImageData image, uint64_t limit, const Node& node) {
    if (limit == 0 || limit >= uint64_t(image.width) * image.height) return image;
    const uint32_t rows = uint32_t((limit + image.width - 1) / image.width);
    image.height = rows;
    image.rgb.resize(size_t(image.width) * rows * 3);
    node.log("training on the first " + std::to_string(rows) + " rows (" +
             std::to_string(uint64_t(image.width) * rows) + " pixels; limit " +
             std::to_string(limit) + ")");
    return image;
}

fe::ImageData image_data(const ImageView& view, const Node& node) {
    // The model learns RGB: gray is learned as three equal channels (Infer's `like` input turns it
    // back into gray) and alpha is not learned (Infer's `like` carries it through).
    if (view.channels == 4)
        node.warn("the image's alpha channel is not learned: the model learns RGB; connect the "
                  "image to Infer's 'like' input to carry the alpha through");
    cv::Mat rgb = ff::nodes::rgb_mat(view, "image");
    fe::ImageData data;
    data.width = view.width;
    data.height = view.height;
    data.source_bits = view.bits == 0 ? 8 : view.bits;
    data.rgb.resize(size_t(view.width) * view.height * 3);
    size_t clamped = 0, i = 0;
    for (int y = 0; y < rgb.rows; ++y) {
        const float* row = rgb.ptr<float>(y);
        for (int x = 0; x < rgb.cols * 3; ++x, ++i) {
            float v = row[x];
            float c = std::isfinite(v) ? std::min(1.0f, std::max(0.0f, v)) : 0.0f;
            clamped += c != v;
            data.rgb[i] = c;
        }
    }
    // One warning for everything the training target changes.
    const std::string outside = std::to_string(clamped) + " values outside [0, 1] (or not finite)";
    if (view.bits == 32)
        node.warn("the image has 32-bit float samples; training keeps them at 16 bits per channel" +
                  (clamped > 0 ? ", and its " + outside + " were clamped" : std::string(" in [0, 1]")));
    else if (clamped > 0)
        node.warn("input image has " + outside + "; they were clamped for training");
    return data;
}

void execute_training(Node& node, ModelChoice choice, const LearnerFactory& make_learner) {
    const Clock::time_point start = Clock::now();
    TrainParams params = read_train_params(node, choice);
    const fe::ImageData image = limited(image_data(node.image("image"), node), params.limit, node);
    fe::Device device = shared_device(device_selector(node, params.device));
    const TrainingEstimate estimate =
        estimate_training(params, device.info(), uint64_t(image.width) * image.height);
    if (estimate.long_on_cpu) node.warn(estimate.text);
    else node.log(estimate.text);
    if (std::optional<std::string> warning = fit_to_cpu(params, device.info().type, device.info().name))
        node.log("warning: " + *warning);
    try {
        const std::unique_ptr<Learner> learner = make_learner(node, params, image, device);
        run_training(node, params, image, device, *learner,
                     std::chrono::duration<double>(Clock::now() - start).count());
    } catch (const fe::EngineError& e) {
        throw Error(e.what());
    }
}

} // namespace

OpBuilder training_op(std::string name, ModelChoice choice, std::string doc,
                      OpBuilder& (*declare)(OpBuilder&), LearnerFactory learner) {
    OpBuilder op = ff::op(std::move(name), "neural");
    op.doc(std::move(doc) +
           " Trained with Adam on the compute device; outputs the model (model file bytes, see "
           "docs/model-format.md) and training statistics; optionally writes snapshots, a CSV "
           "training log and a loss/PSNR curve. On a CPU Vulkan driver it trains its CPU budget "
           "(cpu_steps) unless that is 0.")
        .flags(FF_OP_CACHE_ON_DISK)
        .version(ff::engine::kVersion)
        .input("image", kImage, "image to learn (RGB, values in [0, 1])")
        .output("model", kModel, "the trained model (model file bytes)")
        .output("stats", kJson,
                "steps, train_seconds, steps_per_second, final_loss, final_psnr, device, "
                "device_bytes, model_bytes, parameter_count, ...");
    declare(op);
    op.validate([choice](Node& node) {
          const TrainParams params = read_train_params(node, choice);
          check_device_param(node.string("device"));
          // The work and its time on the device the run would pick (the image, and so a splat
          // model's cost, is not known yet).
          const TrainingEstimate estimate =
              estimate_training(params, device_for(device_selector(node, params.device)), 0);
          node.log(estimate.text, estimate.long_on_cpu ? FF_LOG_WARNING : FF_LOG_INFO);
      })
        .prepare([](Node& node) { open_device_early(node, node.string("device")); })
        .release([](Node& node) { release_device(node, node.string("device")); })
        .execute([choice, learner = std::move(learner)](Node& node) { execute_training(node, choice, learner); });
    return op;
}

} // namespace ff::neural
