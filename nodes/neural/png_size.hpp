// How many bytes an image takes as a PNG at maximum compression: the honest size to compare a
// model file with. Exact for images up to a quarter megapixel; estimated from strips encoded in
// parallel above, since zlib at level 9 runs on one core, slowly (minutes for a large photo) and
// cannot be interrupted. Up to the sample
// size the strips cover every row but a few, so the estimate is the whole image's in pieces.
#pragma once

#include "metrics/image_metrics.hpp"

#include <opencv2/core.hpp>

#include <cstddef>
#include <vector>

namespace ff::neural {

// OpenCV's own quickest PNG, what it writes when no level is asked for: the Sub filter alone,
// zlib level 1 and its run-length strategy. Asked for level 1, libpng tries every filter on every
// row: slower, for a few percent fewer bytes (bench/archive/RESULTS.md, "the small hash config
// over 20 seeds on both kernel paths"). For the pictures a page or a snapshot shows, where time
// matters more.
constexpr int kPngFastest = -1;

// 8-bit RGB -> PNG bytes at zlib `level` (0-9), or kPngFastest.
std::vector<unsigned char> encode_rgb8_png(const cv::Mat& rgb8, int level);

struct PngSize {
    size_t bytes = 0;
    bool estimated = false; // true: from sampled strips, not one whole encode
};

struct PngSizeSampling {
    size_t exact_pixels = 262'144;    // up to this many pixels the image is encoded whole
    int strips = 16;                  // above: this many strips spread evenly over the rows,
    size_t sample_pixels = 2'000'000; // about this many pixels in all
};

// 8-bit RGB in, size of the PNG (level 9) out. Above `exact_pixels` the strips are encoded in
// parallel with `check` called between batches (it may throw to stop), and their sizes are scaled
// by the rows they stand for.
PngSize smallest_png_size(const cv::Mat& rgb8, const ff::metrics::WorkCheck& check,
                          const PngSizeSampling& sampling = {});

} // namespace ff::neural
