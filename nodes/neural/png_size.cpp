#include "png_size.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <vector>

namespace ff::neural {

namespace {

// What each strip's PNG carries that one file has once: signature, IHDR and IEND (45 bytes), an
// IDAT chunk's length, type and CRC (12) and the zlib header and Adler-32 (6).
constexpr size_t kPngFileOverhead = 45 + 12 + 6;

size_t png_size(const cv::Mat& rgb8) { return encode_rgb8_png(rgb8, 9).size(); }

} // namespace

std::vector<unsigned char> encode_rgb8_png(const cv::Mat& rgb8, int level) {
    CV_Assert(rgb8.type() == CV_8UC3);
    cv::Mat bgr;
    cv::cvtColor(rgb8, bgr, cv::COLOR_RGB2BGR);
    std::vector<unsigned char> out;
    const std::vector<int> options = level == kPngFastest ? std::vector<int>{}
                                                          : std::vector<int>{cv::IMWRITE_PNG_COMPRESSION, level};
    if (!cv::imencode(".png", bgr, out, options))
        throw std::runtime_error("PNG encoding of an image for the report failed");
    return out;
}

PngSize smallest_png_size(const cv::Mat& rgb8, const ff::metrics::WorkCheck& check,
                          const PngSizeSampling& sampling) {
    CV_Assert(rgb8.type() == CV_8UC3);
    const int strips = std::max(2, sampling.strips);
    if (rgb8.total() <= sampling.exact_pixels || rgb8.rows < 2 * strips) return {png_size(rgb8), false};
    const int rows = std::clamp(int(sampling.sample_pixels / (size_t(strips) * size_t(rgb8.cols))), 1,
                                rgb8.rows / strips);
    std::vector<size_t> sizes(size_t(strips), 0);
    const int batch = std::max(2, cv::getNumThreads());
    for (int first = 0; first < strips; first += batch) {
        const int last = std::min(strips, first + batch);
        cv::parallel_for_(cv::Range(first, last), [&](const cv::Range& range) {
            for (int i = range.start; i < range.end; ++i) {
                const int top = int(int64_t(rgb8.rows - rows) * i / (strips - 1));
                sizes[size_t(i)] = png_size(rgb8.rowRange(top, top + rows)) - kPngFileOverhead;
            }
        });
        if (check) check(size_t(last), size_t(strips));
    }
    double sampled = 0;
    for (size_t size : sizes) sampled += double(size);
    const double whole = sampled * double(rgb8.rows) / (double(strips) * rows);
    return {size_t(std::llround(whole)) + kPngFileOverhead, true};
}

} // namespace ff::neural
