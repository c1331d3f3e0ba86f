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

// The integer depth to store (8 or 16), or 32 for the float formats. `source` follows the image's
// source; what the format cannot hold is converted with a warning.
uint32_t stored_bits(const ff::Node& node, const ImageFormat& format, const std::string& bits,
                     uint32_t source_bits) {
    if (format.samples == SampleFormat::floating) return 32; // EXR and HDR keep floats
    if (bits != "source") return uint32_t(std::stoul(bits));
    const uint32_t wanted = source_bits == 0 ? 8 : source_bits;
    const uint32_t widest = format.allows_16_bits ? 16 : 8;
    if (wanted <= widest) return wanted;
    node.warn("the image came from a " + ff::nodes::depth_text(source_bits) + " file; " +
              (format.extension + 1) + " stores at most " + std::to_string(widest) +
              " bits per sample, so it is saved at " + std::to_string(widest) +
              (format.allows_16_bits ? " (use .exr to keep floats)" : " (use .png or .tif for 16 bits)"));
    return widest;
}

// The image in OpenCV's channel order, with the channels the format holds.
cv::Mat encodable_channels(const ff::Node& node, const cv::Mat& image, const ImageFormat& format) {
    cv::Mat out;
    switch (image.channels()) {
    case 1:
        if (format.holds_gray) return image;
        node.warn(std::string(format.extension + 1) + " holds no gray images: saved as RGB");
        cv::cvtColor(image, out, cv::COLOR_GRAY2BGR);
        return out;
    case 4:
        if (format.holds_alpha) {
            cv::cvtColor(image, out, cv::COLOR_RGBA2BGRA);
            return out;
        }
        node.warn(std::string(format.extension + 1) +
                  " holds no alpha channel: it is dropped (use .png, .tif, .webp or .exr to keep it)");
        cv::cvtColor(image, out, cv::COLOR_RGBA2BGR);
        return out;
    default:
        cv::cvtColor(image, out, cv::COLOR_RGB2BGR);
        return out;
    }
}

} // namespace

FF_NODE(write_image) =
    ff::op("WriteImage", "io")
        .doc("Writes an image file; the format follows the extension (png, jpg, ppm, tif, bmp, "
             "webp, exr, hdr). Bits per sample: `source` (the default) keeps the depth of the "
             "file the image came from (16-bit PNG in, 16-bit PNG out), 8 or 16 choose one; EXR "
             "and HDR keep floats. Gray stays one channel and RGBA keeps its alpha where the "
             "format holds them; every conversion is a warning. Values are clamped to [0, 1] and "
             "rounded for 8/16-bit formats. NaN and infinite values, which only EXR holds, are "
             "written as 0 (NaN, -inf) or full intensity (+inf) elsewhere, with a warning. Parent "
             "folders are created; the file is written under "
             "a temporary name and renamed, so it is never seen half-written. The image is passed "
             "through unchanged.")
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
            const cv::Mat image = ff::nodes::native_mat(in, "image");
            cv::Mat channels = encodable_channels(node, image, format);
            if (channels.data == image.data) channels = channels.clone(); // never edit the input
            replace_non_finite(node, channels, format);
            const cv::Mat samples = ff::nodes::at_depth(channels, stored_bits(node, format, bits, in.bits));

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

            ff::nodes::output_native(node, "image", image);
        });
