// Writing files so a reader never sees a half-written one: the content goes to a temporary file
// in the target's own folder (same file system, so the rename is atomic), which is flushed to
// disk and then renamed over the target. On any failure the temporary file is removed and the
// target is left as it was. Every node that writes a file uses this.
#pragma once

#include <filesystem>
#include <functional>
#include <string_view>
#include <vector>

namespace ff {
class Node;
}

namespace ff::nodes {

// Creates the target's parent folders, removes the temporaries of `target` a killed writer left
// there (older than this process, their writer gone), creates an empty temporary file next to `target` whose
// name ends in the target's extension (so extension-sniffing writers such as cv::imwrite pick the
// right format), calls `write(temporary_path)` to fill it, then renames it over `target`.
// `write` reports failure by throwing. Throws ff::Error naming the path and the reason; when
// the file system is full, the reason says so (ENOSPC) and names the folder.
void atomic_write(const std::filesystem::path& target,
                  const std::function<void(const std::filesystem::path& temporary)>& write);

// atomic_write of a byte string.
void atomic_write_file(const std::filesystem::path& target, std::string_view bytes);

// Progress of a write: bytes written so far, of `total`.
using WriteProgress = std::function<void(size_t written, size_t total)>;

// The same in chunks of kWriteChunk bytes with a cancellation check before each (a cancel throws
// ff::Cancelled and leaves no file: the temporary is removed) and `progress` after each, so a
// large file (a PNG of a big image, a model) answers a cancel within a moment.
inline constexpr size_t kWriteChunk = size_t(8) << 20;
void atomic_write_file(const std::filesystem::path& target, std::string_view bytes, const Node& node,
                       const WriteProgress& progress = {});

// The same, stopped by `stop` (checked before each chunk) rather than by a node: for writes on a
// thread of their own (ff::Cancelled, and no file).
void atomic_write_file(const std::filesystem::path& target, std::string_view bytes,
                       const std::function<bool()>& stop);

// A file for atomic_write_files: its target and its content.
struct FileBytes {
    std::filesystem::path target;
    std::string_view bytes;
};

// atomic_write_file of several files at once, each but the first on a thread of its own, so
// that their flushes to disk overlap (one journal commit can carry them all: a report's page
// and its thumbnail and metrics, a snapshot's two pictures). Each write runs to its end or its
// own failure; `stop` is checked before each chunk as above; the first error is rethrown.
void atomic_write_files(const std::vector<FileBytes>& files,
                        const std::function<bool()>& stop = [] { return false; });

} // namespace ff::nodes
