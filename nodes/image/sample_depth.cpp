#include "image/sample_depth.hpp"

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <sstream>
#include <vector>

namespace ff::nodes {

int source_depth(uint32_t bits) {
    if (bits == 8) return CV_8U;
    if (bits == 16) return CV_16U;
    return CV_32F;
}

std::string depth_name(int depth) {
    if (depth == CV_8U) return "8-bit";
    if (depth == CV_16U) return "16-bit";
    return "float";
}

double full_scale(int depth) {
    if (depth == CV_8U) return 255.0;
    if (depth == CV_16U) return 65535.0;
    return 1.0;
}

cv::Mat to_sample_depth(const cv::Mat& floats, int depth) {
    if (depth == CV_8U) return to_8bit(floats);
    if (depth == CV_16U) return to_16bit(floats);
    return floats;
}

cv::Mat to_unit_float(const cv::Mat& samples) {
    if (samples.depth() == CV_32F) return samples;
    cv::Mat floats;
    samples.convertTo(floats, CV_32F, 1.0 / full_scale(samples.depth()));
    return floats;
}

ColourAlpha split_alpha(const cv::Mat& image) {
    if (image.channels() != 4) return {image, cv::Mat()};
    ColourAlpha parts;
    parts.colour.create(image.size(), CV_MAKETYPE(image.depth(), 3));
    parts.alpha.create(image.size(), CV_MAKETYPE(image.depth(), 1));
    cv::Mat outs[] = {parts.colour, parts.alpha};
    const int pairs[] = {0, 0, 1, 1, 2, 2, 3, 3};
    cv::mixChannels(&image, 1, outs, 2, pairs, 4);
    return parts;
}

cv::Mat join_alpha(const cv::Mat& colour, const cv::Mat& alpha) {
    if (alpha.empty()) return colour;
    cv::Mat joined;
    const cv::Mat parts[] = {colour, alpha};
    cv::merge(parts, 2, joined);
    return joined;
}

std::vector<std::string> channel_names(int channels) {
    if (channels == 1) return {"gray"};
    if (channels == 2) return {"gray", "alpha"};
    if (channels == 3) return {"red", "green", "blue"};
    return {"red", "green", "blue", "alpha"};
}

cv::Mat mask_weights(const ImageView& view, const char* port) {
    const cv::Mat mask = native_mat(view, port);
    if (mask.channels() == 1) return mask;
    cv::Mat gray;
    cv::cvtColor(split_alpha(mask).colour, gray, cv::COLOR_RGB2GRAY);
    return gray;
}

cv::Mat mix(const cv::Mat& base, const cv::Mat& top, const cv::Mat& weights) {
    cv::Mat spread = weights;
    if (base.channels() > 1) {
        const std::vector<cv::Mat> copies(size_t(base.channels()), weights);
        cv::merge(copies, spread);
    }
    cv::Mat out;
    cv::subtract(top, base, out);
    cv::multiply(out, spread, out);
    cv::add(out, base, out);
    return out;
}

void check_order(Node& node, const char* lower, const char* upper, bool equal_allowed) {
    const double low = node.number(lower), high = node.number(upper);
    if (high > low || (equal_allowed && high == low)) return;
    char text[160];
    std::snprintf(text, sizeof text, "%s (%g) must %s %s (%g)", upper, high, equal_allowed ? "not be below" : "be above",
                  lower, low);
    throw ParamError(upper, text);
}

std::vector<double> parse_numbers(const std::string& text, const char* param) {
    std::string spaced = text;
    for (char& c : spaced)
        if (c == ',') c = ' ';
    std::istringstream stream(spaced);
    std::vector<double> numbers;
    std::string word;
    while (stream >> word) {
        size_t used = 0;
        double value = 0;
        try {
            value = std::stod(word, &used);
        } catch (const std::exception&) {
            used = 0;
        }
        if (used != word.size() || !std::isfinite(value))
            throw ParamError(param, "'" + word + "' in '" + text + "' is not a finite number");
        numbers.push_back(value);
    }
    return numbers;
}

} // namespace ff::nodes
