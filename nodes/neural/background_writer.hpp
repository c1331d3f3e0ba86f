// Encodes and writes files on a background thread, one job at a time, so that a training loop does
// not wait for PNG encoding and the disk: each snapshot costs the loop only its render.
#pragma once

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

    // Waits for the previous job (rethrowing its error), then starts `encode` and the atomic
    // writes of the files it returns.
    void post(Encode encode);
    // Waits for the job in flight; rethrows its error.
    void finish();

private:
    struct State;
    std::shared_ptr<State> state_;
};

} // namespace ff::neural
