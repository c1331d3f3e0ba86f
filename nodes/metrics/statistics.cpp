// Statistics: per-channel minimum, maximum, mean and standard deviation of an image, as JSON.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>
#include <opencv2/core.hpp>

#include <cstdio>
#include <vector>

FF_NODE(statistics) =
    ff::op("Statistics", "metrics")
        .doc("Per-channel statistics of an image on the [0, 1] scale (cv::minMaxLoc, "
             "cv::meanStdDev): {\"width\", \"height\", \"bits\", \"pixels\", \"channels\": "
             "{\"red\": {\"min\", \"max\", \"mean\", \"stddev\"}, ...}} as JSON (gray: \"gray\"; "
             "RGBA adds \"alpha\"). With `mask` connected, only the pixels where the mask is above "
             "0.5 count (\"pixels\" says how many). Pair it with WriteJson to save the numbers.")
        .input("image", ff::kImage, "image to measure")
        .optional_input("mask", ff::kImage, "pixels to measure: where this is above 0.5 (the image's size)")
        .output("json", ff::kJson, "the statistics")
        .execute([](ff::Node& node) {
            const ff::ImageView view = node.image("image");
            const cv::Mat in = ff::nodes::native_mat(view, "image");
            cv::Mat mask;
            if (const auto mask_view = node.optional_image("mask")) {
                const cv::Mat weights = ff::nodes::mask_weights(*mask_view, "mask");
                if (weights.size() != in.size())
                    throw ff::Error("input 'mask' is " + ff::nodes::size_text(weights.size()) + " but 'image' is " +
                                    ff::nodes::size_text(in.size()) + ": they must be the same size");
                mask = weights > 0.5;
            }
            const int pixels = mask.empty() ? int(in.total()) : cv::countNonZero(mask);
            if (pixels == 0) throw ff::Error("the mask selects no pixel (none is above 0.5)");
            std::vector<cv::Mat> planes;
            cv::split(in, planes);
            const std::vector<std::string> names = ff::nodes::channel_names(in.channels());
            nlohmann::json channels = nlohmann::json::object();
            std::string line;
            for (size_t i = 0; i < planes.size(); ++i) {
                double low = 0, high = 0;
                cv::minMaxLoc(planes[i], &low, &high, nullptr, nullptr, mask);
                cv::Scalar mean, stddev;
                cv::meanStdDev(planes[i], mean, stddev, mask);
                channels[names[i]] = {{"min", low}, {"max", high}, {"mean", mean[0]}, {"stddev", stddev[0]}};
                char text[96];
                std::snprintf(text, sizeof text, "%s%s mean %.4f sd %.4f", line.empty() ? "" : ", ", names[i].c_str(), mean[0], stddev[0]);
                line += text;
            }
            const nlohmann::json json = {{"width", in.cols}, {"height", in.rows}, {"bits", view.bits},
                                         {"pixels", pixels},  {"channels", channels}};
            node.output_text("json", json.dump());
            node.log(line);
        });
