// WriteImage: float RGB -> an image file, atomically; passes the image on so graphs can chain.
#include "common/atomic_write.hpp"
#include "common/image_mat.hpp"
#include "io/image_formats.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cmath>
#include <cstring>
#include <string>
#include <vector>

namespace {

using ff::nodes::ImageFormat;
using ff::nodes::SampleFormat;

const ImageFormat& checked_format(const std::string& path, int64_t bits) {
    const ImageFormat* format = ff::nodes::image_format_for(path);
    if (!format)
        throw ff::ParamError("path", "cannot tell the image format of '" + path +
                                         "' from its extension; use one of: " +
                                         ff::nodes::supported_extensions());
    if (bits != 8 && bits != 16) throw ff::ParamError("bits", "bits must be 8 or 16");
    if (bits == 16 && format->samples == SampleFormat::integer && !format->allows_16_bits)
        throw ff::ParamError("bits", std::string("the ") + (format->extension + 1) +
                                         " format stores 8 bits per sample; use png, tif or ppm for 16");
    return *format;
}

// Only EXR holds NaN and infinity. Every other encoder would turn them into something arbitrary
// (8/16-bit conversion writes +inf as 0, black, next to large finite values written as white),
// so they become the nearest value the format can hold, with one warning that counts them.
void replace_non_finite(ff::Node& node, cv::Mat& bgr, const ImageFormat& format) {
    if (std::strcmp(format.extension, ".exr") == 0) return;
    CV_Assert(bgr.isContinuous() && bgr.depth() == CV_32F);
    float* v = bgr.ptr<float>();
    size_t nan = 0, inf = 0;
    for (size_t i = 0, n = bgr.total() * size_t(bgr.channels()); i < n; ++i) {
        if (std::isnan(v[i])) {
            v[i] = 0.0f;
            ++nan;
        } else if (std::isinf(v[i])) {
            v[i] = v[i] > 0 ? 1.0f : 0.0f;
            ++inf;
        }
    }
    if (nan + inf == 0) return;
    node.warn("image has " + std::to_string(nan + inf) + " non-finite values (" + std::to_string(nan) +
              " NaN, " + std::to_string(inf) + " infinite) that a " + (format.extension + 1) +
              " file cannot hold: written as 0 (NaN, -inf) and full intensity (+inf); write .exr "
              "to keep them");
}

// The BGR samples to hand to the encoder for this format.
cv::Mat encodable(const cv::Mat& bgr, const ImageFormat& format, int64_t bits) {
    if (format.samples == SampleFormat::floating) return bgr;
    return bits == 16 ? ff::nodes::to_16bit(bgr) : ff::nodes::to_8bit(bgr);
}

} // namespace

FF_NODE(write_image) =
    ff::op("WriteImage", "io")
        .doc("Writes an image file; the format follows the extension (png, jpg, ppm, tif, bmp, "
             "webp, exr, hdr). Values are clamped to [0, 1] and rounded for 8/16-bit formats; "
             "EXR and HDR keep floats. NaN and infinite values, which only EXR holds, are "
             "written as 0 (NaN, -inf) or full intensity (+inf) elsewhere, with a warning. Parent folders are created; the file is written under a "
             "temporary name and renamed, so it is never seen half-written. The image is passed "
             "through unchanged.")
        .flags(FF_OP_WRITES_OUTSIDE)
        .input("image", ff::kImage, "image to save")
        .output("image", ff::kImage, "the same image, for chaining")
        .param_string("path", std::nullopt, "file to write")
        .param_int("bits", 8, 8, 16, "bits per sample for png, tif and ppm: 8 or 16")
        .param_int("quality", 95, 1, 100, "JPEG / WebP quality")
        .validate([](ff::Node& node) {
            checked_format(node.string("path"), node.integer("bits"));
        })
        .execute([](ff::Node& node) {
            const std::string path = node.string("path");
            const int64_t bits = node.integer("bits");
            const ImageFormat& format = checked_format(path, bits);
            if (!cv::haveImageWriter(path))
                throw ff::ParamError("path", std::string("this OpenCV build cannot write ") +
                                                 (format.extension + 1) + " files");

            const ff::ImageView in = node.image("image");
            const cv::Mat rgb = ff::nodes::rgb_mat(in, "image");
            cv::Mat bgr;
            cv::cvtColor(rgb, bgr, cv::COLOR_RGB2BGR);
            replace_non_finite(node, bgr, format);
            const cv::Mat samples = encodable(bgr, format, bits);

            const int quality = int(node.integer("quality"));
            const std::vector<int> options = {cv::IMWRITE_JPEG_QUALITY, quality,
                                              cv::IMWRITE_WEBP_QUALITY, quality};
            ff::nodes::atomic_write(path, [&](const std::filesystem::path& temporary) {
                bool written = false;
                try {
                    written = cv::imwrite(temporary.string(), samples, options);
                } catch (const cv::Exception& e) {
                    throw ff::Error("cannot encode '" + path + "': " + e.err);
                }
                if (!written) throw ff::Error("cannot write '" + path + "': the encoder failed");
            });

            ff::nodes::output_rgb(node, "image", rgb);
        });
