#include <fieldflow/host/batch/manifest.hpp>

#include "result_json.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {
namespace {

std::runtime_error io_error(const std::string& what, const fs::path& file) {
    return std::runtime_error(what + " '" + file.string() + "': " + std::strerror(errno));
}

void write_all(int fd, const std::string& text, const fs::path& file) {
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) throw io_error("cannot write", file);
        written += static_cast<size_t>(n);
    }
}

} // namespace

std::map<std::string, ImageResult> read_manifest(const fs::path& file,
                                                 std::vector<std::string>& warnings) {
    std::map<std::string, ImageResult> records;
    std::ifstream in(file, std::ios::binary);
    if (!in) return records;
    std::string line;
    for (int number = 1; std::getline(in, line); ++number) {
        if (line.empty()) continue;
        try {
            ImageResult r = result_from_json(nlohmann::json::parse(line));
            records[r.stem] = std::move(r);
        } catch (const std::exception& e) {
            warnings.push_back(file.string() + ":" + std::to_string(number) +
                               ": skipped a damaged manifest line (" + e.what() + ")");
        }
    }
    return records;
}

ManifestWriter::ManifestWriter(fs::path file) : file_(std::move(file)) {
    fd_ = ::open(file_.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd_ < 0) throw io_error("cannot open", file_);
    const off_t size = ::lseek(fd_, 0, SEEK_END);
    if (size > 0) {
        char last = '\n';
        if (::pread(fd_, &last, 1, size - 1) != 1) throw io_error("cannot read", file_);
        if (last != '\n') write_all(fd_, "\n", file_); // a line cut short by a crash
    }
}

ManifestWriter::~ManifestWriter() {
    if (fd_ >= 0) ::close(fd_);
}

void ManifestWriter::append(const ImageResult& result) {
    // One write() of the whole line: with O_APPEND it lands in one piece at the end.
    write_all(fd_, result_to_json(result).dump() + "\n", file_);
    if (::fsync(fd_) != 0) throw io_error("cannot sync", file_);
}

ImageMetrics read_metrics_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) return {};
    std::ostringstream text;
    text << in.rdbuf();
    const nlohmann::json j = nlohmann::json::parse(text.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw std::runtime_error("'" + file.string() + "' is not a JSON object");
    return metrics_from_json(j);
}

} // namespace fieldflow::host::batch
