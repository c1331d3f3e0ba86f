#include "codec_baselines.hpp"

#include <opencv2/core/utility.hpp>
#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <exception>
#include <map>
#include <stdexcept>

namespace ff::neural {

namespace {

// The largest side each format can hold (libjpeg: 65500, libwebp: 16383).
int max_side(Codec codec) { return codec == Codec::jpeg ? 65500 : 16383; }

// The curve's qualities: spread over the range, denser where the codecs change fastest. Fewer on
// large images, where each encode takes seconds.
std::vector<int> curve_qualities(cv::Size size) {
    if (double(size.area()) > 4e6) return {5, 20, 50, 80, 95};
    return {2, 5, 10, 15, 20, 30, 40, 50, 60, 70, 80, 90, 95, 100};
}

struct Encoded {
    CodecPoint point;
    std::vector<unsigned char> file;
    cv::Mat decoded;
};

Encoded encode(const cv::Mat& rgb8, const cv::Mat& source, Codec codec, int quality) {
    Encoded e;
    e.point.quality = quality;
    std::vector<int> params;
    if (codec == Codec::jpeg) params = {cv::IMWRITE_JPEG_QUALITY, quality, cv::IMWRITE_JPEG_OPTIMIZE, 1};
    else params = {cv::IMWRITE_WEBP_QUALITY, quality};
    if (!cv::imencode(codec_extension(codec), source, e.file, params))
        throw std::runtime_error("OpenCV cannot encode " + codec_name(codec));
    e.point.bytes = e.file.size();
    cv::Mat back = cv::imdecode(e.file, cv::IMREAD_COLOR);
    if (back.empty() || back.size() != rgb8.size())
        throw std::runtime_error("OpenCV cannot decode the " + codec_name(codec) + " it encoded");
    cv::cvtColor(back, e.decoded, cv::COLOR_BGR2RGB);
    e.point.psnr = cv::PSNR(rgb8, e.decoded);
    return e;
}

} // namespace

std::string codec_name(Codec codec) { return codec == Codec::jpeg ? "JPEG" : "WebP"; }
std::string codec_extension(Codec codec) { return codec == Codec::jpeg ? ".jpg" : ".webp"; }

CodecBaseline codec_at_bytes(const cv::Mat& rgb8, bool gray, Codec codec, size_t budget_bytes,
                             bool curve, const ff::metrics::WorkCheck& check) {
    CV_Assert(rgb8.type() == CV_8UC3);
    CodecBaseline out;
    out.codec = codec;
    if (std::max(rgb8.cols, rgb8.rows) > max_side(codec)) {
        out.unavailable = codec_name(codec) + " holds at most " + std::to_string(max_side(codec)) +
                          " pixels a side";
        return out;
    }
    auto tick = [&](size_t done, size_t total) {
        if (check) check(done, total);
    };
    cv::Mat source;
    if (gray) cv::extractChannel(rgb8, source, 0);
    else cv::cvtColor(rgb8, source, cv::COLOR_RGB2BGR);

    // Every encode made, by quality: the curve's and the search's.
    std::map<int, Encoded> made;
    if (curve) {
        const std::vector<int> qualities = curve_qualities(rgb8.size());
        // In batches of one encode per thread, with a check between batches.
        const size_t batch = size_t(std::max(1, cv::getNumThreads()));
        std::vector<Encoded> results(qualities.size());
        for (size_t first = 0; first < qualities.size(); first += batch) {
            tick(first, qualities.size());
            const size_t last = std::min(qualities.size(), first + batch);
            std::vector<std::exception_ptr> errors(last - first);
            cv::parallel_for_(cv::Range(int(first), int(last)), [&](const cv::Range& range) {
                for (int i = range.start; i < range.end; ++i) {
                    try {
                        results[size_t(i)] = encode(rgb8, source, codec, qualities[size_t(i)]);
                    } catch (...) { // OpenCV's workers must not throw: rethrown below
                        errors[size_t(i) - first] = std::current_exception();
                    }
                }
            });
            for (const std::exception_ptr& e : errors)
                if (e) std::rethrow_exception(e);
        }
        for (Encoded& e : results) made[e.point.quality] = std::move(e);
    }
    auto at = [&](int quality) -> const Encoded& {
        auto it = made.find(quality);
        if (it == made.end()) {
            tick(0, 1);
            it = made.emplace(quality, encode(rgb8, source, codec, quality)).first;
        }
        return it->second;
    };
    // The highest quality whose file fits, by bisection between the known bounds (the file grows
    // with the quality; where it does not quite, the largest fitting quality probed wins).
    int fits = 0, too_big = kHighestQuality + 1;
    for (const auto& [quality, e] : made) {
        if (e.point.bytes <= budget_bytes) fits = std::max(fits, quality);
        else too_big = std::min(too_big, quality);
    }
    if (fits == 0 && at(kLowestQuality).point.bytes <= budget_bytes) fits = kLowestQuality;
    if (fits == 0) {
        out.unavailable = "at quality 1 it takes " + std::to_string(at(kLowestQuality).point.bytes) +
                          " bytes, more than the " + std::to_string(budget_bytes) + " of the budget";
    } else {
        too_big = std::max(too_big, fits + 1);
        while (too_big - fits > 1) {
            const int middle = fits + (too_big - fits) / 2;
            if (at(middle).point.bytes <= budget_bytes) fits = middle;
            else too_big = middle;
        }
        const Encoded& chosen = made.at(fits);
        out.chosen = chosen.point;
        out.file = chosen.file;
        out.decoded = chosen.decoded;
    }
    for (const auto& [quality, e] : made) out.curve.push_back(e.point);
    return out;
}

} // namespace ff::neural
