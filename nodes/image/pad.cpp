// Pad: a border around the image (cv::copyMakeBorder).
#include "common/image_mat.hpp"
#include "image/cv_options.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

namespace {

constexpr int64_t kMaxBorder = 1 << 16;
constexpr int64_t kMaxSide = 1 << 16; // as Resize's

// An output side over the limit is an error at the larger of its two borders.
void check_side(int64_t side, int64_t first, int64_t second, const char* first_name, const char* second_name) {
    const int64_t total = side + first + second;
    if (total <= kMaxSide) return;
    const char* blamed = first >= second ? first_name : second_name;
    throw ff::ParamError(blamed, "the padded image would be " + std::to_string(total) + " pixels " +
                                     (blamed[0] == 'l' || blamed[0] == 'r' ? "wide" : "tall") +
                                     ", over the limit of " + std::to_string(kMaxSide) + " per side");
}

} // namespace

FF_NODE(pad) =
    ff::op("Pad", "image")
        .doc("Adds a border of left, right, top and bottom pixels (cv::copyMakeBorder): a "
             "constant `fill` value, the edge pixels repeated, the image mirrored or wrapped. "
             "Gray, RGB and RGBA keep their channels; a constant border fills alpha with `fill` "
             "too (0: transparent).")
        .input("image", ff::kImage, "image to pad")
        .output("image", ff::kImage, "padded image")
        .param_int("left", 0, 0, kMaxBorder, "pixels added on the left")
        .param_int("right", 0, 0, kMaxBorder, "pixels added on the right")
        .param_int("top", 0, 0, kMaxBorder, "pixels added at the top")
        .param_int("bottom", 0, 0, kMaxBorder, "pixels added at the bottom")
        .param_enum("border", "constant", ff::nodes::kBorders,
                    "what the border holds: constant (fill), replicate (edge pixels), reflect "
                    "(mirror, edge repeated: cba|abc), reflect101 (mirror: dcb|abcd), wrap")
        .param_float("fill", 0.0, -1e6, 1e6, "the value of every channel in a constant border")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            const int mode = ff::nodes::border_flag("border", node.string("border"));
            const int left = int(node.integer("left")), right = int(node.integer("right"));
            const int top = int(node.integer("top")), bottom = int(node.integer("bottom"));
            check_side(in.cols, left, right, "left", "right");
            check_side(in.rows, top, bottom, "top", "bottom");
            cv::Mat out;
            cv::copyMakeBorder(in, out, top, bottom, left, right, mode, cv::Scalar::all(node.number("fill")));
            ff::nodes::output_native(node, "image", out);
        });
