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
             "{\"psnr\", \"ssim\", \"mse\", \"quantized\", \"width\", \"height\"} as JSON. "
             "With quantize (the default) both are first rounded to 8 bits as WriteImage saves "
             "them, so the numbers match what any tool computes from the saved 8-bit files; "
             "otherwise they are computed on the float values. PSNR in dB (peak 1, as cv::PSNR), "
             "SSIM as Wang et al. 2004 (11x11 Gaussian window, sigma 1.5) averaged over RGB, MSE "
             "on the [0, 1] scale.")
        .input("reference", ff::kImage, "ground truth")
        .input("image", ff::kImage, "image to score")
        .output("json", ff::kJson, "the metrics")
        .param_bool("quantize", true, "round both images to 8 bits first")
        .execute([](ff::Node& node) {
            const cv::Mat reference = ff::nodes::rgb_mat(node.image("reference"), "reference");
            const cv::Mat image = ff::nodes::rgb_mat(node.image("image"), "image");
            if (reference.size() != image.size())
                throw ff::Error("input 'image' is " + ff::nodes::size_text(image.size()) +
                                " but 'reference' is " + ff::nodes::size_text(reference.size()) +
                                "; metrics need images of the same size");
            const bool quantize = node.flag("quantize");
            const ff::metrics::ImageMetrics m = ff::metrics::compare(reference, image, quantize);
            nlohmann::json json = {{"psnr", m.psnr},       {"ssim", m.ssim},
                                   {"mse", m.mse},         {"quantized", quantize},
                                   {"width", image.cols}, {"height", image.rows}};
            node.output_text("json", json.dump());
            char line[128];
            std::snprintf(line, sizeof line, "PSNR %.3f dB, SSIM %.4f", m.psnr, m.ssim);
            node.log(line);
        });
