// Reading a whole file without trusting what is at its path: a folder, a FIFO (which would block
// the reader), a device or a socket is refused, saying what it is, instead of throwing from deep
// inside a stream or hanging.
#pragma once

#include <cstddef>
#include <limits>
#include <string>

namespace fieldflow::host {

enum class ReadStatus { ok, missing, failed };

// Reads the regular file at `path` into `data`. `missing`: nothing at the path; `failed`: `error`
// says why, as words that follow the file's name: "is a folder, not a file", "is a FIFO (named
// pipe), not a file", "cannot be read: <the system's reason>", or that it is larger than
// `max_bytes`.
ReadStatus read_regular_file(const std::string& path, std::string& data, std::string& error,
                             size_t max_bytes = std::numeric_limits<size_t>::max());

} // namespace fieldflow::host
