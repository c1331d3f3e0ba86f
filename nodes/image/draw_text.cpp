// DrawText: one line of text drawn onto the image (cv::putText).
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <vector>

namespace {

constexpr int64_t kMaxPosition = 1 << 16;

int font_code(const std::string& name) {
    if (name == "plain") return cv::FONT_HERSHEY_PLAIN;
    if (name == "duplex") return cv::FONT_HERSHEY_DUPLEX;
    if (name == "complex") return cv::FONT_HERSHEY_COMPLEX;
    if (name == "triplex") return cv::FONT_HERSHEY_TRIPLEX;
    if (name == "script") return cv::FONT_HERSHEY_SCRIPT_SIMPLEX;
    return cv::FONT_HERSHEY_SIMPLEX;
}

// The text's colour: one value (gray) or three (R, G, B) on the [0, 1] scale.
std::vector<double> text_colour(ff::Node& node) {
    std::vector<double> colour = ff::nodes::parse_numbers(node.string("colour"), "colour");
    if (colour.size() != 1 && colour.size() != 3)
        throw ff::ParamError("colour", "colour needs 1 value (gray) or 3 (R, G, B) on the [0, 1] scale, got " +
                                           std::to_string(colour.size()));
    return colour;
}

void check_params(ff::Node& node) {
    if (node.string("text").empty()) throw ff::ParamError("text", "text is empty: give the line to draw");
    if (node.string("text").find('\n') != std::string::npos)
        throw ff::ParamError("text", "text holds a line break; DrawText draws one line (use one node per line)");
    text_colour(node);
}

} // namespace

FF_NODE(draw_text) =
    ff::op("DrawText", "image")
        .doc("Draws one line of text with OpenCV's Hershey fonts (cv::putText), its baseline "
             "starting at (x, y). `size` is the font scale (1: letters about 22 pixels tall in "
             "the simplex font). The text is drawn as a coverage mask (anti-aliased unless "
             "`antialias` is false) and laid over the image in `colour` at every depth; on an "
             "RGBA image the text is opaque. Gray images take the colour's luma.")
        .input("image", ff::kImage, "image to draw on")
        .output("image", ff::kImage, "image with the text")
        .param_string("text", std::nullopt, "the line of text (ASCII)")
        .param_int("x", 10, -kMaxPosition, kMaxPosition, "left end of the baseline, pixels from the left")
        .param_int("y", 30, -kMaxPosition, kMaxPosition, "baseline, pixels from the top")
        .param_float("size", 1.0, 0.05, 100.0, "font scale")
        .param_int("thickness", 2, 1, 100, "stroke thickness in pixels")
        .param_string("colour", "1,1,1", "R,G,B on the [0, 1] scale, or one gray value")
        .param_enum("font", "simplex", "simplex|plain|duplex|complex|triplex|script", "Hershey font")
        .param_bool("antialias", true, "smooth edges (cv::LINE_AA); false: hard 8-connected strokes")
        .validate(check_params)
        .execute([](ff::Node& node) {
            check_params(node);
            const std::vector<double> colour = text_colour(node);
            ff::nodes::ColourAlpha parts = ff::nodes::split_alpha(ff::nodes::native_mat(node.image("image"), "image"));
            cv::Mat coverage(parts.colour.size(), CV_8U, cv::Scalar(0));
            cv::putText(coverage, node.string("text"), cv::Point(int(node.integer("x")), int(node.integer("y"))),
                        font_code(node.string("font")), node.number("size"), cv::Scalar(255),
                        int(node.integer("thickness")), node.flag("antialias") ? cv::LINE_AA : cv::LINE_8);
            const cv::Mat weights = ff::nodes::to_unit_float(coverage);
            cv::Scalar value;
            if (parts.colour.channels() == 1)
                value = cv::Scalar(colour.size() == 1 ? colour[0] : 0.299 * colour[0] + 0.587 * colour[1] + 0.114 * colour[2]);
            else
                value = colour.size() == 1 ? cv::Scalar::all(colour[0]) : cv::Scalar(colour[0], colour[1], colour[2]);
            const cv::Mat ink(parts.colour.size(), parts.colour.type(), value);
            cv::Mat out_alpha;
            if (!parts.alpha.empty()) out_alpha = ff::nodes::mix(parts.alpha, cv::Mat(parts.alpha.size(), CV_32F, cv::Scalar(1.0)), weights);
            ff::nodes::output_native(node, "image", ff::nodes::join_alpha(ff::nodes::mix(parts.colour, ink, weights), out_alpha));
        });
