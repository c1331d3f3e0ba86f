// Shared fixtures for the node tests: deterministic test pictures and scratch folders.
#pragma once

#include <opencv2/core.hpp>

#include <filesystem>
#include <string>

namespace ff::test {

// A float RGB picture in [0, 1] with smooth gradients, edges and fine texture, so resampling and
// metrics have something to work on. Deterministic for (width, height, seed).
cv::Mat test_picture(int width, int height, unsigned seed = 1);

// A fresh empty folder, removed with its contents at scope exit.
class ScratchDir {
public:
    ScratchDir();
    ~ScratchDir();
    ScratchDir(const ScratchDir&) = delete;
    ScratchDir& operator=(const ScratchDir&) = delete;
    const std::filesystem::path& path() const { return path_; }
    std::string file(const std::string& name) const { return (path_ / name).string(); }

private:
    std::filesystem::path path_;
};

// Writes raw bytes to a file (for malformed inputs).
void write_bytes(const std::string& path, const std::string& bytes);
std::string read_bytes(const std::string& path);

// Files in `folder` (names only), sorted.
std::vector<std::string> folder_entries(const std::filesystem::path& folder);

// Max absolute difference between two Mats of the same size and type.
double max_abs_diff(const cv::Mat& a, const cv::Mat& b);

} // namespace ff::test
