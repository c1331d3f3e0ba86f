// Composite: an overlay placed over the image at (x, y), through its alpha and an optional mask
// (Porter-Duff "over").
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace {

constexpr int64_t kMaxOffset = 1 << 16;

// The overlay's colour in the base's colour layout (gray <-> RGB).
cv::Mat colour_like(const cv::Mat& colour, int channels) {
    if (colour.channels() == channels) return colour;
    cv::Mat out;
    cv::cvtColor(colour, out, channels == 1 ? cv::COLOR_RGB2GRAY : cv::COLOR_GRAY2RGB);
    return out;
}

} // namespace

FF_NODE(composite) =
    ff::op("Composite", "image")
        .doc("Places `overlay` over `image` with its top-left corner at (x, y) (negative: partly "
             "off the left or top), through the overlay's alpha (RGBA), the `mask` input (the "
             "overlay's size; colour masks by their luma) and `opacity`, all multiplied: "
             "result = image x (1 - w) + overlay x w. An RGBA image gets the overlay's coverage "
             "in its alpha (Porter-Duff over). The output has the image's size and channels; "
             "parts of the overlay outside it are cut.")
        .input("image", ff::kImage, "background")
        .input("overlay", ff::kImage, "image placed over it")
        .optional_input("mask", ff::kImage, "the overlay's coverage, its size (1: opaque, 0: clear)")
        .output("image", ff::kImage, "composited image")
        .param_int("x", 0, -kMaxOffset, kMaxOffset, "left edge of the overlay in the image, pixels")
        .param_int("y", 0, -kMaxOffset, kMaxOffset, "top edge of the overlay in the image, pixels")
        .param_float("opacity", 1.0, 0.0, 1.0, "overall coverage of the overlay")
        .execute([](ff::Node& node) {
            const cv::Mat base = ff::nodes::native_mat(node.image("image"), "image");
            const ff::nodes::ColourAlpha over = ff::nodes::split_alpha(ff::nodes::native_mat(node.image("overlay"), "overlay"));
            cv::Mat coverage = over.alpha.empty() ? cv::Mat(over.colour.size(), CV_32F, cv::Scalar(1.0)) : over.alpha.clone();
            if (const auto mask_view = node.optional_image("mask")) {
                const cv::Mat mask = ff::nodes::mask_weights(*mask_view, "mask");
                if (mask.size() != coverage.size())
                    throw ff::Error("input 'mask' is " + ff::nodes::size_text(mask.size()) + " but 'overlay' is " +
                                    ff::nodes::size_text(coverage.size()) + ": the mask covers the overlay");
                cv::multiply(coverage, mask, coverage);
            }
            coverage *= node.number("opacity");
            ff::nodes::ColourAlpha parts = ff::nodes::split_alpha(base.clone());
            const cv::Mat colour = colour_like(over.colour, parts.colour.channels());

            // The part of the overlay that lands inside the image.
            const cv::Rect placed(int(node.integer("x")), int(node.integer("y")), colour.cols, colour.rows);
            const cv::Rect inside = placed & cv::Rect(0, 0, base.cols, base.rows);
            if (inside.empty()) {
                node.warn("the overlay lies entirely outside the image: the image is unchanged");
                return ff::nodes::output_native(node, "image", base);
            }
            const cv::Rect from(inside.x - placed.x, inside.y - placed.y, inside.width, inside.height);
            const cv::Mat w = coverage(from), fg = colour(from);
            cv::Mat bg = parts.colour(inside);
            if (parts.alpha.empty()) {
                ff::nodes::mix(bg, fg, w).copyTo(bg);
            } else {
                // over: alpha = w + a (1 - w); colour = (fg w + bg a (1 - w)) / alpha.
                cv::Mat a = parts.alpha(inside), keep, alpha;
                cv::subtract(cv::Scalar::all(1.0), w, keep);
                cv::multiply(a, keep, keep); // a (1 - w)
                cv::add(w, keep, alpha);
                cv::Mat share; // w / alpha: the overlay's share of the colour (0 where nothing is left)
                cv::divide(w, alpha, share);
                share.setTo(0.0, alpha <= 0.0);
                ff::nodes::mix(bg, fg, share).copyTo(bg);
                alpha.copyTo(a);
            }
            ff::nodes::output_native(node, "image", ff::nodes::join_alpha(parts.colour, parts.alpha));
        });
