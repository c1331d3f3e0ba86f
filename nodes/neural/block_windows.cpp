#include "block_windows.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace ff::neural {

namespace {

// The sum of a summed-area table (cv::integral's, CV_64F) over a rectangle.
double area_sum(const cv::Mat& table, const cv::Rect& r) {
    return table.at<double>(r.y + r.height, r.x + r.width) - table.at<double>(r.y, r.x + r.width) -
           table.at<double>(r.y + r.height, r.x) + table.at<double>(r.y, r.x);
}

} // namespace

std::vector<cv::Rect> best_block_windows(const cv::Mat& score, int max_side, int count) {
    if (score.type() != CV_64FC1) throw std::invalid_argument("best_block_windows: the score grid must be CV_64FC1");
    std::vector<cv::Rect> chosen;
    const int largest = std::min({max_side, score.cols, score.rows});
    if (largest <= 0 || count <= 0) return chosen;

    // Summed-area tables of the scores, and of the positive scores with their block centres'
    // coordinates as weights, for each window's centroid in constant time.
    cv::Mat positive = cv::max(score, 0.0), xs(score.size(), CV_64FC1), ys(score.size(), CV_64FC1);
    for (int y = 0; y < score.rows; ++y)
        for (int x = 0; x < score.cols; ++x) {
            xs.at<double>(y, x) = positive.at<double>(y, x) * (x + 0.5);
            ys.at<double>(y, x) = positive.at<double>(y, x) * (y + 0.5);
        }
    cv::Mat sums, positive_sums, x_sums, y_sums;
    cv::integral(score, sums, CV_64F);
    cv::integral(positive, positive_sums, CV_64F);
    cv::integral(xs, x_sums, CV_64F);
    cv::integral(ys, y_sums, CV_64F);
    // How far a window's centre is from the centroid of its positive scores (squared, blocks).
    auto off_centre = [&](const cv::Rect& r) {
        const double weight = area_sum(positive_sums, r);
        const double cx = area_sum(x_sums, r) / weight, cy = area_sum(y_sums, r) / weight;
        const double dx = r.x + r.width / 2.0 - cx, dy = r.y + r.height / 2.0 - cy;
        return dx * dx + dy * dy;
    };

    while (int(chosen.size()) < count) {
        cv::Rect best;
        double best_sum = 0; // only windows summing to more than 0 qualify
        // Larger sides first: a tie with a smaller window keeps the larger one.
        for (int side = largest; side >= 1; --side)
            for (int y = 0; y + side <= score.rows; ++y)
                for (int x = 0; x + side <= score.cols; ++x) {
                    const cv::Rect window(x, y, side, side);
                    const double sum = area_sum(sums, window);
                    if (sum < best_sum || (sum == best_sum && (best.empty() || side != best.width))) continue;
                    if (std::any_of(chosen.begin(), chosen.end(),
                                    [&](const cv::Rect& c) { return !(c & window).empty(); }))
                        continue;
                    if (sum == best_sum && off_centre(window) >= off_centre(best)) continue;
                    best = window;
                    best_sum = sum;
                }
        if (best.empty()) break;
        chosen.push_back(best);
    }
    return chosen;
}

} // namespace ff::neural
