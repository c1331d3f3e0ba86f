// Finding the Train node's snapshots (prediction_at_<step>.png, feature_at_<step>.png) in a folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>

namespace ff::neural {

struct SnapshotFiles {
    std::filesystem::path prediction; // empty if missing
    std::filesystem::path feature;
};

// Snapshots in `folder` by step (ascending). A missing folder gives an empty map; other files are
// ignored.
std::map<uint32_t, SnapshotFiles> find_snapshots(const std::filesystem::path& folder);

} // namespace ff::neural
