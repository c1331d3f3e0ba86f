#include "io/image_formats.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>

namespace ff::nodes {

namespace {

// extension, samples, 16 bits, alpha, gray
constexpr ImageFormat kFormats[] = {
    {".png", SampleFormat::integer, true, true, true},     {".jpg", SampleFormat::integer, false, false, true},
    {".jpeg", SampleFormat::integer, false, false, true},  {".ppm", SampleFormat::integer, true, false, false},
    {".pnm", SampleFormat::integer, true, false, true},    {".tif", SampleFormat::integer, true, true, true},
    {".tiff", SampleFormat::integer, true, true, true},    {".bmp", SampleFormat::integer, false, false, true},
    {".webp", SampleFormat::integer, false, true, false},  {".exr", SampleFormat::floating, false, true, true},
    {".hdr", SampleFormat::floating, false, false, false},
};

} // namespace

const ImageFormat* image_format_for(const std::string& path) {
    std::string extension = std::filesystem::path(path).extension().string();
    std::transform(extension.begin(), extension.end(), extension.begin(),
                   [](unsigned char c) { return char(std::tolower(c)); });
    for (const ImageFormat& format : kFormats)
        if (extension == format.extension) return &format;
    return nullptr;
}

std::string supported_extensions() {
    std::string text;
    for (const ImageFormat& format : kFormats) {
        if (!text.empty()) text += ", ";
        text += format.extension + 1;
    }
    return text;
}

} // namespace ff::nodes
