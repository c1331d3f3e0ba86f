// Compare: a side-by-side strip of 2 to 6 images, each scaled to a common height, with a label
// above each.
#include "common/image_mat.hpp"
#include "common/label_band.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cmath>
#include <vector>

namespace {

constexpr std::array<const char*, 6> kPorts = {"image1", "image2", "image3",
                                               "image4", "image5", "image6"};
constexpr int kMaxHeight = 16384;

} // namespace

FF_NODE(compare) =
    ff::op("Compare", "image")
        .doc("Places 2 to 6 images side by side, each with a label above it. Images come from "
             "image1, image2, ... in order, skipping unconnected ports, each scaled to a common "
             "height keeping its aspect ratio. labels: one per connected image, or none for no "
             "label bands.")
        .optional_inputs(kPorts, ff::kImage, "image")
        .output("image", ff::kImage, "the strip")
        .param_string_list("labels", "[]", "one label per connected image, or [] for none")
        .param_int("height", 0, 0, kMaxHeight, "common image height; 0: the first image's height")
        .param_int("gap", 8, 0, 1024, "pixels between images")
        .execute([](ff::Node& node) {
            std::vector<cv::Mat> images;
            for (const char* port : kPorts)
                if (auto view = node.optional_image(port))
                    images.push_back(ff::nodes::rgb_mat(*view, port));
            if (images.size() < 2)
                throw ff::Error("Compare needs at least 2 connected images (image1 ... image6), got " +
                                std::to_string(images.size()));
            const std::vector<std::string> labels = node.strings("labels");
            if (!labels.empty() && labels.size() != images.size())
                throw ff::ParamError("labels", "got " + std::to_string(labels.size()) +
                                                   " labels for " + std::to_string(images.size()) +
                                                   " connected images");

            const int height = node.integer("height") > 0 ? int(node.integer("height")) : images[0].rows;
            const int gap = int(node.integer("gap"));
            std::vector<cv::Mat> tiles;
            int width = 0;
            for (const cv::Mat& image : images) {
                const int w = std::max(1, int(std::lround(double(image.cols) * height / image.rows)));
                cv::Mat tile;
                const int flag = height < image.rows ? cv::INTER_AREA : cv::INTER_LINEAR;
                cv::resize(image, tile, cv::Size(w, height), 0, 0, flag);
                tiles.push_back(tile);
                width += w;
            }
            width += gap * int(tiles.size() - 1);
            const int band = labels.empty() ? 0 : std::clamp(height / 12, 20, 96);
            if (int64_t(width) * (height + band) > (int64_t(1) << 28))
                throw ff::ParamError("height", "the strip would be " + std::to_string(width) + "x" +
                                                   std::to_string(height + band) +
                                                   " pixels; lower height");

            cv::Mat out = ff::nodes::output_mat(node, "image", cv::Size(width, height + band));
            out.setTo(cv::Scalar::all(0));
            int x = 0;
            for (size_t i = 0; i < tiles.size(); ++i) {
                const int w = tiles[i].cols;
                tiles[i].copyTo(out(cv::Rect(x, band, w, height)));
                if (band > 0) {
                    cv::Mat label_bgr = ff::nodes::label_band(labels[i], w, band), label_rgb;
                    cv::cvtColor(label_bgr, label_bgr, cv::COLOR_BGR2RGB);
                    label_bgr.convertTo(label_rgb, CV_32F, 1.0 / 255.0);
                    label_rgb.copyTo(out(cv::Rect(x, 0, w, band)));
                }
                x += w + gap;
            }
        });
