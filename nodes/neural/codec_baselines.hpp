// The same bytes spent on the codecs people already use: the ground truth as JPEG and as WebP at
// the highest quality whose file fits in a byte budget (the model file's size), found by binary
// search over the quality, decoded back to be scored like any other image; and each codec's
// rate-distortion curve (PSNR against bytes) over its quality range, for the report's plot.
//
// Encoded with OpenCV's imencode: JPEG through libjpeg(-turbo) with optimised Huffman tables
// (IMWRITE_JPEG_OPTIMIZE, the smallest file at a quality; 4:2:0 chroma, OpenCV's default), WebP
// lossy through libwebp at its default method. Gray images are encoded as one channel.
#pragma once

#include "metrics/image_metrics.hpp"

#include <opencv2/core.hpp>

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace ff::neural {

enum class Codec { jpeg, webp };

// "JPEG", "WebP"; and the file extension, ".jpg", ".webp".
std::string codec_name(Codec codec);
std::string codec_extension(Codec codec);

// One encode: its quality setting, file size and PSNR (dB, 8-bit values) against the image.
struct CodecPoint {
    int quality = 0;
    size_t bytes = 0;
    double psnr = 0;
};

struct CodecBaseline {
    Codec codec = Codec::jpeg;
    // Why there is no baseline ("WebP holds at most 16383 pixels a side", "quality 1 already
    // takes ..."); empty when there is one.
    std::string unavailable;
    CodecPoint chosen;                 // the highest quality within the budget
    std::vector<unsigned char> file;   // its encoded bytes (file.size() == chosen.bytes)
    cv::Mat decoded;                   // decoded back, 8-bit RGB like the input
    std::vector<CodecPoint> curve;     // every quality encoded, by quality (the search's too)
};

// The qualities the search tries: 1..100 for both codecs (OpenCV's WebP is lossless above 100).
inline constexpr int kLowestQuality = 1;
inline constexpr int kHighestQuality = 100;

// `rgb8`: 8-bit RGB; `gray`: encode its first channel alone (a gray source). `check` is called
// between encodes (it may throw to stop). With `curve` false only the search's encodes are made.
CodecBaseline codec_at_bytes(const cv::Mat& rgb8, bool gray, Codec codec, size_t budget_bytes,
                             bool curve, const ff::metrics::WorkCheck& check = {});

} // namespace ff::neural
