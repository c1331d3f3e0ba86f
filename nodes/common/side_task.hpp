// A part of a node's work that needs nothing from the rest of it (a figure of an input image, say),
// run on a thread of its own beside the rest, so that a node with several such parts takes as long
// as its longest, not as their sum.
//
// The work is called with a stop check (`bool stop_requested()`) and returns its result; get()
// waits for it and returns it, rethrowing what the work threw. Leaving scope without get() (the
// node failed or was cancelled) asks the work to stop at its next check and waits for it, so
// nothing the work reads by reference goes away under it: declare what it reads before the task.
// Unlike call_cancellable (cancellable_call.hpp) the work is never abandoned: it must check often
// enough for the node to answer a cancel in time.
#pragma once

#include <exception>
#include <functional>
#include <optional>
#include <stop_token>
#include <thread>
#include <utility>

namespace ff::nodes {

using StopRequested = std::function<bool()>;

template <class Result>
class SideTask {
public:
    // `work`: Result(const StopRequested&), started at once.
    template <class Work>
    explicit SideTask(Work work)
        : thread_([this, work = std::move(work)](std::stop_token stop) mutable {
              try {
                  result_.emplace(work(StopRequested([stop] { return stop.stop_requested(); })));
              } catch (...) {
                  error_ = std::current_exception();
              }
          }) {}

    SideTask(const SideTask&) = delete;
    SideTask& operator=(const SideTask&) = delete;

    // Waits for the work; its result, or what it threw. Once.
    Result get() {
        thread_.join();
        if (error_) std::rethrow_exception(error_);
        return std::move(*result_);
    }

private:
    std::optional<Result> result_;
    std::exception_ptr error_;
    std::jthread thread_; // last: asked to stop and joined before the members above are destroyed
};

} // namespace ff::nodes
