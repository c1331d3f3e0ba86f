#include "common/label_band.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>

namespace ff::nodes {

cv::Mat label_band(const std::string& text, int width, int band_height) {
    cv::Mat band(band_height, width, CV_8UC3, cv::Scalar(40, 40, 40));
    if (text.empty()) return band;
    const int font = cv::FONT_HERSHEY_SIMPLEX;
    const int thickness = std::max(1, band_height / 24);
    int baseline = 0;
    const cv::Size unit = cv::getTextSize(text, font, 1.0, thickness, &baseline);
    const double by_height = 0.6 * band_height / std::max(1, unit.height);
    const double by_width = 0.94 * width / std::max(1, unit.width);
    const double scale = std::min(by_height, by_width);
    const cv::Size size = cv::getTextSize(text, font, scale, thickness, &baseline);
    const cv::Point origin((width - size.width) / 2, (band_height + size.height) / 2);
    cv::putText(band, text, origin, font, scale, cv::Scalar(255, 255, 255), thickness, cv::LINE_AA);
    return band;
}

} // namespace ff::nodes
