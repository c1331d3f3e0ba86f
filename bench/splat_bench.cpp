// ff-splat-bench: fits N 2D Gaussian splats to one PPM image and prints JSON lines: loss, PSNR
// and time per step (GPU timestamps and wall clock). No OpenCV, like ff-engine-bench.
//
//   ff-splat-bench --image leuvenA.ppm --splats 10000 --steps 2000 --device auto
#include "cli_args.hpp"
#include "fieldflow/engine/splats.hpp"
#include "ppm.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <string>

namespace {

using namespace ff::engine;
using Clock = std::chrono::steady_clock;

struct Args {
    std::string image, device = "auto", out;
    uint32_t splats = 10000, report_every = 500, crop = 0;
    SplatTrainOptions train;
    bool validation = false;
};

using ff::bench::ArgReader;

[[noreturn]] void usage(const std::string& problem) {
    std::cerr << "ff-splat-bench: " << problem << "\n"
              << "usage: ff-splat-bench --image FILE.ppm [--splats N] [--steps N] [--seed N]\n"
              << "       [--lr-position X] [--lr-cholesky X] [--lr-color X] [--crop N]\n"
              << "       [--report-every N] [--device auto|cpu|INDEX] [--validation] [--out fit.ppm]\n"
              << "  --crop N  fit the central N x N pixels only (small runs on the CPU driver)\n";
    std::exit(2);
}

Args parse(int argc, char** argv) {
    Args a;
    ArgReader args(argc, argv, usage);
    while (args.next()) {
        const std::string& k = args.key();
        if (k == "--image") a.image = args.value();
        else if (k == "--device") a.device = args.value();
        else if (k == "--out") a.out = args.value();
        else if (k == "--splats") a.splats = args.u32();
        else if (k == "--steps") a.train.steps = args.u32();
        else if (k == "--seed") a.train.seed = args.u32();
        else if (k == "--lr-position") a.train.lr_position = args.f32();
        else if (k == "--lr-cholesky") a.train.lr_cholesky = args.f32();
        else if (k == "--lr-color") a.train.lr_color = args.f32();
        else if (k == "--crop") a.crop = args.u32();
        else if (k == "--report-every") a.report_every = std::max(1u, args.u32());
        else if (k == "--validation") a.validation = true;
        else if (k == "--help" || k == "-h") usage("help");
        else usage("unknown option " + k);
    }
    if (a.image.empty()) usage("--image is required");
    return a;
}

double psnr(double mse) { return mse > 0 ? 10.0 * std::log10(1.0 / mse) : 99.0; }

ImageData crop_centre(const ff::bench::RgbImage& img, uint32_t n) {
    if (n == 0 || (n >= img.width && n >= img.height)) return {img.width, img.height, img.rgb};
    uint32_t w = std::min(n, img.width), h = std::min(n, img.height);
    uint32_t x0 = (img.width - w) / 2, y0 = (img.height - h) / 2;
    ImageData out{w, h, std::vector<float>(size_t(w) * h * 3)};
    for (uint32_t y = 0; y < h; ++y)
        std::copy_n(&img.rgb[((size_t(y0) + y) * img.width + x0) * 3], size_t(w) * 3, &out.rgb[size_t(y) * w * 3]);
    return out;
}

} // namespace

int main(int argc, char** argv) {
    Args a = parse(argc, argv);
    try {
        ImageData image = crop_centre(ff::bench::read_ppm(a.image), a.crop);
        Device device = Device::open(a.device, DeviceOptions{.validation = a.validation});
        auto t0 = Clock::now();
        SplatTrainer trainer(device, {.count = a.splats}, a.train, image);
        double setup_s = std::chrono::duration<double>(Clock::now() - t0).count();
        double start_psnr = psnr(trainer.full_image_mse());
        std::printf("{\"event\":\"start\",\"device\":\"%s\",\"width\":%u,\"height\":%u,\"splats\":%u,"
                    "\"parameters\":%llu,\"setup_s\":%.3f,\"psnr\":%.3f}\n",
                    device.info().name.c_str(), image.width, image.height, a.splats,
                    (unsigned long long)(uint64_t(a.splats) * kSplatParams), setup_s, start_psnr);
        double wall = 0;
        while (trainer.step() < a.train.steps) {
            uint32_t n = std::min(a.report_every, a.train.steps - trainer.step());
            auto t = Clock::now();
            float loss = trainer.train(n);
            wall += std::chrono::duration<double>(Clock::now() - t).count();
            std::printf("{\"event\":\"progress\",\"step\":%u,\"loss\":%.6g,\"psnr\":%.3f,"
                        "\"gpu_us_per_step\":%.2f,\"wall_us_per_step\":%.2f,\"diverged\":%s}\n",
                        trainer.step(), loss, psnr(trainer.full_image_mse()),
                        trainer.gpu_seconds() / trainer.step() * 1e6, wall / trainer.step() * 1e6,
                        trainer.diverged() ? "true" : "false");
            std::fflush(stdout);
        }
        double final_psnr = psnr(trainer.full_image_mse());
        std::printf("{\"event\":\"done\",\"splats\":%u,\"steps\":%u,\"psnr_start\":%.3f,\"psnr\":%.3f,"
                    "\"gpu_us_per_step\":%.2f,\"wall_us_per_step\":%.2f,\"train_s\":%.3f,"
                    "\"device_mib\":%.1f,\"validation_messages\":%zu}\n",
                    a.splats, trainer.step(), start_psnr, final_psnr,
                    trainer.step() ? trainer.gpu_seconds() / trainer.step() * 1e6 : 0.0,
                    trainer.step() ? wall / trainer.step() * 1e6 : 0.0, wall,
                    trainer.device_bytes() / 1048576.0, device.validation_messages().size());
        if (!a.out.empty())
            ff::bench::write_ppm(a.out, image.width, image.height, trainer.render(image.width, image.height));
        for (const std::string& m : device.validation_messages()) std::cerr << m << "\n";
        return device.validation_messages().empty() ? 0 : 1;
    } catch (const std::exception& e) {
        std::cerr << "ff-splat-bench: " << e.what() << "\n";
        return 1;
    }
}
