// SplitChannels and MergeChannels: an image's channels as gray images, and back (cv::split,
// cv::merge).
#include "common/image_mat.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/core.hpp>

#include <array>
#include <vector>

namespace {

constexpr std::array<const char*, 4> kChannels = {"red", "green", "blue", "alpha"};

} // namespace

FF_NODE(split_channels) =
    ff::op("SplitChannels", "image")
        .doc("Splits an image into one-channel (gray) images: red, green, blue and alpha "
             "(cv::split). A gray image gives its value as red, green and blue; an image without "
             "alpha gives an opaque alpha (all 1).")
        .input("image", ff::kImage, "image to split")
        .output(kChannels[0], ff::kImage, "the red channel")
        .output(kChannels[1], ff::kImage, "the green channel")
        .output(kChannels[2], ff::kImage, "the blue channel")
        .output(kChannels[3], ff::kImage, "the alpha channel (1 where the image has none)")
        .execute([](ff::Node& node) {
            const cv::Mat in = ff::nodes::native_mat(node.image("image"), "image");
            std::vector<cv::Mat> planes;
            cv::split(in, planes);
            if (planes.size() == 1) planes = {planes[0], planes[0], planes[0]};
            if (planes.size() == 3) planes.push_back(cv::Mat(in.size(), CV_32F, cv::Scalar(1.0)));
            for (size_t i = 0; i < kChannels.size(); ++i) ff::nodes::output_native(node, kChannels[i], planes[i]);
        });

FF_NODE(merge_channels) =
    ff::op("MergeChannels", "image")
        .doc("Builds an RGB image from one-channel images red, green and blue, or RGBA when "
             "alpha is connected (cv::merge). Each input must be one channel (SplitChannels' "
             "outputs are; Grayscale's are 3) and all the same size.")
        .input(kChannels[0], ff::kImage, "the red channel")
        .input(kChannels[1], ff::kImage, "the green channel")
        .input(kChannels[2], ff::kImage, "the blue channel")
        .optional_input(kChannels[3], ff::kImage, "the alpha channel; unconnected: an RGB result")
        .output("image", ff::kImage, "merged image")
        .execute([](ff::Node& node) {
            std::vector<cv::Mat> planes;
            for (const char* port : kChannels) {
                const auto view = node.optional_image(port);
                if (!view) {
                    if (std::string(port) == "alpha") break; // optional: an RGB result
                    throw ff::Error(std::string("input '") + port + "' is not connected");
                }
                if (view->channels != 1)
                    throw ff::Error(std::string("input '") + port + "' has " + std::to_string(view->channels) +
                                    " channels; MergeChannels takes one-channel images (SplitChannels' outputs)");
                planes.push_back(ff::nodes::native_mat(*view, port));
                if (planes.back().size() != planes.front().size())
                    throw ff::Error(std::string("input '") + port + "' is " + ff::nodes::size_text(planes.back().size()) +
                                    " but 'red' is " + ff::nodes::size_text(planes.front().size()) +
                                    ": the channels must be the same size");
            }
            cv::Mat out;
            cv::merge(planes, out);
            ff::nodes::output_native(node, "image", out);
        });
