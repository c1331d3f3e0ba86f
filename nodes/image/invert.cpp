// Invert: the negative of the colour channels.
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

FF_NODE(invert) =
    ff::op("Invert", "image")
        .doc("The negative: 1 - value in each colour channel (on an 8-bit image, 255 - value, as "
             "cv::bitwise_not). Gray stays gray; alpha is kept.")
        .input("image", ff::kImage, "image to invert")
        .output("image", ff::kImage, "inverted image")
        .execute([](ff::Node& node) {
            ff::nodes::map_colour(node, [](const cv::Mat& colour) {
                cv::Mat out;
                cv::subtract(cv::Scalar::all(1.0), colour, out);
                return out;
            });
        });
