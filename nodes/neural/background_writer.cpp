#include "background_writer.hpp"

#include "common/atomic_write.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>

namespace ff::neural {

struct BackgroundWriter::State {
    std::mutex mutex;
    std::condition_variable changed;
    bool stop = false;    // the owner gave up on the job: write nothing more
    bool writing = false; // between the encode and the last rename
    bool done = false;
    std::exception_ptr error;
};

BackgroundWriter::~BackgroundWriter() {
    if (!state_) return;
    std::unique_lock lock(state_->mutex);
    state_->stop = true;
    state_->changed.wait(lock, [&] { return !state_->writing; });
}

void BackgroundWriter::post(Encode encode) {
    finish();
    state_ = std::make_shared<State>();
    std::thread([state = state_, encode = std::move(encode)] {
        std::exception_ptr error;
        try {
            const std::vector<EncodedFile> files = encode();
            bool write = false;
            {
                std::lock_guard lock(state->mutex);
                write = state->writing = !state->stop; // given up while encoding: nothing is written
            }
            const auto stopped = [&] {
                std::lock_guard lock(state->mutex);
                return state->stop;
            };
            if (write)
                for (const EncodedFile& file : files) ff::nodes::atomic_write_file(file.path, file.bytes, stopped);
        } catch (...) {
            error = std::current_exception();
        }
        std::lock_guard lock(state->mutex);
        state->error = error;
        state->writing = false;
        state->done = true;
        state->changed.notify_all();
    }).detach();
}

void BackgroundWriter::finish() {
    if (!state_) return;
    std::shared_ptr<State> state = std::move(state_);
    std::unique_lock lock(state->mutex);
    state->changed.wait(lock, [&] { return state->done; });
    if (state->error) std::rethrow_exception(state->error);
}

} // namespace ff::neural
