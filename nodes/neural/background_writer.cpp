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
    for (const std::shared_ptr<State>& state : jobs_) {
        std::unique_lock lock(state->mutex);
        state->stop = true;
        state->changed.wait(lock, [&] { return !state->writing; });
    }
}

void BackgroundWriter::post(Encode encode) {
    // Finished jobs leave the queue (their errors surface here), and a full queue waits for its oldest.
    while (!jobs_.empty()) {
        bool done = false;
        {
            std::lock_guard lock(jobs_.front()->mutex);
            done = jobs_.front()->done;
        }
        if (!done && jobs_.size() < kMaxJobs) break;
        wait_oldest();
    }
    auto state = std::make_shared<State>();
    jobs_.push_back(state);
    std::thread([state, encode = std::move(encode)] {
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
            if (write) {
                std::vector<ff::nodes::FileBytes> writes;
                for (const EncodedFile& file : files) writes.push_back({file.path, file.bytes});
                ff::nodes::atomic_write_files(writes, stopped);
            }
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

void BackgroundWriter::wait_oldest() {
    std::shared_ptr<State> state = std::move(jobs_.front());
    jobs_.pop_front();
    std::unique_lock lock(state->mutex);
    state->changed.wait(lock, [&] { return state->done; });
    if (state->error) std::rethrow_exception(state->error);
}

void BackgroundWriter::finish() {
    while (!jobs_.empty()) wait_oldest();
}

} // namespace ff::neural
