// GPU grayscale and box downsampling (image_ops.hpp) against OpenCV on a real photo, within float
// rounding, plus the sizes and errors of the edges.
#include <fieldflow/engine/image_ops.hpp>

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

namespace fe = ff::engine;

namespace {

fe::Device& device() {
    static fe::Device d = fe::Device::open("auto", fe::DeviceOptions{.validation = true});
    return d;
}

// leuvenA.jpg as float RGB in [0, 1] (751x563: odd sizes, so downsampling drops remainders).
cv::Mat photo() {
    static const cv::Mat image = [] {
        cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), rgb;
        if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
        cv::cvtColor(bgr, rgb, cv::COLOR_BGR2RGB);
        rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
        return rgb;
    }();
    return image;
}

std::vector<float> floats(const cv::Mat& m) {
    cv::Mat c = m.isContinuous() ? m : m.clone();
    return std::vector<float>(c.ptr<float>(0), c.ptr<float>(0) + c.total() * c.channels());
}

double max_abs_difference(const std::vector<float>& gpu, const cv::Mat& reference) {
    std::vector<float> ref = floats(reference);
    EXPECT_EQ(gpu.size(), ref.size());
    double worst = 0;
    for (size_t i = 0; i < std::min(gpu.size(), ref.size()); ++i)
        worst = std::max(worst, double(std::abs(gpu[i] - ref[i])));
    return worst;
}

} // namespace

TEST(GpuImageOps, GrayscaleMatchesOpenCV) {
    const cv::Mat rgb = photo();
    std::vector<float> luma = fe::grayscale(device(), uint32_t(rgb.cols), uint32_t(rgb.rows), floats(rgb));
    cv::Mat gray;
    cv::cvtColor(rgb, gray, cv::COLOR_RGB2GRAY); // 0.299 R + 0.587 G + 0.114 B for float images
    EXPECT_LT(max_abs_difference(luma, gray), 1e-6);
    EXPECT_TRUE(device().validation_messages().empty());
}

TEST(GpuImageOps, DownsampleMatchesOpenCVAreaResize) {
    const cv::Mat rgb = photo();
    for (uint32_t factor : {1u, 2u, 3u, 4u, 7u, 16u}) {
        std::vector<float> out = fe::downsample(device(), uint32_t(rgb.cols), uint32_t(rgb.rows), 3,
                                                floats(rgb), factor);
        // OpenCV's INTER_AREA at an integer factor is the block mean; crop to whole blocks first.
        const int w = rgb.cols / int(factor), h = rgb.rows / int(factor);
        cv::Mat cropped = rgb(cv::Rect(0, 0, w * int(factor), h * int(factor))), expected;
        cv::resize(cropped, expected, cv::Size(w, h), 0, 0, cv::INTER_AREA);
        ASSERT_EQ(out.size(), size_t(w) * h * 3) << "factor " << factor;
        EXPECT_LT(max_abs_difference(out, expected), 2e-6) << "factor " << factor;
    }
    EXPECT_TRUE(device().validation_messages().empty());
}

TEST(GpuImageOps, DownsampleOfTheSeedsBlockPattern) {
    // 16x16, each 2x2 block holding its own value (block_x + 8 * block_y): halving gives 0..63.
    std::vector<float> image(16 * 16);
    for (int y = 0; y < 16; ++y)
        for (int x = 0; x < 16; ++x) image[size_t(y) * 16 + x] = float(x / 2 + 8 * (y / 2));
    std::vector<float> out = fe::downsample(device(), 16, 16, 1, image, 2);
    ASSERT_EQ(out.size(), 64u);
    for (int i = 0; i < 64; ++i) EXPECT_EQ(out[size_t(i)], float(i)) << i;
}

TEST(GpuImageOps, BadInputsAreClearErrors) {
    std::vector<float> four(4 * 3, 0.5f);
    EXPECT_THROW(fe::grayscale(device(), 0, 2, {}), fe::EngineError);
    EXPECT_THROW(fe::grayscale(device(), 2, 2, std::vector<float>(5)), fe::EngineError);
    try {
        fe::downsample(device(), 2, 2, 3, four, 3);
        FAIL() << "a factor larger than the image should throw";
    } catch (const fe::EngineError& e) {
        EXPECT_NE(std::string(e.what()).find("factor 3"), std::string::npos) << e.what();
    }
    EXPECT_THROW(fe::downsample(device(), 2, 2, 3, four, 0), fe::EngineError);
    EXPECT_THROW(fe::downsample(device(), 2, 2, 0, four, 1), fe::EngineError);
}
