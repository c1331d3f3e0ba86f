// <output>/manifest.jsonl: one JSON line per finished image (done or failed), appended and
// fsync'd as each finishes, so a killed batch knows exactly what it completed. A later line for
// the same stem replaces an earlier one.
#pragma once

#include <fieldflow/host/batch/image_result.hpp>

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

// The last record of each stem. A line that does not parse (one cut short by a crash) is skipped
// and described in `warnings`. A missing file reads as empty.
std::map<std::string, ImageResult> read_manifest(const std::filesystem::path& file,
                                                 std::vector<std::string>& warnings);

class ManifestWriter {
public:
    // Opens (creating) the file for appending; ends a line cut short by a crash first, so the
    // next record starts on a line of its own. Throws std::runtime_error on I/O errors.
    explicit ManifestWriter(std::filesystem::path file);
    ~ManifestWriter();
    ManifestWriter(const ManifestWriter&) = delete;
    ManifestWriter& operator=(const ManifestWriter&) = delete;

    // Writes one line and fsyncs it. Throws std::runtime_error on I/O errors.
    void append(const ImageResult& result);

private:
    std::filesystem::path file_;
    int fd_ = -1;
};

// The image's metrics.json (a missing file or field leaves the field empty). Throws
// std::runtime_error when the file exists but is not a JSON object.
ImageMetrics read_metrics_file(const std::filesystem::path& file);

} // namespace fieldflow::host::batch
