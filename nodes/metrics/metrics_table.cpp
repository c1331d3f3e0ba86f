// MetricsTable: several images scored against one reference, as one table (Markdown, CSV and
// JSON), and a strip of 1:1 crops of one region labelled with each image's scores, so the
// differences are seen at full resolution and read beside their numbers.
#include "common/atomic_write.hpp"
#include "common/image_mat.hpp"
#include "common/label_band.hpp"
#include "metrics/image_metrics.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <array>
#include <cstdio>
#include <vector>

namespace {

constexpr std::array<const char*, 6> kPorts = {"image1", "image2", "image3", "image4", "image5", "image6"};
constexpr int kBand = 24; // label band height of the strip, pixels
constexpr int kGap = 4;

std::string fixed(double value, int digits) {
    char buffer[64];
    std::snprintf(buffer, sizeof buffer, "%.*f", digits, value);
    return buffer;
}

struct Row {
    std::string label;
    ff::metrics::ImageMetrics m;
};

std::string psnr_text(const ff::metrics::ImageMetrics& m, int digits) {
    return m.identical ? std::string("inf") : fixed(m.psnr, digits);
}

} // namespace

FF_NODE(metrics_table) =
    ff::op("MetricsTable", "metrics")
        .doc("Scores up to 6 images (image1 ...) against one reference of the same size (PSNR, "
             "SSIM and MSE on the reference's source depth, as Metrics) and writes them as one "
             "table: Markdown (path), CSV (csv) and JSON (metrics, also the 'json' output). Outputs "
             "'strip': the reference and each image cut to one region (crop_x, crop_y, "
             "crop_width x crop_height; at most the image's size, moved inside it where it reaches "
             "past an edge) side by side at 1:1, each labelled with its scores.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .input("reference", ff::kImage, "the image the others are scored against")
        .optional_inputs(kPorts, ff::kImage, "image")
        .output("json", ff::kJson, "the table as JSON")
        .output("strip", ff::kImage, "1:1 crops of the reference and each image, labelled with their scores")
        .param_string_list("labels", "[]", "one label per connected image")
        .param_string("title", std::string("Scores"), "the Markdown table's heading")
        .param_string("path", std::string(""), "Markdown file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("csv", std::string(""), "CSV file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_string("metrics", std::string(""), "JSON file to write; empty = none")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_int("crop_x", 0, 0, 1 << 16, "the strip's region: left edge")
        .param_int("crop_y", 0, 0, 1 << 16, "top edge")
        .param_int("crop_width", 256, 1, 1 << 14, "width")
        .param_int("crop_height", 256, 1, 1 << 14, "height")
        .execute([](ff::Node& node) {
            const ff::ImageView reference_view = node.image("reference");
            const cv::Mat reference = ff::nodes::rgb_mat(reference_view, "reference");
            const uint32_t bits = ff::metrics::metrics_bits(reference_view.bits);
            std::vector<cv::Mat> images;
            for (const char* port : kPorts)
                if (auto view = node.optional_image(port)) {
                    cv::Mat image = ff::nodes::rgb_mat(*view, port);
                    if (image.size() != reference.size())
                        throw ff::Error(std::string("input '") + port + "' is " + ff::nodes::size_text(image.size()) +
                                        ", the reference " + ff::nodes::size_text(reference.size()) +
                                        ": scores need images of one size");
                    images.push_back(image);
                }
            if (images.empty()) throw ff::Error("no image is connected (image1 ... image6): nothing to score");
            const std::vector<std::string> labels = node.strings("labels");
            if (labels.size() != images.size())
                throw ff::ParamError("labels", "got " + std::to_string(labels.size()) + " labels for " +
                                                   std::to_string(images.size()) + " connected images");
            std::vector<Row> rows;
            for (size_t i = 0; i < images.size(); ++i) {
                rows.push_back({labels[i], ff::metrics::compare(reference, images[i], bits, [&](size_t, size_t) {
                                    node.throw_if_cancelled();
                                })});
                node.progress(i + 1, images.size() + 1, "scores");
            }

            const std::string on = ff::nodes::depth_text(bits) + " values";
            std::string md = "## " + node.string("title") + "\n\nImage " + ff::nodes::size_text(reference.size()) +
                             "; PSNR, SSIM and MSE on " + on + " against the reference.\n\n"
                             "| Image | PSNR (dB) | SSIM | MSE |\n|---|---:|---:|---:|\n";
            std::string csv = "image,psnr_db,ssim,mse\n";
            nlohmann::json table = nlohmann::json::array();
            for (const Row& r : rows) {
                md += "| " + r.label + " | " + psnr_text(r.m, 2) + " | " + fixed(r.m.ssim, 4) + " | " +
                      fixed(r.m.mse, 6) + " |\n";
                const bool quote = r.label.find_first_of(",\"") != std::string::npos;
                std::string label = r.label;
                if (quote) {
                    label.clear();
                    for (char c : r.label) label += c == '"' ? std::string("\"\"") : std::string(1, c);
                    label = "\"" + label + "\"";
                }
                csv += label + "," + psnr_text(r.m, 4) + "," + fixed(r.m.ssim, 6) + "," + fixed(r.m.mse, 8) + "\n";
                table.push_back({{"image", r.label},
                                 {"psnr", r.m.identical ? nlohmann::json() : nlohmann::json(r.m.psnr)},
                                 {"ssim", r.m.ssim},
                                 {"mse", r.m.mse}});
            }
            const std::string json_text = nlohmann::json{{"width", reference.cols},
                                                         {"height", reference.rows},
                                                         {"computed_on", on},
                                                         {"images", table}}
                                              .dump(2) +
                                          "\n";

            // The strip: the region at most the image's size, moved inside it where it reaches past
            // an edge (a graph's region for a large photo still shows something of a small one).
            const int region_w = std::min(int(node.integer("crop_width")), reference.cols);
            const int region_h = std::min(int(node.integer("crop_height")), reference.rows);
            const cv::Rect region(std::min(int(node.integer("crop_x")), reference.cols - region_w),
                                  std::min(int(node.integer("crop_y")), reference.rows - region_h), region_w, region_h);
            const int n = int(images.size()) + 1;
            cv::Mat strip = ff::nodes::output_mat(node, "strip", cv::Size(n * region.width + (n - 1) * kGap,
                                                                          region.height + 2 * kBand));
            strip.setTo(cv::Scalar::all(0));
            for (int i = 0; i < n; ++i) {
                const cv::Mat& image = i == 0 ? reference : images[size_t(i - 1)];
                const int x = i * (region.width + kGap);
                image(region).copyTo(strip(cv::Rect(x, 2 * kBand, region.width, region.height)));
                const std::string top = i == 0 ? "reference" : rows[size_t(i - 1)].label;
                const std::string bottom =
                    i == 0 ? "region " + std::to_string(region.x) + "," + std::to_string(region.y)
                           : psnr_text(rows[size_t(i - 1)].m, 2) + " dB, SSIM " + fixed(rows[size_t(i - 1)].m.ssim, 3);
                for (int line = 0; line < 2; ++line) {
                    cv::Mat band = ff::nodes::label_band(line == 0 ? top : bottom, region.width, kBand), rgb;
                    cv::cvtColor(band, band, cv::COLOR_BGR2RGB);
                    band.convertTo(rgb, CV_32F, 1.0 / 255.0);
                    rgb.copyTo(strip(cv::Rect(x, line * kBand, region.width, kBand)));
                }
            }

            std::vector<ff::nodes::FileBytes> files;
            if (const std::string path = node.string("path"); !path.empty()) files.push_back({path, md});
            if (const std::string path = node.string("csv"); !path.empty()) files.push_back({path, csv});
            if (const std::string path = node.string("metrics"); !path.empty()) files.push_back({path, json_text});
            ff::nodes::atomic_write_files(files);
            node.log("\n" + md);
            node.output_text("json", json_text);
        });
