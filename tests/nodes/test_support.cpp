#include "test_support.hpp"

#include <opencv2/imgproc.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <fstream>
#include <random>
#include <stdexcept>
#include <unistd.h>

namespace fs = std::filesystem;

namespace ff::test {

cv::Mat test_picture(int width, int height, unsigned seed) {
    cv::Mat image(height, width, CV_32FC3);
    std::mt19937 random(seed);
    std::uniform_real_distribution<float> noise(-0.05f, 0.05f);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const float u = (x + 0.5f) / width, v = (y + 0.5f) / height;
            const float r = 0.5f + 0.4f * std::sin(6.0f * u + 2.0f * v);
            const float g = (x / 7 + y / 5) % 2 ? 0.8f : 0.2f; // hard edges
            const float b = 0.3f + 0.6f * u * v;
            image.at<cv::Vec3f>(y, x) = cv::Vec3f(std::clamp(r + noise(random), 0.0f, 1.0f),
                                                  std::clamp(g + noise(random), 0.0f, 1.0f),
                                                  std::clamp(b + noise(random), 0.0f, 1.0f));
        }
    return image;
}

ScratchDir::ScratchDir() {
    static std::atomic<int> counter{0};
    const fs::path base = fs::temp_directory_path();
    for (;;) {
        path_ = base / ("ff_nodes_test_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
        if (fs::create_directory(path_)) break;
    }
}

ScratchDir::~ScratchDir() {
    std::error_code error;
    fs::remove_all(path_, error);
}

void write_bytes(const std::string& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary);
    out.write(bytes.data(), std::streamsize(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path);
}

std::string read_bytes(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path);
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

std::vector<std::string> folder_entries(const fs::path& folder) {
    std::vector<std::string> names;
    for (const auto& entry : fs::directory_iterator(folder)) names.push_back(entry.path().filename().string());
    std::sort(names.begin(), names.end());
    return names;
}

double max_abs_diff(const cv::Mat& a, const cv::Mat& b) {
    if (a.size() != b.size() || a.type() != b.type()) throw std::invalid_argument("max_abs_diff: Mats differ in shape");
    return cv::norm(a, b, cv::NORM_INF);
}

} // namespace ff::test
