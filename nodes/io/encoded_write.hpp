// WriteImage's last step: an image encoded and written to its file atomically, answering a cancel
// within a moment. The encoder is one OpenCV call that takes seconds on a large image, so it
// runs on a thread of its own (common/cancellable_call.hpp) while
// the node's thread polls. After a cancel neither the file nor any temporary is left.
#pragma once

#include "io/image_formats.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <string>
#include <vector>

namespace ff::nodes {

// Writes `samples` (OpenCV's channel order, the depth to store) to `path` in `format` with the
// cv::imwrite `options`. Formats OpenCV encodes in memory are encoded to bytes, which are then
// written in chunks (a cancel check between chunks); EXR and HDR, which OpenCV writes only to a
// file it opens itself, are written into a folder of their own beside the target, which a cancel
// removes, so a late open by the abandoned encoder finds no folder to create its file in.
// Progress: "encoding <format>, N s" while the encoder runs, then bytes written.
void write_encoded(Node& node, const std::string& path, const ImageFormat& format,
                   const cv::Mat& samples, const std::vector<int>& options);

} // namespace ff::nodes
