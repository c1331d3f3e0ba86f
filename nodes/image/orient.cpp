// Rotate (by quarter turns) and Flip: exact pixel moves, no resampling.
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

FF_NODE(rotate) =
    ff::op("Rotate", "image")
        .doc("Rotates by a multiple of 90 degrees, clockwise (cv::rotate); 90 and 270 swap width "
             "and height.")
        .input("image", ff::kImage, "image to rotate")
        .output("image", ff::kImage, "rotated image")
        .param_enum("angle", "90", "90|180|270", "clockwise rotation in degrees")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const std::string angle = node.string("angle");
            const int code = angle == "90"    ? cv::ROTATE_90_CLOCKWISE
                             : angle == "180" ? cv::ROTATE_180
                                              : cv::ROTATE_90_COUNTERCLOCKWISE;
            cv::Mat rotated;
            cv::rotate(in, rotated, code);
            rotated.copyTo(ff::nodes::output_mat(node, "image", rotated.size()));
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
