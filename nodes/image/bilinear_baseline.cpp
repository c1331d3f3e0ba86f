// BilinearBaseline: what a plain grid of the model's size can represent, as the reference the
// learned model must beat. Down to the grid size with area averaging, back up with bilinear.
#include "common/grid_size.hpp"
#include "common/image_mat.hpp"
#include "image/baseline_resize.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

FF_NODE(bilinear_baseline) =
    ff::op("BilinearBaseline", "image")
        .doc("The baseline a learned model must beat: the image shrunk to the feature-grid size "
             "with area averaging (INTER_AREA), then scaled back to its own size bilinearly "
             "(INTER_LINEAR). With grid 'auto' the grid is the size the Train node uses: the "
             "image size / 4, rounded down. Gray, RGB and RGBA keep their channels (alpha is scaled "
             "like the colours).")
        .input("image", ff::kImage, "image to approximate")
        .output("image", ff::kImage, "baseline reconstruction, same size as the input")
        .param_string("grid", "auto", "grid size: 'auto' (image / 4), or 'WxH' / 'W,H'")
        .validate([](ff::Node& node) {
            try {
                ff::nodes::parse_grid_spec(node.string("grid"));
            } catch (const ff::Error& e) {
                throw ff::ParamError("grid", e.what());
            }
        })
        .execute([](ff::Node& node) {
            // Every channel as it is: gray stays gray, alpha is scaled like the colours.
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            ff::nodes::GridSize grid;
            try {
                grid = ff::nodes::resolve_grid_size(node.string("grid"), uint32_t(in.cols),
                                                    uint32_t(in.rows));
            } catch (const ff::Error& e) {
                throw ff::ParamError("grid", e.what());
            }
            // In bands, each answering a cancel (baseline_resize.hpp), straight into the output.
            const cv::Mat small = ff::nodes::shrink_to_grid(
                node, in, cv::Size(int(grid.width), int(grid.height)));
            float* pixels = node.output_image("image", uint32_t(in.cols), uint32_t(in.rows),
                                              uint32_t(in.channels()));
            cv::Mat out(in.size(), in.type(), pixels);
            ff::nodes::enlarge_to(node, small, out);
            node.log("grid " + std::to_string(grid.width) + "x" + std::to_string(grid.height));
        });
