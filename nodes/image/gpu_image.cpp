#include "image/gpu_image.hpp"

#include "neural/device_cache.hpp"

namespace ff::nodes {

ff::engine::Device gpu_device(const Node& node) {
    return ff::neural::shared_device(ff::neural::device_selector(node, ""));
}

std::vector<float> mat_floats(const cv::Mat& image) {
    cv::Mat continuous = image.isContinuous() ? image : image.clone();
    const float* data = continuous.ptr<float>(0);
    return std::vector<float>(data, data + continuous.total() * continuous.channels());
}

} // namespace ff::nodes
