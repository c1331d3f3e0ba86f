// Rotate (by any angle; quarter turns move pixels exactly) and Flip (exact).
#include "common/image_mat.hpp"
#include "image/cv_options.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>

namespace {

// Quarter turns clockwise when `angle` is a whole multiple of 90 degrees (0..3), else -1.
int quarter_turns(double angle) {
    const double turns = angle / 90.0;
    if (turns != std::floor(turns)) return -1;
    return int(((int64_t(turns) % 4) + 4) % 4);
}

// The rotation about the image centre, clockwise by `angle` degrees, onto an output of `size`
// whose centre the image's centre lands on.
cv::Mat rotation_matrix(cv::Size in, double angle, cv::Size size) {
    // getRotationMatrix2D turns counter-clockwise for a positive angle (y points down).
    cv::Mat m = cv::getRotationMatrix2D(cv::Point2f((in.width - 1) * 0.5f, (in.height - 1) * 0.5f), -angle, 1.0);
    m.at<double>(0, 2) += (size.width - in.width) * 0.5;
    m.at<double>(1, 2) += (size.height - in.height) * 0.5;
    return m;
}

// The smallest whole-pixel size that holds the image turned by `angle` degrees.
cv::Size expanded_size(cv::Size in, double angle) {
    const double r = angle * CV_PI / 180.0, c = std::abs(std::cos(r)), s = std::abs(std::sin(r));
    // Rounded up; the 1e-9 keeps float noise in cos/sin from adding a pixel at exact sizes.
    return {int(std::ceil(in.width * c + in.height * s - 1e-9)), int(std::ceil(in.width * s + in.height * c - 1e-9))};
}

} // namespace

FF_NODE(rotate) =
    ff::op("Rotate", "image")
        .doc("Rotates clockwise by `angle` degrees about the image centre. Multiples of 90 with "
             "`expand` move pixels exactly (cv::rotate; 90 and 270 swap width and height); other "
             "angles resample (cv::warpAffine with `interpolation`), the output grown to hold the "
             "whole turned image (`expand`) or kept at the input's size, corners cut; the uncovered "
             "corners get `border` (constant: `fill`). Gray, RGB and RGBA keep their channels.")
        .input("image", ff::kImage, "image to rotate")
        .output("image", ff::kImage, "rotated image")
        .param_float("angle", 90.0, -360.0, 360.0, "clockwise rotation in degrees (negative: counter-clockwise)")
        .param_bool("expand", true, "grow the output to hold the whole rotated image; false: keep the input's size")
        .param_enum("interpolation", "linear", ff::nodes::kInterpolations, "resampling for angles other than multiples of 90")
        .param_enum("border", "constant", ff::nodes::kBorders, "what fills the uncovered corners")
        .param_float("fill", 0.0, -1e6, 1e6, "the value of every channel in a constant border (alpha too)")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            const double angle = node.number("angle");
            const bool expand = node.flag("expand");
            const int turns = quarter_turns(angle);
            if (turns == 0) return ff::nodes::output_native(node, "image", in);
            if (turns > 0 && (expand || turns == 2 || in.cols == in.rows)) {
                const int codes[] = {0, cv::ROTATE_90_CLOCKWISE, cv::ROTATE_180, cv::ROTATE_90_COUNTERCLOCKWISE};
                cv::Mat rotated;
                cv::rotate(in, rotated, codes[turns]);
                return ff::nodes::output_native(node, "image", rotated);
            }
            const cv::Size size = expand ? expanded_size(in.size(), angle) : in.size();
            cv::Mat out;
            cv::warpAffine(in, out, rotation_matrix(in.size(), angle, size), size,
                           ff::nodes::interpolation_flag("interpolation", node.string("interpolation")),
                           ff::nodes::border_flag("border", node.string("border")),
                           cv::Scalar::all(node.number("fill")));
            ff::nodes::output_native(node, "image", out);
        });

FF_NODE(flip) =
    ff::op("Flip", "image")
        .doc("Mirrors the image: left-right (horizontal), top-bottom (vertical) or both (cv::flip).")
        .input("image", ff::kImage, "image to mirror")
        .output("image", ff::kImage, "mirrored image")
        .param_enum("direction", "horizontal", "horizontal|vertical|both", "which way to mirror")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const std::string d = node.string("direction");
            cv::Mat out = ff::nodes::output_mat(node, "image", in.size());
            cv::flip(in, out, d == "horizontal" ? 1 : d == "vertical" ? 0 : -1);
        });
