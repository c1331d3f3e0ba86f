// BilinearBaseline's two resizes, made so that a large image answers a cancel within a moment and
// shows progress, with exactly the result of one cv::resize call each: where the scale factor
// allows, they run in bands of rows with a cancellation check between bands; otherwise the
// enlargement runs on a thread of its own (common/cancellable_call.hpp).
#pragma once

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

namespace ff::nodes {

// `image` shrunk to `grid` with area averaging (INTER_AREA). With a whole factor k in both
// directions each grid row averages its own k image rows, so bands of grid rows give what one call
// gives; otherwise one call (it reads the image once; a few tenths of a second at 8192x8192).
cv::Mat shrink_to_grid(const Node& node, const cv::Mat& image, cv::Size grid);

// `small` scaled bilinearly (INTER_LINEAR) to `out`'s size, written into `out`. Output row y blends
// grid rows floor((y + 0.5) / k - 0.5) and the next, so with a power-of-two factor k between the
// heights (where OpenCV's pixel coordinates are exact in float) a band of output rows
// [k r0, k r1) comes out the same from grid rows r0 - 1 .. r1 alone (clamped at the edges);
// other factors run in one call on a thread of its own, and the result is copied in bands.
void enlarge_to(Node& node, const cv::Mat& small, cv::Mat& out);

} // namespace ff::nodes
