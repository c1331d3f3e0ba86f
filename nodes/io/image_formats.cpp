#include "io/image_formats.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>

namespace ff::nodes {

namespace {

// extension, samples, 16 bits, alpha, gray, in memory, most pixels a side
constexpr ImageFormat kFormats[] = {
    {".png", SampleFormat::integer, true, true, true, true},
    {".jpg", SampleFormat::integer, false, false, true, true},
    {".jpeg", SampleFormat::integer, false, false, true, true},
    {".ppm", SampleFormat::integer, true, false, false, true},
    {".pnm", SampleFormat::integer, true, false, true, true},
    {".tif", SampleFormat::integer, true, true, true, true},
    {".tiff", SampleFormat::integer, true, true, true, true},
    {".bmp", SampleFormat::integer, false, false, true, true},
    {".webp", SampleFormat::integer, false, true, false, true, 16383},
    {".exr", SampleFormat::floating, false, true, true, false},
    {".hdr", SampleFormat::floating, false, false, false, false},
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
