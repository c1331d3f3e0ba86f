#include "png_thumbnail.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>

namespace ff::neural {

std::vector<unsigned char> png_thumbnail(const std::vector<unsigned char>& png, int max_width) {
    cv::Mat image = cv::imdecode(png, cv::IMREAD_UNCHANGED);
    if (image.empty() || image.cols <= max_width || max_width < 1) return png;
    int height = std::max(1, int(double(image.rows) * max_width / image.cols + 0.5));
    cv::Mat small;
    cv::resize(image, small, cv::Size(max_width, height), 0, 0, cv::INTER_AREA);
    std::vector<unsigned char> out;
    // OpenCV's quickest PNG (png_size.hpp's kPngFastest): the report encodes one per snapshot,
    // where time matters more than a few percent of bytes.
    if (!cv::imencode(".png", small, out)) return png;
    return out;
}

} // namespace ff::neural
