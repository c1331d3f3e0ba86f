// A short splat fit on a real photo crop (OpenCV only loads it): on the CPU driver, 200 splats on a
// 64x64 crop of leuvenA.jpg improve PSNR over their initialisation by a clear margin.
#include "fieldflow/engine/splats.hpp"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstdio>
#include <filesystem>

namespace ff::engine {
namespace {

const char* kPhoto = "/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg";

double psnr_of_mse(double mse) { return 10.0 * std::log10(1.0 / mse); }

TEST(SplatFit, ShortRunOnPhotoCropImprovesPsnr) {
    ASSERT_TRUE(std::filesystem::exists(kPhoto)) << kPhoto << " missing (package opencv-doc)";
    cv::Mat bgr = cv::imread(kPhoto, cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    cv::Mat crop = bgr(cv::Rect(300, 200, 128, 128)), small, rgb;
    cv::resize(crop, small, cv::Size(64, 64), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
    ImageData image{64, 64, std::vector<float>(rgb.ptr<float>(), rgb.ptr<float>() + rgb.total() * 3)};

    Device device = Device::open("auto", DeviceOptions{.validation = true});
    SplatTrainOptions options;
    options.steps = 300;
    options.seed = 2;
    SplatTrainer trainer(device, {.count = 200}, options, image);
    double start = psnr_of_mse(trainer.full_image_mse());
    float loss = trainer.train(options.steps);
    ASSERT_FALSE(trainer.diverged());
    double fitted = psnr_of_mse(trainer.full_image_mse());
    std::printf("leuvenA crop 64x64, 200 splats: %.2f dB at initialisation, %.2f dB after %u steps "
                "(loss %.5f)\n", start, fitted, options.steps, loss);
    EXPECT_GE(fitted, start + 3.0);
    EXPECT_TRUE(device.validation_messages().empty());
}

} // namespace
} // namespace ff::engine
