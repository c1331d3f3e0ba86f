// Reading a whole file into memory in one read (a stream iterator's byte at a time costs seconds
// on a checkpoint of a large photo's grid).
#pragma once

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace ff::nodes {

// The bytes of the file at `path`; nullopt when it cannot be opened or read to its end.
// A FIFO, device or socket gives nullopt at once, never a read that waits or never ends.
std::optional<std::vector<unsigned char>> read_whole_file(const std::filesystem::path& path);

// The bytes of the regular file at `path`, at most `max_bytes` of them. A FIFO, device, socket
// or folder is refused before anything is read (the type is checked on a descriptor opened
// without blocking), and so is a larger file. Throws std::runtime_error with words that follow
// the file's name: "is a FIFO (named pipe), not a <what>", "is a device, not a <what>", "is N
// bytes, more than a <what> holds (at most M)", "does not exist", "cannot be read: <reason>".
std::vector<unsigned char> read_regular_file(const std::filesystem::path& path, uintmax_t max_bytes,
                                             const std::string& what);

} // namespace ff::nodes
