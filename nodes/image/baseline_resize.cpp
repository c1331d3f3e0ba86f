#include "image/baseline_resize.hpp"

#include "common/bands.hpp"
#include "common/cancellable_call.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <string>

namespace ff::nodes {
namespace {

// k when `large` is exactly k times `small` (k >= 1), else 0.
int whole_factor(int large, int small) {
    return small > 0 && large >= small && large % small == 0 ? large / small : 0;
}

bool power_of_two(int k) { return k > 0 && (k & (k - 1)) == 0; }

std::string size_text(cv::Size size) { return std::to_string(size.width) + "x" + std::to_string(size.height); }

} // namespace

cv::Mat shrink_to_grid(const Node& node, const cv::Mat& image, cv::Size grid) {
    const std::string detail = "shrinking to the grid " + size_text(grid);
    const int kx = whole_factor(image.cols, grid.width), ky = whole_factor(image.rows, grid.height);
    cv::Mat small;
    if (kx == 0 || ky == 0) {
        node.progress(0, 1, detail);
        cv::resize(image, small, grid, 0, 0, cv::INTER_AREA);
        return small;
    }
    small.create(grid, image.type());
    for_each_band(
        node, grid.height, image.step[0] * size_t(ky),
        [&](int first, int end) {
            cv::Mat rows = small.rowRange(first, end); // same size and type: written in place
            cv::resize(image.rowRange(first * ky, end * ky), rows, rows.size(), 0, 0, cv::INTER_AREA);
        },
        [&](int done, int rows) { node.progress(uint64_t(done), uint64_t(rows), detail); });
    return small;
}

void enlarge_to(Node& node, const cv::Mat& small, cv::Mat& out) {
    const char* detail = "scaling back up";
    const int k = whole_factor(out.rows, small.rows);
    if (!power_of_two(k)) {
        const cv::Size size = out.size();
        const cv::Mat enlarged = call_cancellable_result(node, [small, size] {
            cv::Mat result;
            cv::resize(small, result, size, 0, 0, cv::INTER_LINEAR);
            return result;
        }, [&](double) { node.progress(0, 0, detail); });
        for_each_band(node, out.rows, out.step[0], [&](int first, int end) {
            enlarged.rowRange(first, end).copyTo(out.rowRange(first, end));
        });
        return;
    }
    cv::Mat scratch; // one band with its margin rows; reused
    for_each_band(
        node, small.rows, out.step[0] * size_t(k),
        [&](int first, int end) {
            const int from = std::max(0, first - 1), to = std::min(small.rows, end + 1);
            cv::resize(small.rowRange(from, to), scratch, cv::Size(out.cols, k * (to - from)), 0, 0,
                       cv::INTER_LINEAR);
            scratch.rowRange(k * (first - from), k * (end - from)).copyTo(out.rowRange(k * first, k * end));
        },
        [&](int done, int rows) { node.progress(uint64_t(done), uint64_t(rows), detail); });
}

} // namespace ff::nodes
