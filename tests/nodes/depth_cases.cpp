#include "depth_cases.hpp"

#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <stdexcept>

namespace ff::test {

namespace {

double scale_of(int depth) { return depth == CV_8U ? 255.0 : depth == CV_16U ? 65535.0 : 1.0; }

} // namespace

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
    samples.convertTo(floats, CV_32F, 1.0 / scale_of(samples.depth())); // as ReadImage converts
    Image image = image_from_mat(floats);
    image.bits = samples.depth() == CV_8U ? 8 : samples.depth() == CV_16U ? 16 : 32;
    return image;
}

cv::Mat samples_at(const cv::Mat& floats, int depth) {
    if (depth == CV_32F) return floats.clone();
    cv::Mat samples;
    floats.convertTo(samples, depth, scale_of(depth));
    return samples;
}

double max_sample_diff(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size() || a.type() != b.type())
        throw std::invalid_argument("max_sample_diff: different sizes or types");
    return cv::norm(a, b, cv::NORM_INF);
}

cv::Mat run_at_depth(const char* op, const cv::Mat& samples, const std::function<void(FakeRun&)>& setup) {
    FakeRun run(core_plugin().op(op));
    run.input("image", image_of(samples));
    if (setup) setup(run);
    if (run.execute() != FF_OK) throw std::runtime_error(std::string(op) + " failed: " + run.error());
    return samples_at(run.output_mat("image"), samples.depth());
}

std::string case_name(const DepthCase& depth, int channels) {
    return std::string(depth.name) + (channels == 1 ? " gray" : channels == 4 ? " RGBA" : " RGB");
}

} // namespace ff::test
