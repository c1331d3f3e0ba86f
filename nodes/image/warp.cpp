// WarpAffine and WarpPerspective: the image through a 2x3 or 3x3 matrix, given as numbers or as
// the points it maps (cv::warpAffine / cv::warpPerspective).
#include "common/image_mat.hpp"
#include "image/cv_options.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <cmath>
#include <string>
#include <vector>

namespace {

constexpr int64_t kMaxSide = 1 << 16;

// Points "x,y x,y ..." -> exactly `count` cv::Point2f, or a ParamError naming `param`.
std::vector<cv::Point2f> parse_points(ff::Node& node, const char* param, size_t count) {
    const std::vector<double> numbers = ff::nodes::parse_numbers(node.string(param), param);
    if (numbers.size() != 2 * count)
        throw ff::ParamError(param, std::string(param) + " needs " + std::to_string(count) +
                                        " points (x,y pairs: " + std::to_string(2 * count) +
                                        " numbers), got " + std::to_string(numbers.size()) + " numbers");
    std::vector<cv::Point2f> points;
    for (size_t i = 0; i < count; ++i) points.emplace_back(float(numbers[2 * i]), float(numbers[2 * i + 1]));
    return points;
}

// The warp's matrix (CV_64F, rows x 3) from `matrix` or from the `from` -> `to` points, checked:
// exactly one of the two forms, the right count of numbers, invertible.
cv::Mat warp_matrix(ff::Node& node, int rows) {
    const size_t points = rows == 2 ? 3 : 4;
    const bool by_matrix = !node.string("matrix").empty();
    const bool by_points = !node.string("from").empty() || !node.string("to").empty();
    if (by_matrix == by_points)
        throw ff::ParamError("matrix", by_matrix ? "give either matrix or from/to points, not both"
                                                 : "give matrix (" + std::to_string(rows * 3) +
                                                       " numbers) or from and to (" +
                                                       std::to_string(points) + " points each)");
    cv::Mat m;
    if (by_matrix) {
        const std::vector<double> numbers = ff::nodes::parse_numbers(node.string("matrix"), "matrix");
        if (numbers.size() != size_t(rows) * 3)
            throw ff::ParamError("matrix", "matrix needs " + std::to_string(rows * 3) + " numbers (" +
                                               std::to_string(rows) + " rows of 3, row by row), got " +
                                               std::to_string(numbers.size()));
        m = cv::Mat(numbers, true).reshape(1, rows);
    } else {
        const auto from = parse_points(node, "from", points), to = parse_points(node, "to", points);
        m = rows == 2 ? cv::getAffineTransform(from, to) : cv::getPerspectiveTransform(from, to);
    }
    cv::Mat square = cv::Mat::eye(3, 3, CV_64F);
    m.copyTo(square.rowRange(0, rows));
    const double det = cv::determinant(square);
    if (!std::isfinite(det) || std::abs(det) < 1e-12 || !cv::checkRange(m))
        throw ff::ParamError(by_matrix ? "matrix" : "from",
                             by_matrix ? "the matrix is not invertible: it maps the image onto a line or a point"
                                       : "the points do not define a warp (three of them lie on a line)");
    return m;
}

ff::OpBuilder warp_op(const char* name, int rows) {
    const bool affine = rows == 2;
    ff::OpBuilder builder = ff::op(name, "image");
    builder.input("image", ff::kImage, "image to warp")
        .output("image", ff::kImage, "warped image")
        .param_string("matrix", "",
                      affine ? "the 2x3 matrix, row by row: 'a b c d e f' maps (x, y) to "
                               "(a x + b y + c, d x + e y + f)"
                             : "the 3x3 matrix, row by row (9 numbers), mapping input to output pixels")
        .param_string("from", "", affine ? "3 points of the input, 'x,y x,y x,y'" : "4 points of the input, 'x,y x,y x,y x,y'")
        .param_string("to", "", "where the `from` points land in the output, as many points")
        .param_int("width", 0, 0, kMaxSide, "output width; 0: the input's")
        .param_int("height", 0, 0, kMaxSide, "output height; 0: the input's")
        .param_enum("interpolation", "linear", ff::nodes::kInterpolations, "resampling")
        .param_enum("border", "constant", ff::nodes::kBorders, "what fills output pixels from outside the image")
        .param_float("fill", 0.0, -1e6, 1e6, "the value of every channel in a constant border (alpha too)")
        .validate([rows](ff::Node& node) { warp_matrix(node, rows); })
        .execute([rows](ff::Node& node) {
            const cv::Mat m = warp_matrix(node, rows);
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            const cv::Size size(node.integer("width") ? int(node.integer("width")) : in.cols,
                                node.integer("height") ? int(node.integer("height")) : in.rows);
            const int flags = ff::nodes::interpolation_flag("interpolation", node.string("interpolation"));
            const int border = ff::nodes::border_flag("border", node.string("border"));
            const cv::Scalar fill = cv::Scalar::all(node.number("fill"));
            cv::Mat out;
            if (rows == 2) cv::warpAffine(in, out, m, size, flags, border, fill);
            else cv::warpPerspective(in, out, m, size, flags, border, fill);
            ff::nodes::output_native(node, "image", out);
        });
    return builder;
}

} // namespace

FF_NODE(warp_affine) =
    warp_op("WarpAffine", 2)
        .doc("Moves every pixel through an affine map (cv::warpAffine): rotation, scale, shear "
             "and shift in one. Give the 2x3 `matrix`, or 3 `from` points and where they go "
             "(`to`). Output pixels from outside the image get `border`. Gray, RGB and RGBA keep "
             "their channels.");

FF_NODE(warp_perspective) =
    warp_op("WarpPerspective", 3)
        .doc("Moves every pixel through a perspective map (cv::warpPerspective), e.g. to "
             "straighten a photographed page: give 4 `from` points (the page's corners) and "
             "where they go (`to`), or the 3x3 `matrix`. Output pixels from outside the image "
             "get `border`. Gray, RGB and RGBA keep their channels.");
