// ColorConvert: RGB to another colour space, the three channels carried in the image's R, G, B.
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

FF_NODE(color_convert) =
    ff::op("ColorConvert", "image")
        .doc("Converts RGB to gray, HSV or Lab, or back to RGB (cv::cvtColor on float values). "
             "gray: luma in all 3 channels; hsv: H in degrees [0, 360), S and V in [0, 1]; lab: "
             "L in [0, 100], a and b about [-127, 127]; hsv_to_rgb and lab_to_rgb invert them.")
        .input("image", ff::kImage, "image to convert")
        .output("image", ff::kImage, "converted channels in R, G, B order")
        .param_enum("to", "gray", "gray|hsv|lab|hsv_to_rgb|lab_to_rgb", "the conversion")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::rgb_mat(node.image("image"), "image");
            const std::string to = node.string("to");
            cv::Mat out = ff::nodes::output_mat(node, "image", in.size());
            if (to == "gray") {
                cv::Mat gray;
                cv::cvtColor(in, gray, cv::COLOR_RGB2GRAY);
                cv::cvtColor(gray, out, cv::COLOR_GRAY2RGB);
                return;
            }
            const int code = to == "hsv"          ? cv::COLOR_RGB2HSV
                             : to == "lab"        ? cv::COLOR_RGB2Lab
                             : to == "hsv_to_rgb" ? cv::COLOR_HSV2RGB
                                                  : cv::COLOR_Lab2RGB;
            cv::cvtColor(in, out, code);
        });
