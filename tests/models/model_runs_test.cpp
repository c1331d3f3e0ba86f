// Short runs of the SIREN (Trainer with the coords encoding) and of the splats (SplatTrainer) on a
// small real photo: each improves its full-image PSNR over its starting point by a clear margin.
#include <fieldflow/engine/engine.hpp>
#if FF_HAVE_SPLATS
#include <fieldflow/engine/splats.hpp>
#endif

#include <gtest/gtest.h>

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace fe = ff::engine;

namespace {

fe::Device& device() {
    static fe::Device d = fe::Device::open("auto", fe::DeviceOptions{.validation = true});
    return d;
}

// leuvenA.jpg at 64x48.
fe::ImageData small_photo() {
    cv::Mat bgr = cv::imread(FF_TEST_IMAGE, cv::IMREAD_COLOR), small, rgb;
    if (bgr.empty()) throw std::runtime_error("cannot read " FF_TEST_IMAGE);
    cv::resize(bgr, small, cv::Size(64, 48), 0, 0, cv::INTER_AREA);
    cv::cvtColor(small, rgb, cv::COLOR_BGR2RGB);
    rgb.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
    fe::ImageData image;
    image.width = 64;
    image.height = 48;
    image.rgb.assign(rgb.ptr<float>(0), rgb.ptr<float>(0) + rgb.total() * 3);
    return image;
}

double psnr(const std::vector<float>& a, const std::vector<float>& b) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) {
        double d = std::clamp(double(a[i]), 0.0, 1.0) - double(b[i]);
        sum += d * d;
    }
    return 10 * std::log10(1.0 / (sum / double(a.size())));
}

} // namespace

TEST(ModelRuns, SirenImprovesClearly) {
    const fe::ImageData image = small_photo();
    fe::TrainOptions options;
    options.steps = 300;
    options.batch = 1024;
    options.lr_mlp = 1e-3f;
    options.seed = 4;
    fe::Trainer trainer(device(), fe::siren_config(32, 2, 30.0f), options, image);
    const double start = psnr(trainer.render(image.width, image.height), image.rgb);
    trainer.train(options.steps);
    EXPECT_FALSE(trainer.diverged());
    const double done = psnr(trainer.render(image.width, image.height), image.rgb);
    std::printf("SIREN 32x2, 300 steps: %.2f dB -> %.2f dB\n", start, done);
    EXPECT_GT(done, start + 8.0) << "start " << start << " dB, after 300 steps " << done;
    EXPECT_GT(done, 22.0);
    EXPECT_TRUE(device().validation_messages().empty());
}

#if FF_HAVE_SPLATS
TEST(ModelRuns, SplatsImproveClearly) {
    const fe::ImageData image = small_photo();
    fe::SplatConfig config;
    config.count = 300;
    fe::SplatTrainOptions options;
    options.steps = 200;
    fe::SplatTrainer trainer(device(), config, options, image);
    const double start = psnr(trainer.render(image.width, image.height), image.rgb);
    trainer.train(options.steps);
    EXPECT_FALSE(trainer.diverged());
    const double done = psnr(trainer.render(image.width, image.height), image.rgb);
    std::printf("300 splats, 200 steps: %.2f dB -> %.2f dB\n", start, done);
    EXPECT_GT(done, start + 3.0) << "start " << start << " dB, after 200 steps " << done;
    EXPECT_TRUE(device().validation_messages().empty());
}
#endif
