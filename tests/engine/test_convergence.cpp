// Convergence on a real photo (OpenCV only loads and resizes it): a short run on leuvenA.jpg,
// downscaled to a quarter so it fits CI on the CPU driver, beats the bilinear baseline at the same
// grid size by at least 1 dB.
#include "fieldflow/engine/engine.hpp"

#include <gtest/gtest.h>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <filesystem>

namespace ff::engine {
namespace {

const char* kPhoto = "/usr/share/doc/opencv-doc/examples/data/leuvenA.jpg";

double psnr_of_mse(double mse) { return 10.0 * std::log10(1.0 / mse); }

TEST(Convergence, ShortRunOnLeuvenBeatsBilinearBaseline) {
    ASSERT_TRUE(std::filesystem::exists(kPhoto)) << kPhoto << " missing (package opencv-doc)";
    cv::Mat bgr = cv::imread(kPhoto, cv::IMREAD_COLOR);
    ASSERT_FALSE(bgr.empty());
    cv::Mat small;
    cv::resize(bgr, small, cv::Size(bgr.cols / 4, bgr.rows / 4), 0, 0, cv::INTER_AREA);
    cv::Mat rgb;
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
    ImageData image{uint32_t(rgb.cols), uint32_t(rgb.rows),
                    std::vector<float>(rgb.ptr<float>(), rgb.ptr<float>() + rgb.total() * 3)};

    ModelConfig config;
    config.grid_width = (image.width + 2) / 4;
    config.grid_height = (image.height + 2) / 4;

    // Baseline: the image at grid resolution (area average), bilinearly upsampled back.
    cv::Mat down, up;
    cv::resize(rgb, down, cv::Size(int(config.grid_width), int(config.grid_height)), 0, 0, cv::INTER_AREA);
    cv::resize(down, up, rgb.size(), 0, 0, cv::INTER_LINEAR);
    cv::Mat diff = up - rgb;
    double baseline_mse = diff.dot(diff) / double(rgb.total() * 3);
    double baseline = psnr_of_mse(baseline_mse);

    Device device = Device::open("auto", DeviceOptions{.validation = true});
    TrainOptions options;
    options.steps = 300;
    options.batch = 2048;
    options.seed = 3;
    Trainer trainer(device, config, options, image);
    float loss = trainer.train(options.steps);
    ASSERT_FALSE(trainer.diverged());
    double learned = psnr_of_mse(trainer.full_image_mse());
    std::printf("leuvenA/4 %ux%u, grid %ux%u: bilinear %.2f dB, learned %.2f dB after %u steps "
                "(batch loss %.5f)\n",
                image.width, image.height, config.grid_width, config.grid_height, baseline, learned,
                options.steps, loss);
    EXPECT_GT(baseline, 20.0); // sanity: the baseline itself is a reasonable reconstruction
    EXPECT_GE(learned, baseline + 1.0);
    EXPECT_TRUE(device.validation_messages().empty());
}

} // namespace
} // namespace ff::engine
