#include "io/image_formats.hpp"

#include <algorithm>
#include <cctype>
#include <filesystem>
#include <iterator>

namespace ff::nodes {

namespace {

constexpr ImageFormat kFormats[] = {
    {".png", SampleFormat::integer, true},   {".jpg", SampleFormat::integer, false},
    {".jpeg", SampleFormat::integer, false}, {".ppm", SampleFormat::integer, true},
    {".pnm", SampleFormat::integer, true},   {".tif", SampleFormat::integer, true},
    {".tiff", SampleFormat::integer, true},  {".bmp", SampleFormat::integer, false},
    {".webp", SampleFormat::integer, false}, {".exr", SampleFormat::floating, false},
    {".hdr", SampleFormat::floating, false},
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
