// Grayscale: luma with the Rec. 601 weights, kept as three equal channels so it stays an RGB image.
#include "common/image_mat.hpp"
#include "image/gpu_image.hpp"

#include <fieldflow/engine/image_ops.hpp>
#include <fieldflow/node.hpp>

FF_NODE(grayscale) =
    ff::op("Grayscale", "image")
        .doc("Luma of an RGB image (0.299 R + 0.587 G + 0.114 B, on the stored values), kept as "
             "3 equal channels.")
        .input("image", ff::kImage, "image to convert")
        .output("image", ff::kImage, "gray image, 3 equal channels")
        .param_enum("device", std::string("cpu"), "cpu|gpu",
                    "where to compute: 'cpu' (this process) or 'gpu' (a Vulkan compute kernel on "
                    "the run's --device; equal to the CPU result within float rounding)")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            cv::Mat out = ff::nodes::output_mat(node, "image", in.size());
            if (node.string("device") == "gpu") {
                std::vector<float> luma;
                try {
                    luma = ff::engine::grayscale(ff::nodes::gpu_device(node), uint32_t(in.cols),
                                                 uint32_t(in.rows), ff::nodes::mat_floats(in));
                } catch (const ff::engine::EngineError& e) {
                    throw ff::Error(e.what());
                }
                for (int y = 0; y < in.rows; ++y) {
                    cv::Vec3f* dst = out.ptr<cv::Vec3f>(y);
                    const float* src = luma.data() + size_t(y) * size_t(in.cols);
                    for (int x = 0; x < in.cols; ++x) dst[x] = cv::Vec3f(src[x], src[x], src[x]);
                }
                return;
            }
            for (int y = 0; y < in.rows; ++y) {
                const cv::Vec3f* src = in.ptr<cv::Vec3f>(y);
                cv::Vec3f* dst = out.ptr<cv::Vec3f>(y);
                for (int x = 0; x < in.cols; ++x) {
                    const float luma = 0.299f * src[x][0] + 0.587f * src[x][1] + 0.114f * src[x][2];
                    dst[x] = cv::Vec3f(luma, luma, luma);
                }
            }
        });
