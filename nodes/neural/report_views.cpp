#include "report_views.hpp"

#include "block_windows.hpp"
#include "metrics/error_map.hpp"
#include "png_size.hpp"
#include "psnr.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <exception>
#include <cmath>
#include <numeric>
#include <stdexcept>

namespace ff::neural {

namespace {

constexpr double kScaleQuantile = 0.995;
constexpr int kCropSide = 160;
constexpr double kWinQuantile = 0.99;

double region_mse(const cv::Mat& a, const cv::Mat& b, const cv::Rect& r) {
    return cv::norm(a(r), b(r), cv::NORM_L2SQR) / (double(r.area()) * 3.0 * 255.0 * 255.0);
}

} // namespace

float shared_error_scale(const ReportImages& images) {
    return ff::metrics::error_quantile({images.bilinear_error, images.learned_error}, kScaleQuantile);
}

int crop_side(cv::Size image) {
    // Room for 2x2 regions at least, so a small image can show where each image wins.
    return std::max(1, std::min(kCropSide, std::min(image.width, image.height) / 2));
}

std::vector<ReportCrop> regions_where_each_wins(const ReportImages& images, int side, int per_side,
                                                const BlockErrors& win_blocks) {
    const cv::Size size = images.truth.size();
    const int columns = std::max(1, size.width / side), rows = std::max(1, size.height / side);
    std::vector<cv::Rect> tiles(size_t(columns) * size_t(rows));
    // The tiles are centred in the image: the leftover margin is split between both sides.
    const int x0 = std::max(0, (size.width - columns * side) / 2);
    const int y0 = std::max(0, (size.height - rows * side) / 2);
    std::vector<double> gains(tiles.size()); // learned's: positive where it is closer
    cv::parallel_for_(cv::Range(0, int(tiles.size())), [&](const cv::Range& range) {
        for (int i = range.start; i < range.end; ++i) {
            cv::Rect& r = tiles[size_t(i)];
            r = cv::Rect(x0 + (i % columns) * side, y0 + (i / columns) * side, side, side) &
                cv::Rect(cv::Point(0, 0), size);
            gains[size_t(i)] = region_mse(images.truth, images.bilinear, r) - region_mse(images.truth, images.learned, r);
        }
    });
    std::vector<size_t> order(tiles.size());
    std::iota(order.begin(), order.end(), size_t(0));
    std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return gains[a] > gains[b]; });
    std::vector<cv::Rect> chosen;
    for (size_t i = 0; i < order.size() && int(chosen.size()) < per_side && gains[order[i]] > 0; ++i)
        chosen.push_back(tiles[order[i]]);
    const size_t learned_wins = chosen.size();

    // Bilinear's regions from the blocks' squared errors: the windows of whole blocks where its
    // summed advantage is largest, sized to the cluster of blocks it wins in (up to `side`), so a
    // win smaller than a tile still shows. Their pixels' squared errors are exactly the blocks'
    // sums, so bilinear is closer in each window as a whole.
    const int block = std::min(kWinBlock, side);
    const BlockErrors errors = block == kWinBlock ? win_blocks : block_squared_errors(images, block);
    if (!errors.bilinear.empty())
        for (const cv::Rect& w : best_block_windows(errors.learned - errors.bilinear, side / block, per_side))
            chosen.push_back(cv::Rect(w.x * block, w.y * block, w.width * block, w.height * block));

    std::vector<const cv::Mat*> shown = {&images.truth, &images.bilinear, &images.learned};
    std::vector<std::string> labels = {"Ground truth", "Bilinear", "Learned"};
    for (const auto& [label, image] : images.others) {
        shown.push_back(&image);
        labels.push_back(label);
    }
    std::vector<ReportCrop> crops;
    std::vector<std::function<PngBytes()>> encodes;
    for (size_t k = 0; k < chosen.size(); ++k) {
        const cv::Rect& r = chosen[k];
        ReportCrop crop;
        crop.x = r.x, crop.y = r.y, crop.width = r.width, crop.height = r.height;
        crop.learned_wins = k < learned_wins;
        crop.bilinear_psnr = psnr_from_mse(region_mse(images.truth, images.bilinear, r));
        crop.learned_psnr = psnr_from_mse(region_mse(images.truth, images.learned, r));
        for (size_t j = 0; j < shown.size(); ++j) {
            std::optional<double> psnr;
            if (j == 1) psnr = crop.bilinear_psnr;
            else if (j == 2) psnr = crop.learned_psnr;
            else if (j > 2) psnr = psnr_from_mse(region_mse(images.truth, *shown[j], r));
            crop.panels.push_back({labels[j], {}, psnr});
            encodes.push_back([image = shown[j], rect = r] { return rgb8_png((*image)(rect)); });
        }
        crops.push_back(std::move(crop));
    }
    std::vector<PngBytes> pngs = encode_in_parallel(encodes);
    size_t next = 0;
    for (ReportCrop& crop : crops)
        for (ReportCropPanel& panel : crop.panels) panel.png = std::move(pngs[next++]);
    return crops;
}

cv::Size view_size(cv::Size image, int max_side) {
    const int longer = std::max(image.width, image.height);
    if (longer <= max_side) return image;
    const double f = double(max_side) / longer;
    return {std::max(1, int(std::lround(image.width * f))), std::max(1, int(std::lround(image.height * f)))};
}

cv::Mat view_of(const cv::Mat& image, int max_side) {
    const cv::Size size = view_size(image.size(), max_side);
    if (size == image.size()) return image;
    cv::Mat out;
    cv::resize(image, out, size, 0, 0, cv::INTER_AREA);
    return out;
}

PngBytes error_view_png(const cv::Mat& error, int max_side, float scale) {
    return rgb8_png(ff::metrics::colour_error(view_of(error, max_side), scale));
}

cv::Vec3b win_colour(float g) {
    g = std::clamp(g, -1.f, 1.f);
    const auto fade = [](float v) { return cv::saturate_cast<uchar>(255.0 * (1.0 - v)); };
    // White where they are alike; towards green where learned gains, magenta where it loses.
    return g >= 0 ? cv::Vec3b(fade(g * 0.8f), 255 - uchar(g * 60), fade(g * 0.8f))
                  : cv::Vec3b(255 - uchar(-g * 60), fade(-g * 0.8f), 255 - uchar(-g * 60));
}

namespace {

// The per-pixel gain (bilinear error minus learned error) at `size`, area-averaged, coloured.
cv::Mat win_picture(const ReportImages& images, cv::Size size, float scale) {
    cv::Mat closer = images.bilinear_error - images.learned_error, gain;
    if (size == closer.size()) gain = closer;
    else cv::resize(closer, gain, size, 0, 0, cv::INTER_AREA);
    cv::Mat picture(size, CV_8UC3);
    for (int y = 0; y < size.height; ++y)
        for (int x = 0; x < size.width; ++x)
            picture.at<cv::Vec3b>(y, x) = win_colour(gain.at<float>(y, x) / scale);
    return picture;
}

} // namespace

PngBytes win_map_png(const ReportImages& images, int max_side, float scale) {
    return rgb8_png(win_picture(images, view_size(images.truth.size(), max_side), scale));
}

BlockErrors block_squared_errors(const ReportImages& images, int block) {
    const int columns = images.truth.cols / block, rows = images.truth.rows / block;
    BlockErrors errors{cv::Mat::zeros(rows, columns, CV_64FC1), cv::Mat::zeros(rows, columns, CV_64FC1)};
    // Per block row, in parallel: the squared errors' sums of both images over each block.
    cv::parallel_for_(cv::Range(0, rows), [&](const cv::Range& range) {
        for (int by = range.start; by < range.end; ++by) {
            double* b = errors.bilinear.ptr<double>(by);
            double* l = errors.learned.ptr<double>(by);
            std::vector<int64_t> b_row(size_t(columns), 0), l_row(size_t(columns), 0);
            for (int y = by * block; y < (by + 1) * block; ++y) {
                const uchar* t = images.truth.ptr<uchar>(y);
                const uchar* bi = images.bilinear.ptr<uchar>(y);
                const uchar* le = images.learned.ptr<uchar>(y);
                for (int x = 0; x < columns * block * 3; ++x) {
                    const int db = int(bi[x]) - t[x], dl = int(le[x]) - t[x];
                    b_row[size_t(x / (3 * block))] += db * db;
                    l_row[size_t(x / (3 * block))] += dl * dl;
                }
            }
            for (int bx = 0; bx < columns; ++bx) b[bx] = double(b_row[size_t(bx)]), l[bx] = double(l_row[size_t(bx)]);
        }
    });
    return errors;
}

std::pair<double, double> block_wins(const BlockErrors& errors) {
    if (errors.bilinear.empty()) return {0.0, 0.0};
    const double blocks = double(errors.bilinear.total());
    return {cv::countNonZero(errors.learned < errors.bilinear) / blocks,
            cv::countNonZero(errors.bilinear < errors.learned) / blocks};
}

float win_scale(const ReportImages& images) {
    const cv::Mat gain = cv::abs(images.bilinear_error - images.learned_error);
    return std::max(ff::metrics::error_quantile({gain}, kWinQuantile), 1.0f / 255.0f);
}

PngBytes index_thumbnail(const ReportImages& images, int max_height) {
    const cv::Size size = images.truth.size();
    // Each half fits in max_height tall and 4 times that wide, aspect kept, sides at least 1: a
    // 100000x1 photo's thumbnail is 288x1 per half, not 7,200,000 pixels wide.
    const int max_width = 4 * max_height;
    int width = std::max(1, int(std::lround(double(size.width) * max_height / size.height))), height = max_height;
    if (width > max_width) {
        width = max_width;
        height = std::max(1, int(std::lround(double(size.height) * max_width / size.width)));
    }
    cv::Mat learned;
    cv::resize(images.learned, learned, cv::Size(width, height), 0, 0, cv::INTER_AREA);
    // Gains on a scale of +-0.05 (12.75 8-bit levels).
    const cv::Mat gain = win_picture(images, cv::Size(width, height), 0.05f);
    cv::Mat picture(height, 2 * width, CV_8UC3);
    learned.copyTo(picture(cv::Rect(0, 0, width, height)));
    gain.copyTo(picture(cv::Rect(width, 0, width, height)));
    return rgb8_png(picture);
}

PngBytes rgb8_png(const cv::Mat& rgb8) { return encode_rgb8_png(rgb8, kPngFastest); }

std::vector<PngBytes> encode_in_parallel(const std::vector<std::function<PngBytes()>>& encodes) {
    std::vector<PngBytes> out(encodes.size());
    std::vector<std::exception_ptr> errors(encodes.size());
    cv::parallel_for_(cv::Range(0, int(encodes.size())), [&](const cv::Range& range) {
        for (int i = range.start; i < range.end; ++i) {
            try {
                out[size_t(i)] = encodes[size_t(i)]();
            } catch (...) { // OpenCV's workers must not throw: rethrown below, on the caller's thread
                errors[size_t(i)] = std::current_exception();
            }
        }
    });
    for (const std::exception_ptr& e : errors)
        if (e) std::rethrow_exception(e);
    return out;
}

} // namespace ff::neural
