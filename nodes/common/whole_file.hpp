// Reading a whole file into memory in one read (a stream iterator's byte at a time costs seconds
// on a checkpoint of a large photo's grid).
#pragma once

#include <filesystem>
#include <optional>
#include <vector>

namespace ff::nodes {

// The bytes of the file at `path`; nullopt when it cannot be opened or read to its end.
std::optional<std::vector<unsigned char>> read_whole_file(const std::filesystem::path& path);

} // namespace ff::nodes
