// Finding the Train node's snapshots (prediction_at_<step>.png, feature_at_<step>.png) in a folder.
#pragma once

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>

namespace ff::neural {

struct SnapshotFiles {
    std::filesystem::path prediction; // empty if missing
    std::filesystem::path feature;
};

// Snapshots in `folder` by step (ascending). A missing folder gives an empty map; other files are
// ignored.
std::map<uint32_t, SnapshotFiles> find_snapshots(const std::filesystem::path& folder);

// Train's snapshots carry a PNG text chunk naming fieldflow right after the header: the proof
// that Train wrote a file of a snapshot's name, so that it replaces or removes only its own
// (a cached run's copies carry it too: they are the same bytes). `png` is a whole PNG file.
std::string mark_snapshot_png(const std::string& png);
bool is_marked_snapshot(const std::filesystem::path& file);

} // namespace ff::neural
