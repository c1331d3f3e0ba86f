#include "cancellable_call.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>

namespace ff::nodes {
namespace {

using Clock = std::chrono::steady_clock;

// The count of abandoned calls still running, for tests that must not unload the plugin under one.
std::mutex g_abandoned_mutex;
std::condition_variable g_abandoned_done;
int g_abandoned = 0;

// What the node's thread and the call's thread share; it lives as long as either holds it.
struct CallState {
    std::mutex mutex;
    std::condition_variable finished_signal;
    bool finished = false;
    bool abandoned = false;
    std::exception_ptr error;
};

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
    {
        std::lock_guard lock(g_abandoned_mutex);
        --g_abandoned;
    }
    g_abandoned_done.notify_all();
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
    worker.detach();

    const Clock::time_point start = Clock::now();
    std::unique_lock lock(state->mutex);
    while (!state->finished) {
        if (node.cancelled()) {
            state->abandoned = true;
            {
                // Counted before the call can see it was abandoned, so the count never dips below 0.
                std::lock_guard count(g_abandoned_mutex);
                ++g_abandoned;
            }
            throw Cancelled(); // unlocks

        }
        state->finished_signal.wait_for(lock, kPollInterval);
        if (waiting && !state->finished) {
            lock.unlock(); // the callback talks to the host; the call may finish meanwhile
            waiting(std::chrono::duration<double>(Clock::now() - start).count());
            lock.lock();
        }
    }
    if (state->error) std::rethrow_exception(state->error);
}

int abandoned_calls() {
    std::lock_guard lock(g_abandoned_mutex);
    return g_abandoned;
}

void wait_for_abandoned_calls() {
    std::unique_lock lock(g_abandoned_mutex);
    g_abandoned_done.wait(lock, [] { return g_abandoned == 0; });
}

} // namespace ff::nodes
