// ErrorMap: where an image differs from its reference, as a picture: the per-pixel absolute error
// (mean over R, G, B) through a colour scale, or as gray values. Two ErrorMaps with the same
// `scale` can be compared by eye, as the Report's bilinear and learned maps are.
#include "common/image_mat.hpp"
#include "metrics/error_map.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <opencv2/imgproc.hpp>

#include <cstdio>

namespace {

// The share of pixels below the automatic scale's top: a few outliers do not flatten the rest.
constexpr double kAutoScaleQuantile = 0.995;

void execute_error_map(ff::Node& node) {
    cv::Mat reference = ff::nodes::rgb_mat(node.image("reference"), "reference");
    cv::Mat image = ff::nodes::rgb_mat(node.image("image"), "image");
    if (reference.size() != image.size())
        throw ff::Error("input 'image' is " + ff::nodes::size_text(image.size()) + " but 'reference' is " +
                        ff::nodes::size_text(reference.size()) + "; an error map needs images of the same size");
    const bool quantize = node.flag("quantize");
    if (quantize) reference = ff::nodes::to_8bit(reference), image = ff::nodes::to_8bit(image);
    node.throw_if_cancelled();

    const cv::Mat error = ff::metrics::absolute_error(reference, image);
    double max_error = 0;
    cv::minMaxLoc(error, nullptr, &max_error);
    const double mean_error = cv::mean(error)[0];
    const double scale_param = node.number("scale");
    const float scale = scale_param > 0 ? float(scale_param)
                                        : ff::metrics::error_quantile({error}, kAutoScaleQuantile);
    node.throw_if_cancelled();

    if (node.flag("colour")) {
        cv::Mat rgb8 = ff::metrics::colour_error(error, scale), rgb;
        rgb8.convertTo(rgb, CV_32FC3, 1.0 / 255.0);
        ff::nodes::output_rgb(node, "image", rgb);
    } else {
        cv::Mat gray = error * (1.0 / scale), rgb;
        cv::min(gray, 1.0, gray);
        cv::cvtColor(gray, rgb, cv::COLOR_GRAY2RGB);
        ff::nodes::output_rgb(node, "image", rgb);
    }
    const nlohmann::json json = {{"scale", scale},           {"max_error", max_error},
                                 {"mean_error", mean_error}, {"quantized", quantize},
                                 {"width", image.cols},      {"height", image.rows}};
    node.output_text("json", json.dump());
    char line[128];
    std::snprintf(line, sizeof line, "mean error %.4f, max %.4f, colour scale 0..%.4f", mean_error,
                  max_error, double(scale));
    node.log(line);
}

} // namespace

FF_NODE(error_map) =
    ff::op("ErrorMap", "metrics")
        .doc("Where an image differs from a reference of the same size: the absolute error per "
             "pixel, averaged over R, G, B on the [0, 1] scale, drawn with the 'inferno' colour "
             "map (black = no error, pale yellow = `scale` or more), or as gray (white = `scale`) "
             "with colour: false. scale 0 picks the error 99.5% of the pixels stay below. Give "
             "two ErrorMaps the same scale to compare them by eye. The json output holds scale, "
             "max_error and mean_error.")
        .input("reference", ff::kImage, "ground truth")
        .input("image", ff::kImage, "image to map")
        .output("image", ff::kImage, "the error map, the inputs' size")
        .output("json", ff::kJson, "{\"scale\", \"max_error\", \"mean_error\", ...}")
        .param_float("scale", 0.0, 0.0, 1.0,
                     "error shown at the top of the scale, on the [0, 1] scale (0.1 = 25.5 8-bit "
                     "levels); 0 = automatic (99.5th percentile)")
        .param_bool("colour", true, "colour scale (inferno); false = gray")
        .param_bool("quantize", true, "round both images to 8 bits first, as WriteImage saves them")
        .execute(execute_error_map);
