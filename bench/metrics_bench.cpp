// Times the image metrics (MSE/PSNR/SSIM, 8-bit as the Report computes them) and the error map on a
// large synthetic image: a smooth colour field with fine texture, and a copy with noise, as a
// learned render would differ from its ground truth.
//
//   ff-metrics-bench [--size 8192] [--repeat 3]
#include "cli_args.hpp"

#include "metrics/error_map.hpp"
#include "metrics/image_metrics.hpp"

#include <opencv2/core.hpp>
#include <opencv2/core/utility.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {

void usage(const std::string& problem) {
    if (!problem.empty()) std::fprintf(stderr, "ff-metrics-bench: %s\n", problem.c_str());
    std::fprintf(stderr, "usage: ff-metrics-bench [--size N] [--repeat N]\n");
    std::exit(2);
}

double seconds_since(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

} // namespace

int main(int argc, char** argv) {
    uint32_t size = 8192, repeat = 3;
    ff::bench::ArgReader args(argc, argv, usage);
    while (args.next()) {
        if (args.key() == "--size") size = args.u32();
        else if (args.key() == "--repeat") repeat = args.u32();
        else usage("unknown option " + args.key());
    }
    if (size < 16 || repeat < 1) usage("--size must be at least 16 and --repeat at least 1");

    const int n = int(size);
    cv::Mat truth(n, n, CV_32FC3);
    for (int y = 0; y < n; ++y) {
        auto* row = truth.ptr<cv::Vec3f>(y);
        for (int x = 0; x < n; ++x)
            row[x] = cv::Vec3f(float(x) / n, float(y) / n, 0.5f + 0.25f * float(((x ^ y) & 15)) / 15.f);
    }
    cv::Mat noise(n, n, CV_32FC3);
    cv::RNG(7).fill(noise, cv::RNG::NORMAL, 0.0, 0.03);
    const cv::Mat image = truth + noise;

    std::printf("%ux%u RGB float, %d OpenCV threads\n", size, size, cv::getNumThreads());
    double best_metrics = 1e30, best_map = 1e30;
    ff::metrics::ImageMetrics m;
    for (uint32_t i = 0; i < repeat; ++i) {
        auto start = std::chrono::steady_clock::now();
        m = ff::metrics::compare(truth, image, 8);
        best_metrics = std::min(best_metrics, seconds_since(start));
        start = std::chrono::steady_clock::now();
        const cv::Mat error = ff::metrics::absolute_error(truth, image);
        const cv::Mat coloured = ff::metrics::colour_error(error, 0.1f);
        best_map = std::min(best_map, seconds_since(start));
    }
    std::printf("metrics (8-bit PSNR, SSIM, MSE): %.3f s  (PSNR %.3f dB, SSIM %.5f)\n", best_metrics,
                m.psnr, m.ssim);
    std::printf("error map (absolute error + colour scale): %.3f s\n", best_map);
    return 0;
}
