#include "cancellable_call.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ff::nodes {
namespace {

using Clock = std::chrono::steady_clock;

// The count of abandoned calls still running, for tests that must not unload the plugin under
// one. Never destroyed: an abandoned call may end while the process runs its static destructors.
struct AbandonedCalls {
    std::mutex mutex;
    std::condition_variable none_left;
    int count = 0;
};
AbandonedCalls& abandoned() {
    static AbandonedCalls& calls = *new AbandonedCalls();
    return calls;
}

// What the node's thread and the call's thread share; it lives as long as either holds it.
struct CallState {
    std::mutex mutex;
    std::condition_variable finished_signal;
    bool finished = false;
    bool abandoned = false;
    std::exception_ptr error;
};

// Runs on the call's thread when the call has ended.
void finish(CallState& state, std::exception_ptr error) {
    bool was_abandoned = false;
    {
        std::lock_guard lock(state.mutex);
        state.finished = true;
        state.error = std::move(error);
        was_abandoned = state.abandoned;
    }
    state.finished_signal.notify_all();
    if (!was_abandoned) return;
    AbandonedCalls& calls = abandoned();
    {
        std::lock_guard lock(calls.mutex);
        --calls.count;
    }
    calls.none_left.notify_all();
}

// Leaves the call to end on its own thread, unless it has ended already (then its thread is
// joined: it is only returning). Counted before the call can see it was abandoned.
void let_go(std::thread& worker, CallState& state) {
    {
        std::lock_guard lock(state.mutex);
        if (!state.finished) {
            state.abandoned = true;
            std::lock_guard count(abandoned().mutex);
            ++abandoned().count;
        }
    }
    if (state.abandoned) worker.detach();
    else worker.join();
}

} // namespace

void call_cancellable(const Node& node, std::function<void()> call, const WaitingFn& waiting) {
    node.throw_if_cancelled();
    auto state = std::make_shared<CallState>();
    std::thread worker;
    try {
        worker = std::thread([state, call = std::move(call)]() mutable {
            std::exception_ptr error;
            try {
                call();
            } catch (...) {
                error = std::current_exception();
            }
            call = nullptr; // what the call owns is released before anyone hears it finished
            finish(*state, std::move(error));
        });
    } catch (const std::system_error&) {
        // No thread to be had (a process at its thread limit): the call runs here, uncancellable.
        call();
        return;
    }

    // Any way out of here but the call's end (a cancel, a throwing callback) lets the call go.
    struct LetGo {
        std::thread& worker;
        CallState& state;
        bool armed = true;
        ~LetGo() {
            if (armed) let_go(worker, state);
        }
    } guard{worker, *state};

    const Clock::time_point start = Clock::now();
    std::unique_lock lock(state->mutex);
    while (!state->finished) {
        if (node.cancelled()) {
            lock.unlock();
            throw Cancelled();
        }
        state->finished_signal.wait_for(lock, kPollInterval);
        if (waiting && !state->finished) {
            lock.unlock(); // the callback talks to the host; the call may finish meanwhile
            waiting(std::chrono::duration<double>(Clock::now() - start).count());
            lock.lock();
        }
    }
    lock.unlock();
    guard.armed = false;
    // Joined, not left running: the thread only has to return, and it must not still be running
    // code of this library when the process exits or the library is unloaded.
    worker.join();
    if (state->error) std::rethrow_exception(state->error);
}

int abandoned_calls() {
    std::lock_guard lock(abandoned().mutex);
    return abandoned().count;
}

void wait_for_abandoned_calls() {
    AbandonedCalls& calls = abandoned();
    std::unique_lock lock(calls.mutex);
    calls.none_left.wait(lock, [&] { return calls.count == 0; });
}

} // namespace ff::nodes
