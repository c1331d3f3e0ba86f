// How many bytes an image takes as a PNG at maximum compression: the honest size to compare a
// model file with. Exact for images up to a few megapixels; estimated from a sample of strips
// above, where one whole encode would take minutes on one core and could not be interrupted.
#pragma once

#include "metrics/image_metrics.hpp"

#include <opencv2/core.hpp>

#include <cstddef>
#include <vector>

namespace ff::neural {

// 8-bit RGB -> PNG bytes at zlib `level` (0-9).
std::vector<unsigned char> encode_rgb8_png(const cv::Mat& rgb8, int level);

struct PngSize {
    size_t bytes = 0;
    bool estimated = false; // true: from sampled strips, not one whole encode
};

struct PngSizeSampling {
    size_t exact_pixels = 4'000'000;  // up to this many pixels the image is encoded whole
    int strips = 16;                  // above: this many strips spread evenly over the rows,
    size_t sample_pixels = 2'000'000; // about this many pixels in all
};

// 8-bit RGB in, size of the PNG (level 9) out. Above `exact_pixels` the strips are encoded in
// parallel with `check` called between batches (it may throw to stop), and their sizes are scaled
// by the rows they stand for.
PngSize smallest_png_size(const cv::Mat& rgb8, const ff::metrics::WorkCheck& check,
                          const PngSizeSampling& sampling = {});

} // namespace ff::neural
