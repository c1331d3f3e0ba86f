// ReadImage: a file -> float RGB in [0, 1].
#include "common/bands.hpp"
#include "common/cancellable_call.hpp"
#include "common/image_mat.hpp"
#include "io/image_file_checks.hpp"
#include "io/image_formats.hpp"
#include "io/pixel_limit.hpp"

#include <opencv2/imgcodecs.hpp>
#include <opencv2/imgproc.hpp>

#include <cstdio>
#include <filesystem>

namespace fs = std::filesystem;

namespace {

// The scale from a decoded depth to float [0, 1] (float files are taken as they are).
double unit_scale(const cv::Mat& decoded, const std::string& path) {
    switch (decoded.depth()) {
    case CV_8U: return 1.0 / 255.0;
    case CV_16U: return 1.0 / 65535.0;
    case CV_32F:
    case CV_64F: return 1.0;
    default:
        throw ff::Error("'" + path + "' has an unsupported pixel format (signed integer samples)");
    }
}

// The bits per sample a decoded Mat holds: 8, 16 or 32 (float; doubles are read as floats).
uint32_t bits_of(const cv::Mat& decoded) {
    switch (decoded.depth()) {
    case CV_8U: return 8;
    case CV_16U: return 16;
    default: return 32;
    }
}

// PNG, TIFF, WebP and EXR can carry an alpha channel. A PNG says in its chunk headers whether it
// does (colour type, tRNS): one without is decoded once, not twice (a second decode of a
// 67-megapixel PNG costs seconds).
bool may_hold_alpha(const std::string& path) {
    if (const std::optional<bool> png = ff::nodes::png_may_hold_alpha(path)) return *png;
    const ff::nodes::ImageFormat* format = ff::nodes::image_format_for(path);
    return format && format->holds_alpha;
}

// The size a PNG or JPEG header declares, checked before anything is decoded: a huge picture
// is refused in milliseconds instead of after seconds and gigabytes of decoding.
void check_header_size(const std::string& path, int64_t max_pixels) {
    if (auto size = ff::nodes::image_header_size(path))
        ff::nodes::check_pixel_limit(path, size->width, size->height, max_pixels, " (from its header)");
}

// The file as OpenCV decodes it. ANYDEPTH keeps 16-bit and float samples; ANYCOLOR keeps gray as
// one channel; unlike IMREAD_UNCHANGED it applies EXIF orientation, but it drops alpha. Formats
// that can hold alpha are read again UNCHANGED, and that read is taken when it has an alpha
// channel (such files are read as stored, without EXIF orientation). Runs on a thread of its own
// (call_cancellable), so it owns its arguments.
cv::Mat decode(const std::string& path, bool alpha_possible) {
    cv::Mat decoded;
    try {
        decoded = cv::imread(path, cv::IMREAD_ANYDEPTH | cv::IMREAD_ANYCOLOR);
        if (!decoded.empty() && alpha_possible) {
            cv::Mat unchanged = cv::imread(path, cv::IMREAD_UNCHANGED);
            if (unchanged.channels() == 4) decoded = unchanged;
        }
    } catch (const cv::Exception& e) {
        throw ff::Error("cannot decode '" + path + "': " + e.err);
    }
    return decoded;
}

// Decoded samples as float [0, 1] with gray kept as one channel, BGR turned RGB and BGRA RGBA,
// written into the output band by band (a cancel is answered between bands).
void output_unit_float(ff::Node& node, const cv::Mat& decoded, const std::string& path) {
    const double scale = unit_scale(decoded, path);
    const int channels = decoded.channels();
    if (channels != 1 && channels != 3 && channels != 4)
        throw ff::Error("'" + path + "' has " + std::to_string(channels) +
                        " channels; expected gray, RGB or RGBA");
    float* pixels = node.output_image("image", uint32_t(decoded.cols), uint32_t(decoded.rows),
                                      uint32_t(channels));
    const cv::Mat out(decoded.rows, decoded.cols, CV_32FC(channels), pixels);
    cv::Mat band; // float, file order; reused, so only the output's memory is touched fresh
    ff::nodes::for_each_band(
        node, decoded.rows, size_t(decoded.cols) * size_t(channels) * sizeof(float),
        [&](int first, int end) {
            cv::Mat target = out.rowRange(first, end); // same size and type: written in place
            if (channels == 1) {
                decoded.rowRange(first, end).convertTo(target, CV_32F, scale);
                return;
            }
            decoded.rowRange(first, end).convertTo(band, CV_32F, scale);
            cv::cvtColor(band, target, channels == 3 ? cv::COLOR_BGR2RGB : cv::COLOR_BGRA2RGBA);
        },
        [&](int done, int rows) { node.progress(uint64_t(done), uint64_t(rows), "converting to float"); });
}

// "decoding 'photo.png' (8192x8192)" for the progress line while the decoder runs.
std::string decoding_text(const std::string& path) {
    std::string text = "decoding '" + std::filesystem::path(path).filename().string() + "'";
    if (auto size = ff::nodes::image_header_size(path))
        text += " (" + std::to_string(size->width) + "x" + std::to_string(size->height) + ")";
    return text;
}

std::string with_seconds(const std::string& text, double seconds) {
    char elapsed[32];
    std::snprintf(elapsed, sizeof elapsed, ", %.1f s", seconds);
    return text + elapsed;
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
        .param_int("max_pixels", 0, 0, int64_t(1) << 31,
                   "refuse images with more pixels than this (width x height; for PNG and JPEG read "
                   "from the header, before decoding). 0 (auto): what this machine's memory holds "
                   "for the main job, physical memory (or the container's limit) / 64 bytes per "
                   "pixel (three float RGB images, the report's working copies and the decoded "
                   "file). Never more than OpenCV's decoders read: 2^30 pixels, or "
                   "OPENCV_IO_MAX_IMAGE_PIXELS")
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

            // The decoder is one OpenCV call of seconds on a large file: it runs on its own thread
            // while this one answers a cancel and shows that it is under way.
            const bool alpha_possible = may_hold_alpha(path);
            const std::string decoding = decoding_text(path);
            const cv::Mat decoded = ff::nodes::call_cancellable_result(
                node, [path, alpha_possible] { return decode(path, alpha_possible); },
                [&](double seconds) { node.progress(0, 0, with_seconds(decoding, seconds)); });
            if (decoded.empty())
                throw ff::Error("cannot decode '" + path +
                                "': not an image format this build reads, or the file is corrupt");
            if (decoded.cols <= 0 || decoded.rows <= 0)
                throw ff::Error("'" + path + "' holds an empty (0-pixel) image");
            // Formats whose header is not read above are checked once decoded.
            ff::nodes::check_pixel_limit(path, uint64_t(decoded.cols), uint64_t(decoded.rows),
                                         max_pixels, "");
            output_unit_float(node, decoded, path);
            node.set_output_bits("image", bits_of(decoded));
        });
