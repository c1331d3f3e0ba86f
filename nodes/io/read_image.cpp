// ReadImage: a file -> float RGB in [0, 1].
#include "common/image_mat.hpp"
#include "io/image_file_checks.hpp"
#include "io/image_formats.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <filesystem>

namespace fs = std::filesystem;

namespace {

constexpr int64_t kDefaultMaxPixels = 100'000'000; // 1.2 GB as float RGB

// Any depth OpenCV decodes -> float in [0, 1] (float files are taken as they are).
cv::Mat to_unit_float(const cv::Mat& decoded, const std::string& path) {
    double scale = 1.0;
    switch (decoded.depth()) {
    case CV_8U: scale = 1.0 / 255.0; break;
    case CV_16U: scale = 1.0 / 65535.0; break;
    case CV_32F:
    case CV_64F: scale = 1.0; break;
    default:
        throw ff::Error("'" + path + "' has an unsupported pixel format (signed integer samples)");
    }
    cv::Mat out;
    decoded.convertTo(out, CV_32F, scale);
    return out;
}

// The bits per sample a decoded Mat holds: 8, 16 or 32 (float; doubles are read as floats).
uint32_t bits_of(const cv::Mat& decoded) {
    switch (decoded.depth()) {
    case CV_8U: return 8;
    case CV_16U: return 16;
    default: return 32;
    }
}

// Gray stays one channel, BGR becomes RGB, BGRA becomes RGBA (alpha kept).
cv::Mat to_rgb_order(const cv::Mat& image, const std::string& path) {
    cv::Mat rgb;
    switch (image.channels()) {
    case 1: rgb = image; break;
    case 3: cv::cvtColor(image, rgb, cv::COLOR_BGR2RGB); break;
    case 4: cv::cvtColor(image, rgb, cv::COLOR_BGRA2RGBA); break;
    default:
        throw ff::Error("'" + path + "' has " + std::to_string(image.channels()) +
                        " channels; expected gray, RGB or RGBA");
    }
    return rgb;
}

// Refuses an image over `max_pixels`; `source` says where the size came from, for the message.
void check_pixel_limit(const std::string& path, int64_t width, int64_t height, int64_t max_pixels,
                       const char* source) {
    const int64_t pixels = width * height;
    if (pixels <= max_pixels) return;
    throw ff::ParamError("max_pixels", "'" + path + "' is " + std::to_string(width) + "x" +
                                           std::to_string(height) + " = " + std::to_string(pixels) +
                                           " pixels" + source +
                                           ", over max_pixels = " + std::to_string(max_pixels));
}

// The size a PNG or JPEG header declares, checked before anything is decoded: a huge picture
// is refused in milliseconds instead of after seconds and gigabytes of decoding.
void check_header_size(const std::string& path, int64_t max_pixels) {
    if (auto size = ff::nodes::image_header_size(path))
        check_pixel_limit(path, size->width, size->height, max_pixels, " (from its header)");
}

// PNG, TIFF, WebP and EXR can carry an alpha channel.
bool may_hold_alpha(const std::string& path) {
    const ff::nodes::ImageFormat* format = ff::nodes::image_format_for(path);
    return format && format->holds_alpha;
}

} // namespace

FF_NODE(read_image) =
    ff::op("ReadImage", "io")
        .doc("Reads an image file (PNG, JPEG, TIFF, PPM/PGM, BMP, WebP, and EXR/HDR where the "
             "OpenCV build reads them): 8- or 16-bit integer or 32-bit float, gray, RGB or RGBA. "
             "Output is float in [0, 1] (float files keep their values) with the file's channels: "
             "1 (gray), 3 (RGB) or 4 (RGBA, straight alpha), and the file's bits per sample "
             "(8, 16, 32), which WriteImage and the metrics follow. EXIF orientation is applied "
             "(not to files with alpha).")
        .flags(FF_OP_READS_OUTSIDE)
        .output("image", ff::kImage, "the image: float gray, RGB or RGBA")
        .param_string("path", std::nullopt, "image file to read")
        .param_flags(FF_PARAM_READS_FILE)
        .param_int("max_pixels", kDefaultMaxPixels, 1, int64_t(1) << 31,
                   "refuse images with more pixels than this (width x height; for PNG and JPEG read "
                   "from the header, before decoding)")
        // Validation (what `fieldflow check` runs) looks at the file without decoding it: that it
        // exists and is readable, and that its first bytes are a format OpenCV reads.
        .validate([](ff::Node& node) {
            const std::string path = node.string("path");
            if (path.empty()) throw ff::ParamError("path", "path is empty");
            try {
                ff::nodes::check_readable_image_file(path);
            } catch (const ff::Error& e) {
                throw ff::ParamError("path", e.what());
            }
            if (!cv::haveImageReader(path))
                throw ff::ParamError("path", "cannot decode '" + path + "': not an image format this "
                                             "build reads (its first bytes match no image format)");
            check_header_size(path, node.integer("max_pixels"));
        })
        .execute([](ff::Node& node) {
            const std::string path = node.string("path");
            ff::nodes::check_readable_image_file(path);
            const int64_t max_pixels = node.integer("max_pixels");
            check_header_size(path, max_pixels);

            // ANYDEPTH keeps 16-bit and float samples; ANYCOLOR keeps gray as one channel; unlike
            // IMREAD_UNCHANGED it applies EXIF orientation, but it drops alpha. Formats that can
            // hold alpha are read again UNCHANGED, and that read is taken when it has an alpha
            // channel (such files are read as stored, without EXIF orientation).
            cv::Mat decoded;
            try {
                decoded = cv::imread(path, cv::IMREAD_ANYDEPTH | cv::IMREAD_ANYCOLOR);
                if (!decoded.empty() && may_hold_alpha(path)) {
                    cv::Mat unchanged = cv::imread(path, cv::IMREAD_UNCHANGED);
                    if (unchanged.channels() == 4) decoded = unchanged;
                }
            } catch (const cv::Exception& e) {
                throw ff::Error("cannot decode '" + path + "': " + e.err);
            }
            if (decoded.empty())
                throw ff::Error("cannot decode '" + path +
                                "': not an image format this build reads, or the file is corrupt");
            if (decoded.cols <= 0 || decoded.rows <= 0)
                throw ff::Error("'" + path + "' holds an empty (0-pixel) image");
            // Formats whose header is not read above are checked once decoded.
            check_pixel_limit(path, decoded.cols, decoded.rows, max_pixels, "");
            const cv::Mat image = to_rgb_order(to_unit_float(decoded, path), path);
            ff::nodes::output_native(node, "image", image);
            node.set_output_bits("image", bits_of(decoded));
        });
