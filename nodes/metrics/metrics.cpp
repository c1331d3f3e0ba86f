// Metrics: PSNR, SSIM and MSE of an image against a reference, as JSON. A pure op: pair it with
// WriteJson to save the numbers.
#include "common/image_mat.hpp"
#include "metrics/image_metrics.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <cstdio>

FF_NODE(metrics) =
    ff::op("Metrics", "metrics")
        .doc("Compares an image with a reference of the same size: "
             "{\"psnr\", \"ssim\", \"mse\", \"identical\", \"quantized\", \"computed_on\", "
             "\"width\", \"height\"} as JSON. With quantize (the default) both are first rounded "
             "to the reference's source depth (8 or 16 bits; float sources stay float) as "
             "WriteImage saves them, so the numbers match what any tool computes from the saved "
             "files; otherwise they are computed on the float values. PSNR in dB (as cv::PSNR; "
             "null, with identical: true, when the images are equal and PSNR is infinite), SSIM as "
             "Wang et al. 2004 (11x11 Gaussian window, sigma 1.5) averaged over RGB (alpha is not "
             "scored), MSE on the [0, 1] scale.")
        .input("reference", ff::kImage, "ground truth")
        .input("image", ff::kImage, "image to score")
        .output("json", ff::kJson, "the metrics")
        .param_bool("quantize", true, "round both images to the reference's source depth first")
        .execute([](ff::Node& node) {
            const cv::Mat reference = ff::nodes::rgb_mat(node.image("reference"), "reference");
            const cv::Mat image = ff::nodes::rgb_mat(node.image("image"), "image");
            if (reference.size() != image.size())
                throw ff::Error("input 'image' is " + ff::nodes::size_text(image.size()) +
                                " but 'reference' is " + ff::nodes::size_text(reference.size()) +
                                "; metrics need images of the same size");
            const bool quantize = node.flag("quantize");
            const uint32_t bits = quantize ? ff::metrics::metrics_bits(node.image("reference").bits) : 0;
            // Seconds of work on a large image: progress, and a cancel answered between parts.
            const ff::metrics::ImageMetrics m = ff::metrics::compare(
                reference, image, bits, [&node](size_t done, size_t total) {
                    node.throw_if_cancelled();
                    node.progress(done, total, "SSIM");
                });
            nlohmann::json json = {{"psnr", m.identical ? nlohmann::json(nullptr) : nlohmann::json(m.psnr)},
                                   {"identical", m.identical},
                                   {"ssim", m.ssim},
                                   {"mse", m.mse},
                                   {"quantized", quantize},
                                   {"computed_on", ff::nodes::depth_text(bits) + " values"},
                                   {"width", image.cols},
                                   {"height", image.rows}};
            node.output_text("json", json.dump());
            char line[128];
            if (m.identical) std::snprintf(line, sizeof line, "identical images (PSNR infinite), SSIM %.4f", m.ssim);
            else std::snprintf(line, sizeof line, "PSNR %.3f dB, SSIM %.4f", m.psnr, m.ssim);
            node.log(line);
        });
