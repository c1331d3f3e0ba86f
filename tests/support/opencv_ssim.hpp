// SSIM computed independently of fieldflow's metrics, with OpenCV's Gaussian filter: the 11x11
// window (sigma 1.5) at every position that lies inside the image (the interior of the filtered
// maps: Wang et al.'s "valid" windows), K1 0.01, K2 0.03, per channel, averaged. For tests that
// recompute a report's SSIM from the files it wrote.
#pragma once

#include <opencv2/core.hpp>
#include <opencv2/imgproc.hpp>

#include <vector>

namespace ff::test {

// `a`, `b`: 8-bit images of one size and channel count (at least 11 pixels a side).
inline double opencv_ssim(const cv::Mat& a, const cv::Mat& b) {
    const double c1 = 6.5025, c2 = 58.5225; // (0.01 * 255)^2, (0.03 * 255)^2
    auto blur = [](const cv::Mat& m) {
        cv::Mat out;
        cv::GaussianBlur(m, out, cv::Size(11, 11), 1.5, 1.5);
        return out(cv::Rect(5, 5, m.cols - 10, m.rows - 10)).clone();
    };
    std::vector<cv::Mat> as, bs;
    cv::split(a, as);
    cv::split(b, bs);
    double sum = 0;
    for (size_t c = 0; c < as.size(); ++c) { // one channel at a time: a Scalar adds to channel 0 only
        cv::Mat x, y;
        as[c].convertTo(x, CV_64F);
        bs[c].convertTo(y, CV_64F);
        const cv::Mat mx = blur(x), my = blur(y);
        const cv::Mat sxx = blur(x.mul(x)) - mx.mul(mx), syy = blur(y.mul(y)) - my.mul(my),
                      sxy = blur(x.mul(y)) - mx.mul(my);
        const cv::Mat num = (2 * mx.mul(my) + c1).mul(2 * sxy + c2);
        const cv::Mat den = (mx.mul(mx) + my.mul(my) + c1).mul(sxx + syy + c2);
        cv::Mat map;
        cv::divide(num, den, map);
        sum += cv::mean(map)[0];
    }
    return sum / double(as.size());
}

} // namespace ff::test
