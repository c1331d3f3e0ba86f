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

// "" when `path` is a regular file (checked on a descriptor opened without blocking, so a FIFO
// never hangs the check), else why not, as words that follow the file's name (as above). A path
// that cannot be opened gives "" too: the caller's own open says why.
std::string regular_file_problem(const std::string& path);

} // namespace fieldflow::host
