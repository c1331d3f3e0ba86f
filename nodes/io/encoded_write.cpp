#include "io/encoded_write.hpp"

#include "common/atomic_write.hpp"
#include "common/cancellable_call.hpp"

#include <opencv2/imgcodecs.hpp>

#include <cstdio>
#include <filesystem>

namespace ff::nodes {
namespace {

namespace fs = std::filesystem;

std::string encoding_text(const ImageFormat& format, double seconds) {
    char text[64];
    std::snprintf(text, sizeof text, "encoding %s, %.1f s", format.extension + 1, seconds);
    return text;
}

// Removes `folder` and what is in it, again while a late writer recreates a file in it: once it
// is gone, nothing can be created inside it.
void remove_folder_for_good(const fs::path& folder) {
    std::error_code error;
    for (int attempt = 0; attempt < 100; ++attempt) {
        fs::remove_all(folder, error);
        if (!fs::exists(folder, error)) return;
    }
}

// EXR and HDR: cv::imwrite on the encoder's thread into `<temporary minus extension>-encoder/`,
// then the file is moved over the temporary (same folder, same file system).
void encode_through_file(Node& node, const fs::path& temporary, const std::string& path,
                         const ImageFormat& format, const cv::Mat& samples,
                         const std::vector<int>& options) {
    fs::path folder = temporary;
    folder.replace_extension();
    folder += std::string("-encoder") + format.extension; // a stale-temporary name: swept like one
    std::error_code error;
    if (!fs::create_directory(folder, error))
        throw Error("cannot write to folder '" + temporary.parent_path().string() + "': " + error.message());
    const fs::path file = folder / (std::string("image") + format.extension);
    try {
        call_cancellable(
            node,
            [samples, options, file, path] {
                bool written = false;
                try {
                    written = cv::imwrite(file.string(), samples, options);
                } catch (const cv::Exception& e) {
                    throw Error("cannot encode '" + path + "': " + e.err);
                }
                if (!written) throw Error("cannot write '" + path + "': the encoder failed");
            },
            [&](double seconds) { node.progress(0, 0, encoding_text(format, seconds)); });
        fs::rename(file, temporary);
    } catch (...) {
        remove_folder_for_good(folder);
        throw;
    }
    fs::remove(folder, error);
}

} // namespace

void write_encoded(Node& node, const std::string& path, const ImageFormat& format,
                   const cv::Mat& samples, const std::vector<int>& options) {
    if (!format.encodes_in_memory) {
        atomic_write(path, [&](const fs::path& temporary) {
            encode_through_file(node, temporary, path, format, samples, options);
        });
        return;
    }
    const std::string extension = format.extension;
    const std::vector<unsigned char> bytes = call_cancellable_result(
        node,
        [samples, options, extension, path] {
            std::vector<unsigned char> encoded;
            bool ok = false;
            try {
                ok = cv::imencode(extension, samples, encoded, options);
            } catch (const cv::Exception& e) {
                throw Error("cannot encode '" + path + "': " + e.err);
            }
            if (!ok) throw Error("cannot write '" + path + "': the encoder failed");
            return encoded;
        },
        [&](double seconds) { node.progress(0, 0, encoding_text(format, seconds)); });
    const std::string_view text(reinterpret_cast<const char*>(bytes.data()), bytes.size());
    atomic_write_file(path, text, node, [&](size_t written, size_t total) {
        node.progress(written, total, "writing " + fs::path(path).filename().string());
    });
}

} // namespace ff::nodes
