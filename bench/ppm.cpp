#include "ppm.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <stdexcept>

namespace ff::bench {

namespace {
// Next header token, skipping whitespace and # comments.
std::string token(std::istream& in, const std::string& path) {
    std::string t;
    int c;
    while ((c = in.get()) != EOF) {
        if (c == '#') {
            while ((c = in.get()) != EOF && c != '\n') {}
            continue;
        }
        if (std::isspace(c)) {
            if (!t.empty()) return t;
            continue;
        }
        t.push_back(char(c));
    }
    if (t.empty()) throw std::runtime_error(path + ": truncated PPM header");
    return t;
}

uint32_t number(std::istream& in, const std::string& path, const char* what) {
    std::string t = token(in, path);
    if (t.empty() || t.size() > 9 || !std::all_of(t.begin(), t.end(), ::isdigit))
        throw std::runtime_error(path + ": PPM " + what + " '" + t + "' is not a number");
    return uint32_t(std::stoul(t));
}
} // namespace

RgbImage read_ppm(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error(path + ": cannot open");
    if (token(in, path) != "P6") throw std::runtime_error(path + ": not a binary PPM (P6) file");
    RgbImage img;
    img.width = number(in, path, "width");
    img.height = number(in, path, "height");
    uint32_t maxval = number(in, path, "maxval");
    // Up to the engine's 2^31 pixels (a gigapixel mosaic: 30000x30000).
    if (img.width == 0 || img.height == 0 || uint64_t(img.width) * img.height >= (1ull << 31))
        throw std::runtime_error(path + ": unsupported PPM size " + std::to_string(img.width) + "x" +
                                 std::to_string(img.height));
    if (maxval == 0 || maxval > 255)
        throw std::runtime_error(path + ": PPM maxval " + std::to_string(maxval) + " unsupported (1..255)");
    size_t n = size_t(img.width) * img.height * 3;
    std::vector<unsigned char> bytes(n);
    in.read(reinterpret_cast<char*>(bytes.data()), std::streamsize(n));
    if (size_t(in.gcount()) != n)
        throw std::runtime_error(path + ": PPM pixel data truncated (" + std::to_string(in.gcount()) +
                                 " of " + std::to_string(n) + " bytes)");
    img.rgb.resize(n);
    for (size_t i = 0; i < n; ++i) img.rgb[i] = float(bytes[i]) / float(maxval);
    return img;
}

void write_ppm(const std::string& path, uint32_t width, uint32_t height, const std::vector<float>& rgb) {
    if (rgb.size() != size_t(width) * height * 3)
        throw std::runtime_error(path + ": image data does not match " + std::to_string(width) + "x" +
                                 std::to_string(height));
    std::string tmp = path + ".tmp";
    {
        std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
        if (!out) throw std::runtime_error(tmp + ": cannot write");
        out << "P6\n" << width << " " << height << "\n255\n";
        std::vector<unsigned char> bytes(rgb.size());
        for (size_t i = 0; i < rgb.size(); ++i)
            bytes[i] = (unsigned char)std::lround(std::clamp(rgb[i], 0.0f, 1.0f) * 255.0f);
        out.write(reinterpret_cast<const char*>(bytes.data()), std::streamsize(bytes.size()));
        if (!out) throw std::runtime_error(tmp + ": write failed");
    }
    if (std::rename(tmp.c_str(), path.c_str()) != 0) {
        std::remove(tmp.c_str());
        throw std::runtime_error(path + ": cannot rename the temporary file into place");
    }
}

} // namespace ff::bench
