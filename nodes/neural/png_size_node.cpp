// PngSize: how many bytes an image takes as a PNG at maximum compression (png_size.hpp), as JSON:
// the figure Report sets beside the model file's size. An op of its own so that a graph can run
// it beside training: it needs only the ground truth, and zlib at level 9 is the longest part of
// a report on a small photo (graphs/lake.yaml wires it so; Report computes it itself otherwise).
#include "png_size.hpp"

#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <string>

FF_NODE(png_size) =
    ff::op("PngSize", "metrics")
        .doc("The size of the image as an 8-bit RGB PNG at maximum compression (zlib level 9): "
             "{\"png_bytes\", \"estimated\"} as JSON. Exact up to a quarter megapixel; above, "
             "estimated from 16 strips encoded in parallel (estimated: true). Report's "
             "'png_size' input takes it, so that the encode can run beside training.")
        .input("image", ff::kImage, "the image (rounded to 8 bits, as Report shows it)")
        .output("json", ff::kJson, "{\"png_bytes\": N, \"estimated\": true|false}")
        .execute([](ff::Node& node) {
            const cv::Mat rgb8 = ff::nodes::to_8bit(ff::nodes::rgb_mat(node.image("image"), "image"));
            const ff::neural::PngSize size =
                ff::neural::smallest_png_size(rgb8, [&node](size_t done, size_t total) {
                    node.throw_if_cancelled();
                    node.progress(done, total, "PNG size");
                });
            node.output_text("json", nlohmann::json{{"png_bytes", size.bytes}, {"estimated", size.estimated}}.dump());
            node.log("as a PNG at maximum compression: " + std::to_string(size.bytes) + " bytes" +
                     (size.estimated ? " (estimated from strips)" : ""));
        });
