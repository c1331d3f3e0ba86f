#include "image_mat.hpp"

#include "bands.hpp"

#include <opencv2/imgproc.hpp>

#include <cstring>
#include <vector>

namespace ff::nodes {

cv::Mat rgb_mat(const ImageView& image, const char* port) {
    if (image.width == 0 || image.height == 0 || !image.pixels)
        throw Error(std::string("input '") + port + "' is an empty image");
    const int rows = int(image.height), cols = int(image.width);
    // The host's buffer is immutable; OpenCV's Mat has no const flavour, so the cast is only
    // sound because nothing writes through the returned wrapper.
    float* data = const_cast<float*>(image.pixels);
    switch (image.channels) {
    case 3:
        return cv::Mat(rows, cols, CV_32FC3, data);
    case 1: {
        cv::Mat rgb;
        cv::cvtColor(cv::Mat(rows, cols, CV_32FC1, data), rgb, cv::COLOR_GRAY2RGB);
        return rgb;
    }
    case 2: {
        cv::Mat gray(rows, cols, CV_32FC1), rgb;
        cv::extractChannel(cv::Mat(rows, cols, CV_32FC2, data), gray, 0);
        cv::cvtColor(gray, rgb, cv::COLOR_GRAY2RGB);
        return rgb;
    }
    case 4: {
        cv::Mat rgb;
        cv::cvtColor(cv::Mat(rows, cols, CV_32FC4, data), rgb, cv::COLOR_RGBA2RGB);
        return rgb;
    }
    default:
        throw Error(std::string("input '") + port + "' has " + std::to_string(image.channels) +
                    " channels; expected 1 (gray), 3 (RGB) or 4 (RGBA)");
    }
}

cv::Mat native_mat(const ImageView& image, const char* port) {
    if (image.channels != 1 && image.channels != 3 && image.channels != 4) return rgb_mat(image, port);
    if (image.width == 0 || image.height == 0 || !image.pixels)
        throw Error(std::string("input '") + port + "' is an empty image");
    // Read-only wrapper over the host's buffer, as in rgb_mat.
    return cv::Mat(int(image.height), int(image.width), CV_32FC(int(image.channels)),
                   const_cast<float*>(image.pixels));
}

cv::Mat like_layout(const cv::Mat& rgb, const ImageView& like) {
    if (like.channels == 1) {
        cv::Mat gray;
        cv::transform(rgb, gray, cv::Matx13f(1.0f / 3, 1.0f / 3, 1.0f / 3));
        return gray;
    }
    if (like.channels != 4) return rgb;
    cv::Mat alpha, resized, rgba;
    cv::extractChannel(native_mat(like, "like"), alpha, 3);
    if (alpha.size() != rgb.size()) cv::resize(alpha, resized, rgb.size(), 0, 0, cv::INTER_LINEAR);
    else resized = alpha;
    std::vector<cv::Mat> planes;
    cv::split(rgb, planes);
    planes.push_back(resized);
    cv::merge(planes, rgba);
    return rgba;
}

void output_native(Node& node, const char* port, const cv::Mat& image) {
    const int channels = image.channels();
    if (image.depth() != CV_32F || image.empty() || (channels != 1 && channels != 3 && channels != 4))
        throw Error(std::string("internal error: output '") + port +
                    "' expects a non-empty float image of 1, 3 or 4 channels");
    float* pixels = node.output_image(port, uint32_t(image.cols), uint32_t(image.rows), uint32_t(channels));
    const cv::Mat out(image.size(), image.type(), pixels);
    // In bands: the output is fresh memory, whose first touch is the slow part on a large image.
    for_each_band(node, image.rows, image.cols * image.elemSize(), [&](int first, int end) {
        image.rowRange(first, end).copyTo(out.rowRange(first, end));
    });
}

cv::Mat at_depth(const cv::Mat& float_image, uint32_t bits) {
    if (bits == 8) return to_8bit(float_image);
    if (bits == 16) return to_16bit(float_image);
    return float_image;
}

std::string depth_text(uint32_t bits) {
    if (bits == 32) return "32-bit float";
    if (bits == 0) return "float";
    return std::to_string(bits) + "-bit";
}

cv::Mat bgr_mat(const ImageView& image, const char* port) {
    cv::Mat bgr;
    cv::cvtColor(rgb_mat(image, port), bgr, cv::COLOR_RGB2BGR);
    return bgr;
}

cv::Mat output_mat(Node& node, const char* port, cv::Size size) {
    if (size.width <= 0 || size.height <= 0)
        throw Error(std::string("output '") + port + "': invalid size " + size_text(size));
    float* pixels = node.output_image(port, uint32_t(size.width), uint32_t(size.height), 3);
    return cv::Mat(size, CV_32FC3, pixels);
}

static void check_float3(const cv::Mat& mat, const char* port) {
    if (mat.type() != CV_32FC3 || mat.empty())
        throw Error(std::string("internal error: output '") + port +
                    "' expects a non-empty CV_32FC3 image");
}

void output_rgb(Node& node, const char* port, const cv::Mat& rgb) {
    check_float3(rgb, port);
    cv::Mat out = output_mat(node, port, rgb.size());
    rgb.copyTo(out);
}

void output_bgr(Node& node, const char* port, const cv::Mat& bgr) {
    check_float3(bgr, port);
    cv::Mat out = output_mat(node, port, bgr.size());
    cv::cvtColor(bgr, out, cv::COLOR_BGR2RGB); // same size and type: writes in place
}

cv::Mat to_8bit(const cv::Mat& float_image) {
    cv::Mat out;
    float_image.convertTo(out, CV_8U, 255.0);
    return out;
}

cv::Mat to_16bit(const cv::Mat& float_image) {
    cv::Mat out;
    float_image.convertTo(out, CV_16U, 65535.0);
    return out;
}

std::string size_text(cv::Size size) {
    return std::to_string(size.width) + "x" + std::to_string(size.height);
}

} // namespace ff::nodes
