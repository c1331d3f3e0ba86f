// WriteImage: float RGB -> an image file, atomically; passes the image on so graphs can chain.
#include "common/bands.hpp"
#include "common/image_mat.hpp"
#include "io/encoded_write.hpp"
#include "io/image_formats.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using ff::nodes::ImageFormat;
using ff::nodes::SampleFormat;

const ImageFormat& checked_format(const std::string& path, const std::string& bits) {
    const ImageFormat* format = ff::nodes::image_format_for(path);
    if (!format)
        throw ff::ParamError("path", "cannot tell the image format of '" + path +
                                         "' from its extension; use one of: " +
                                         ff::nodes::supported_extensions());
    if (bits == "16" && format->samples == SampleFormat::integer && !format->allows_16_bits)
        throw ff::ParamError("bits", std::string("the ") + (format->extension + 1) +
                                         " format stores 8 bits per sample; use png, tif or ppm for 16");
    return *format;
}

// NaN and infinite values in a band, replaced: only EXR holds them, and every other encoder would
// turn them into something arbitrary (8/16-bit conversion writes +inf as 0, black, next to large
// finite values written as white), so they become the nearest value the format can hold.
struct NonFinite {
    size_t nan = 0, inf = 0;
};

void replace_non_finite(cv::Mat& band, NonFinite& count) {
    CV_Assert(band.isContinuous() && band.depth() == CV_32F);
    float* v = band.ptr<float>();
    for (size_t i = 0, n = band.total() * size_t(band.channels()); i < n; ++i) {
        if (std::isnan(v[i])) {
            v[i] = 0.0f;
            ++count.nan;
        } else if (std::isinf(v[i])) {
            v[i] = v[i] > 0 ? 1.0f : 0.0f;
            ++count.inf;
        }
    }
}

// One warning for the whole image.
void warn_non_finite(ff::Node& node, const NonFinite& count, const ImageFormat& format) {
    if (count.nan + count.inf == 0) return;
    node.warn("image has " + std::to_string(count.nan + count.inf) + " non-finite values (" +
              std::to_string(count.nan) + " NaN, " + std::to_string(count.inf) + " infinite) that a " +
              (format.extension + 1) +
              " file cannot hold: written as 0 (NaN, -inf) and full intensity (+inf); write .exr "
              "to keep them");
}

// The integer depth to store (8 or 16), or 32 for the float formats. `source` follows the image's
// source; what the format cannot hold is converted, and `warning` says so.
struct StoredBits {
    uint32_t bits = 8;
    std::string warning; // "" when nothing was converted
};

StoredBits stored_bits(const ImageFormat& format, const std::string& bits, uint32_t source_bits) {
    if (format.samples == SampleFormat::floating) return {32, ""}; // EXR and HDR keep floats
    if (bits != "source") return {uint32_t(std::stoul(bits)), ""};
    const uint32_t wanted = source_bits == 0 ? 8 : source_bits;
    const uint32_t widest = format.allows_16_bits ? 16 : 8;
    if (wanted <= widest) return {wanted, ""};
    return {widest, "the image came from a " + ff::nodes::depth_text(source_bits) + " file; " +
                        (format.extension + 1) + " stores at most " + std::to_string(widest) +
                        " bits per sample, so it is saved at " + std::to_string(widest) +
                        (format.allows_16_bits ? " (use .exr to keep floats)" : " (use .png or .tif for 16 bits)")};
}

// How the image's channels become the format's, in OpenCV's channel order: a cv::cvtColor code,
// or -1 to keep them as they are (gray). Every conversion a format forces is one warning.
int channel_conversion(const ff::Node& node, int channels, const ImageFormat& format) {
    switch (channels) {
    case 1:
        if (format.holds_gray) return -1;
        node.warn(std::string(format.extension + 1) + " holds no gray images: saved as RGB");
        return cv::COLOR_GRAY2BGR;
    case 4:
        if (format.holds_alpha) return cv::COLOR_RGBA2BGRA;
        node.warn(std::string(format.extension + 1) +
                  " holds no alpha channel: it is dropped (use .png, .tif, .webp or .exr to keep it)");
        return cv::COLOR_RGBA2BGR;
    default:
        return cv::COLOR_RGB2BGR;
    }
}

// The samples the encoder gets: the image with the format's channels in OpenCV's order, non-finite
// values replaced where the format cannot hold them, at the stored depth. Made band by band (a
// cancel is answered between bands), into a Mat of its own that the encoder may keep using after
// the node has returned (write_encoded).
cv::Mat encoder_samples(ff::Node& node, const cv::Mat& image, const ImageFormat& format, uint32_t bits) {
    const int conversion = channel_conversion(node, image.channels(), format);
    const bool to_three = conversion == cv::COLOR_GRAY2BGR || conversion == cv::COLOR_RGBA2BGR;
    const int channels = to_three ? 3 : image.channels();
    const bool keeps_non_finite = std::strcmp(format.extension, ".exr") == 0;
    const int depth = bits == 8 ? CV_8U : bits == 16 ? CV_16U : CV_32F;
    cv::Mat samples(image.rows, image.cols, CV_MAKETYPE(depth, channels));
    NonFinite non_finite;
    cv::Mat band; // float, the format's channels; reused
    ff::nodes::for_each_band(
        node, image.rows, size_t(image.cols) * size_t(std::max(channels, image.channels())) * sizeof(float),
        [&](int first, int end) {
            const cv::Mat in = image.rowRange(first, end);
            if (conversion < 0) in.copyTo(band); // never edit the input
            else cv::cvtColor(in, band, conversion);
            if (!keeps_non_finite) replace_non_finite(band, non_finite);
            ff::nodes::at_depth(band, bits).copyTo(samples.rowRange(first, end));
        },
        [&](int done, int rows) { node.progress(uint64_t(done), uint64_t(rows), "preparing the samples"); });
    warn_non_finite(node, non_finite, format);
    return samples;
}

} // namespace

FF_NODE(write_image) =
    ff::op("WriteImage", "io")
        .doc("Writes an image file; the format follows the extension (png, jpg, ppm, tif, bmp, "
             "webp, exr, hdr). Bits per sample: `source` (the default) keeps the depth of the "
             "file the image came from (16-bit PNG in, 16-bit PNG out), 8 or 16 choose one; EXR "
             "and HDR keep floats. Gray stays one channel and RGBA keeps its alpha where the "
             "format holds them; every conversion is a warning. Values are clamped to [0, 1] and "
             "rounded for 8/16-bit formats; WebP holds at most 16,383 pixels a side. NaN and "
             "infinite values, which only EXR holds, are written as 0 (NaN, -inf) or full "
             "intensity (+inf) elsewhere, with a warning. Parent "
             "folders are created; the file is written under "
             "a temporary name and renamed, so it is never seen half-written, and an interrupt "
             "during the encoding leaves no file. The image is passed through unchanged.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .input("image", ff::kImage, "image to save")
        .output("image", ff::kImage, "the same image, for chaining")
        .param_string("path", std::nullopt, "file to write")
        .param_flags(FF_PARAM_WRITES_FILE)
        .param_enum("bits", "source", "source|8|16",
                    "bits per sample for png, tif and ppm: the source's, 8 or 16")
        .param_int("quality", 95, 1, 100, "JPEG / WebP quality")
        .validate([](ff::Node& node) {
            checked_format(node.string("path"), node.string("bits"));
        })
        .execute([](ff::Node& node) {
            const std::string path = node.string("path");
            const std::string bits = node.string("bits");
            const ImageFormat& format = checked_format(path, bits);
            if (!cv::haveImageWriter(path))
                throw ff::ParamError("path", std::string("this OpenCV build cannot write ") +
                                                 (format.extension + 1) + " files");

            const ff::ImageView in = node.image("image");
            if (format.max_side && std::max(in.width, in.height) > format.max_side)
                throw ff::ParamError("path", "a " + std::to_string(in.width) + "x" + std::to_string(in.height) +
                                                 " image is larger than a " + (format.extension + 1) +
                                                 " file holds (at most " + std::to_string(format.max_side) +
                                                 " pixels a side); write it as .png, .tif or .exr");
            const cv::Mat image = ff::nodes::native_mat(in, "image");
            const StoredBits stored = stored_bits(format, bits, in.bits);
            const cv::Mat samples = encoder_samples(node, image, format, stored.bits);
            if (!stored.warning.empty()) node.warn(stored.warning); // after the samples' warnings

            const int quality = int(node.integer("quality"));
            const std::vector<int> options = {cv::IMWRITE_JPEG_QUALITY, quality,
                                              cv::IMWRITE_WEBP_QUALITY, quality};
            ff::nodes::write_encoded(node, path, format, samples, options);

            ff::nodes::output_native(node, "image", image);
        });
