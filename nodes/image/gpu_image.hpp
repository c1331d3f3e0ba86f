// The GPU path of the image nodes (`device: gpu`): a CV_32FC3 image to the engine's float buffers
// and back, on the run's compute device.
#pragma once

#include <fieldflow/engine/engine.hpp>
#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <vector>

namespace ff::nodes {

// The engine device for a node's `device: gpu`: the run's --device, else "auto".
ff::engine::Device gpu_device(const Node& node);

// A continuous copy of a CV_32FC3 (or any CV_32F) Mat's values, row-major, channels interleaved.
std::vector<float> mat_floats(const cv::Mat& image);

} // namespace ff::nodes
