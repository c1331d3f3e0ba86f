#include "depth_cases.hpp"

#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <stdexcept>

namespace ff::test {

double full_scale(int depth) { return depth == CV_8U ? 255.0 : depth == CV_16U ? 65535.0 : 1.0; }

cv::Mat picture_at(int width, int height, int channels, int depth, unsigned seed) {
    const cv::Mat rgb = test_picture(width, height, seed);
    cv::Mat floats;
    if (channels == 1) {
        cv::cvtColor(rgb, floats, cv::COLOR_RGB2GRAY);
    } else if (channels == 4) {
        cv::Mat alpha(height, width, CV_32F);
        for (int y = 0; y < height; ++y)
            for (int x = 0; x < width; ++x) alpha.at<float>(y, x) = float(x + y) / float(width + height);
        const cv::Mat parts[] = {rgb, alpha};
        cv::merge(parts, 2, floats);
    } else if (channels == 3) {
        floats = rgb;
    } else {
        throw std::invalid_argument("picture_at: 1, 3 or 4 channels");
    }
    return samples_at(floats, depth);
}

Image image_of(const cv::Mat& samples) {
    cv::Mat floats;
    samples.convertTo(floats, CV_32F, 1.0 / full_scale(samples.depth())); // as ReadImage converts
    Image image = image_from_mat(floats);
    image.bits = samples.depth() == CV_8U ? 8 : samples.depth() == CV_16U ? 16 : 32;
    return image;
}

cv::Mat samples_at(const cv::Mat& floats, int depth) {
    if (depth == CV_32F) return floats.clone();
    cv::Mat samples;
    floats.convertTo(samples, depth, full_scale(depth));
    return samples;
}

double max_sample_diff(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size() || a.type() != b.type())
        throw std::invalid_argument("max_sample_diff: different sizes or types");
    return cv::norm(a, b, cv::NORM_INF);
}

cv::Mat run_op(const char* op, const cv::Mat& samples, const std::function<void(FakeRun&)>& setup) {
    FakeRun run(core_plugin().op(op));
    run.input("image", image_of(samples));
    if (setup) setup(run);
    if (run.execute() != FF_OK) throw std::runtime_error(std::string(op) + " failed: " + run.error());
    return run.output_mat("image");
}

cv::Mat run_at_depth(const char* op, const cv::Mat& samples, const std::function<void(FakeRun&)>& setup) {
    return samples_at(run_op(op, samples, setup), samples.depth());
}

cv::Mat on_colour(const cv::Mat& image, const std::function<cv::Mat(const cv::Mat&)>& f) {
    if (image.channels() != 4) return f(image);
    cv::Mat colour(image.size(), CV_MAKETYPE(image.depth(), 3)), alpha(image.size(), CV_MAKETYPE(image.depth(), 1));
    cv::Mat outs[] = {colour, alpha};
    const int pairs[] = {0, 0, 1, 1, 2, 2, 3, 3};
    cv::mixChannels(&image, 1, outs, 2, pairs, 4);
    const cv::Mat parts[] = {f(colour), alpha};
    cv::Mat joined;
    cv::merge(parts, 2, joined);
    return joined;
}

std::string case_name(const DepthCase& depth, int channels) {
    return std::string(depth.name) + (channels == 1 ? " gray" : channels == 4 ? " RGBA" : " RGB");
}

} // namespace ff::test
