// Encodes and writes files on background threads, a few jobs at a time, so that a training loop does
// not wait for PNG encoding and the disk: each snapshot costs the loop only its render, also where
// snapshots follow each other closely (steps 1, 10 and 100 take a fraction of a millisecond).
#pragma once

#include <cstddef>
#include <deque>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace ff::neural {

struct EncodedFile {
    std::filesystem::path path;
    std::string bytes;
};

class BackgroundWriter {
public:
    using Encode = std::function<std::vector<EncodedFile>()>;

    BackgroundWriter() = default;
    BackgroundWriter(const BackgroundWriter&) = delete;
    BackgroundWriter& operator=(const BackgroundWriter&) = delete;
    // Stops a job that was not finished (an error or a cancel ended the owner's work): one still
    // encoding writes nothing, one writing stops at its next chunk and removes its temporary file.
    // Waits only for the writing (never half a file on disk, even if the process exits next), not
    // for an encode, which may take seconds on a large image; that thread ends on its own.
    ~BackgroundWriter();

    // Starts `encode` and the atomic writes of the files it returns. With kMaxJobs jobs in
    // flight it first waits for the oldest; a finished job's error is rethrown here.
    void post(Encode encode);
    // Waits for every job in flight; rethrows the first error.
    void finish();

    // Jobs in flight at most: each holds its images (previews of bounded size) until written.
    static constexpr std::size_t kMaxJobs = 4;

private:
    struct State;
    void wait_oldest(); // waits for the oldest job and rethrows its error
    std::deque<std::shared_ptr<State>> jobs_;
};

} // namespace ff::neural
