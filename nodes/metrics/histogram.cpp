// Histogram: per-channel counts of an image's values in equal bins (cv::calcHist), as JSON and as
// a plot.
#include "common/image_mat.hpp"
#include "image/sample_depth.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <vector>

namespace {

void check_range(ff::Node& node) { ff::nodes::check_order(node, "low", "high", false); }

// Counts of one channel in `bins` equal bins over [low, high], both ends included. Integer
// samples are counted as they are (the bins' edges on whole sample values, [low, high] being
// the samples low x full .. high x full), floats with `high` itself in the last bin.
std::vector<double> counts(const cv::Mat& samples, int bins, double low, double high) {
    const double full = ff::nodes::full_scale(samples.depth());
    const bool whole = samples.depth() != CV_32F;
    const float range[] = {float(low * full), float(whole ? high * full + 1.0 : high)};
    const float* ranges[] = {range};
    const int channel = 0;
    cv::Mat hist;
    cv::calcHist(&samples, 1, &channel, cv::Mat(), hist, 1, &bins, ranges, true, false);
    std::vector<double> out(hist.begin<float>(), hist.end<float>());
    if (!whole) out.back() += cv::countNonZero(samples == high);
    return out;
}

// Bars of each channel's counts, scaled to the tallest bin, in the channel's colour on black
// (gray: white); where channels overlap their colours add.
cv::Mat plot(const std::vector<std::vector<double>>& channels, cv::Size size) {
    cv::Mat out(size, CV_32FC3, cv::Scalar::all(0.0));
    double tallest = 1.0;
    for (const auto& c : channels) tallest = std::max(tallest, *std::max_element(c.begin(), c.end()));
    for (size_t ch = 0; ch < channels.size(); ++ch) {
        const std::vector<double>& c = channels[ch];
        const cv::Vec3f colour = channels.size() == 1 ? cv::Vec3f(1, 1, 1) : cv::Vec3f(ch == 0, ch == 1, ch == 2);
        for (int x = 0; x < size.width; ++x) {
            const size_t bin = size_t(x) * c.size() / size_t(size.width);
            const int bar = int(std::lround(c[bin] / tallest * size.height));
            for (int y = size.height - bar; y < size.height; ++y) out.at<cv::Vec3f>(y, x) += colour;
        }
    }
    return out;
}

} // namespace

FF_NODE(histogram) =
    ff::op("Histogram", "metrics")
        .doc("Counts each colour channel's values in `bins` equal bins over [low, high] "
             "(cv::calcHist), as JSON {\"bins\", \"low\", \"high\", \"computed_on\", \"pixels\", "
             "\"channels\": {\"red\": [counts], ...}} (gray: \"gray\"; alpha is not counted; "
             "values outside [low, high] are not counted) and as a plot: bars per channel in its "
             "colour, scaled to the tallest bin. 8- and 16-bit images are counted on their "
             "samples, so 256 bins of an 8-bit image count each value 0-255 exactly.")
        .input("image", ff::kImage, "image to count")
        .output("json", ff::kJson, "the counts")
        .output("image", ff::kImage, "the plot")
        .param_int("bins", 256, 1, 65536, "number of bins")
        .param_float("low", 0.0, -1e6, 1e6, "lower end of the first bin")
        .param_float("high", 1.0, -1e6, 1e6, "upper end of the last bin (included)")
        .param_int("plot_width", 512, 16, 8192, "plot width in pixels")
        .param_int("plot_height", 200, 16, 8192, "plot height in pixels")
        .validate(check_range)
        .execute([](ff::Node& node) {
            check_range(node);
            const ff::ImageView view = node.image("image");
            const int depth = ff::nodes::source_depth(view.bits);
            const cv::Mat colour = ff::nodes::split_alpha(ff::nodes::native_mat(view, "image")).colour;
            std::vector<cv::Mat> planes;
            cv::split(ff::nodes::to_sample_depth(colour, depth), planes);
            const int bins = int(node.integer("bins"));
            const double low = node.number("low"), high = node.number("high");
            const std::vector<std::string> names = ff::nodes::channel_names(colour.channels());
            std::vector<std::vector<double>> all;
            nlohmann::json channels = nlohmann::json::object();
            for (size_t i = 0; i < planes.size(); ++i) {
                all.push_back(counts(planes[i], bins, low, high));
                channels[names[i]] = all.back();
            }
            const nlohmann::json json = {{"bins", bins},
                                         {"low", low},
                                         {"high", high},
                                         {"computed_on", ff::nodes::depth_name(depth) + " values"},
                                         {"pixels", colour.total()},
                                         {"channels", channels}};
            node.output_text("json", json.dump());
            ff::nodes::output_native(node, "image", plot(all, cv::Size(int(node.integer("plot_width")),
                                                                        int(node.integer("plot_height")))));
        });
