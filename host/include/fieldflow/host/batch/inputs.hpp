// The images of a batch: the files under the input folder that the glob picks, sorted by path,
// each with a stem (its output folder and log name) unique in the whole list; and the share of
// them one worker runs (`--shard I/N`).
#pragma once

#include <cstddef>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

struct BatchInput {
    std::filesystem::path path; // the input folder joined with `relative`
    std::string relative;       // the path under the input folder, '/'-separated
    std::string stem;           // unique in the full list; safe as a folder and file name
    size_t index = 0;           // position in the full sorted list
};

// `--shard I/N`: this worker takes the images whose index i has i % N == I.
struct Shard {
    unsigned index = 0;
    unsigned count = 1;
    std::string text() const; // "I/N"
};

// Parses "I/N" (0 <= I < N); nullopt if malformed.
std::optional<Shard> parse_shard(const std::string& text);

// True for the extensions the default selection takes (case-insensitive, with the dot).
bool is_image_extension(const std::string& extension);

// Lists the images of `dir`: without a glob, the files directly in `dir` with an image extension;
// a glob without '/' is matched against file names directly in `dir`; a glob with '/' against
// paths under `dir`, searching subfolders ('*' then also matches '/'). Hidden files are left out
// unless the glob names them. `exclude` (the output folder, when it lies inside) is not searched.
// Sorted by relative path (bytewise), so every worker sees the same order.
// Throws std::runtime_error when `dir` cannot be read.
std::vector<BatchInput> list_batch_inputs(const std::filesystem::path& dir, const std::string& glob,
                                          const std::filesystem::path& exclude = {});

// Gives each input its stem: the relative path without its extension, with characters other
// than letters, digits, '.', '_' and '-' turned into '_' (so a subfolder's '/' too); names that
// clash take their extension ("photo_jpg", "photo_png"), then a counter. Names the batch uses
// itself (logs, summary files) are avoided. Depends only on the list, so shards agree.
void assign_stems(std::vector<BatchInput>& inputs);

// Why `input` and `output` cannot serve one batch, or nullopt when they can: the same folder, or
// one inside the other (after resolving symbolic links and `..`). An output inside the input
// would have a later run take the results as images (and --glob with '/' find them); an input
// inside the output would sit among the stem folders the batch creates and replaces.
std::optional<std::string> folder_overlap(const std::filesystem::path& input,
                                          const std::filesystem::path& output);

std::vector<BatchInput> select_shard(const std::vector<BatchInput>& all, const Shard& shard);

} // namespace fieldflow::host::batch
