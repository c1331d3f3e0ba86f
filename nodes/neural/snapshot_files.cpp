#include "snapshot_files.hpp"

#include <array>
#include <charconv>
#include <fstream>
#include <optional>
#include <string_view>

namespace ff::neural {

namespace {

// The step in "<prefix><digits>.png", if the name has that form.
std::optional<uint32_t> step_of(std::string_view name, std::string_view prefix) {
    constexpr std::string_view suffix = ".png";
    if (name.size() <= prefix.size() + suffix.size() || !name.starts_with(prefix) ||
        !name.ends_with(suffix))
        return std::nullopt;
    std::string_view digits = name.substr(prefix.size(), name.size() - prefix.size() - suffix.size());
    uint32_t step = 0;
    auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), step);
    if (error != std::errc() || end != digits.data() + digits.size()) return std::nullopt;
    return step;
}

// The chunk: "Software" = "fieldflow Train snapshot" (tEXt: keyword, NUL, text).
constexpr std::string_view kMarkText{"Software\0fieldflow Train snapshot", 33};
constexpr size_t kHeaderEnd = 8 + 25; // signature, IHDR (length, type, 13 bytes, CRC)

uint32_t crc32(std::string_view bytes) {
    uint32_t crc = 0xffffffffu;
    for (unsigned char b : bytes) {
        crc ^= b;
        for (int k = 0; k < 8; ++k) crc = (crc >> 1) ^ (0xedb88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

std::string big_endian(uint32_t v) {
    return {char(v >> 24), char(v >> 16), char(v >> 8), char(v)};
}

std::string mark_chunk() {
    const std::string body = "tEXt" + std::string(kMarkText);
    return big_endian(uint32_t(kMarkText.size())) + body + big_endian(crc32(body));
}

} // namespace

std::string mark_snapshot_png(const std::string& png) {
    if (png.size() < kHeaderEnd || png.compare(12, 4, "IHDR") != 0) return png;
    return png.substr(0, kHeaderEnd) + mark_chunk() + png.substr(kHeaderEnd);
}

bool is_marked_snapshot(const std::filesystem::path& file) {
    const std::string chunk = mark_chunk();
    std::array<char, 128> head{};
    std::ifstream in(file, std::ios::binary);
    in.read(head.data(), std::streamsize(kHeaderEnd + chunk.size()));
    return in.gcount() == std::streamsize(kHeaderEnd + chunk.size()) &&
           std::string_view(head.data() + kHeaderEnd, chunk.size()) == chunk;
}

std::map<uint32_t, SnapshotFiles> find_snapshots(const std::filesystem::path& folder) {
    std::map<uint32_t, SnapshotFiles> out;
    std::error_code error;
    std::filesystem::directory_iterator it(folder, error), end;
    if (error) return out;
    for (; it != end; it.increment(error)) {
        if (error) break;
        if (!it->is_regular_file(error)) continue;
        const std::string name = it->path().filename().string();
        if (auto step = step_of(name, "prediction_at_")) out[*step].prediction = it->path();
        else if (auto step = step_of(name, "feature_at_")) out[*step].feature = it->path();
    }
    return out;
}

} // namespace ff::neural
