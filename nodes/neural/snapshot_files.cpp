#include "snapshot_files.hpp"

#include <charconv>
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

} // namespace

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
