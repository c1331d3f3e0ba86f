// Downsample: shrink by an integer factor with a box filter (the mean of each factor x factor
// block). When a side is not a multiple of the factor, the remainder rows at the bottom and
// columns at the right are dropped, so every output pixel averages a full block and the output
// is floor(width / factor) x floor(height / factor).
#include "common/image_mat.hpp"
#include "image/gpu_image.hpp"

#include <fieldflow/engine/image_ops.hpp>
#include <fieldflow/node.hpp>

#include <algorithm>
#include <vector>

FF_NODE(downsample) =
    ff::op("Downsample", "image")
        .doc("Shrinks an image by an integer factor: each output pixel is the mean of a factor x "
             "factor block. Remainder rows (bottom) and columns (right) that do not fill a block "
             "are dropped: the output is floor(width / factor) x floor(height / factor).")
        .input("image", ff::kImage, "image to shrink")
        .output("image", ff::kImage, "downsampled image")
        .param_int("factor", 2, 1, 4096, "shrink factor per side")
        .param_enum("device", std::string("cpu"), "cpu|gpu",
                    "where to compute: 'cpu' (this process) or 'gpu' (a Vulkan compute kernel on "
                    "the run's --device; equal to the CPU result within float rounding)")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const int factor = int(node.integer("factor"));
            const int out_w = in.cols / factor, out_h = in.rows / factor;
            if (out_w == 0 || out_h == 0)
                throw ff::ParamError("factor", "factor " + std::to_string(factor) +
                                                   " is larger than the image (" +
                                                   ff::nodes::size_text(in.size()) + ")");
            cv::Mat out = ff::nodes::output_mat(node, "image", cv::Size(out_w, out_h));
            if (node.string("device") == "gpu") {
                std::vector<float> small;
                try {
                    small = ff::engine::downsample(ff::nodes::gpu_device(node), uint32_t(in.cols),
                                                   uint32_t(in.rows), 3, ff::nodes::mat_floats(in),
                                                   uint32_t(factor));
                } catch (const ff::engine::EngineError& e) {
                    throw ff::Error(e.what());
                }
                for (int oy = 0; oy < out_h; ++oy)
                    std::copy_n(small.data() + size_t(oy) * size_t(out_w) * 3, size_t(out_w) * 3,
                                out.ptr<float>(oy));
                return;
            }
            // Sum each block in double (a large block of floats loses precision otherwise),
            // one output row at a time.
            const double inverse_area = 1.0 / (double(factor) * factor);
            std::vector<cv::Vec3d> sums(static_cast<size_t>(out_w));
            for (int oy = 0; oy < out_h; ++oy) {
                std::fill(sums.begin(), sums.end(), cv::Vec3d());
                for (int y = oy * factor; y < (oy + 1) * factor; ++y) {
                    const cv::Vec3f* row = in.ptr<cv::Vec3f>(y);
                    for (int ox = 0; ox < out_w; ++ox)
                        for (int x = ox * factor; x < (ox + 1) * factor; ++x)
                            sums[size_t(ox)] += cv::Vec3d(row[x]);
                }
                cv::Vec3f* dst = out.ptr<cv::Vec3f>(oy);
                for (int ox = 0; ox < out_w; ++ox) dst[ox] = cv::Vec3f(sums[size_t(ox)] * inverse_area);
            }
        });
