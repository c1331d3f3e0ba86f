// One long call that cannot be stopped part-way (an image decode or encode in OpenCV, a GPU render
// and its read-back), made so that the node still answers a cancel within a moment: the call runs
// on a thread of its own while the node's thread polls Node::cancelled() every kPollInterval. On a
// cancel the node throws ff::Cancelled at once and the call is abandoned: it runs to its end on
// its own thread and its result is dropped. The fieldflow CLI ends an interrupted run with _exit,
// so an abandoned call never delays the exit (host/main.cpp).
//
// Rules for the call, because it may outlive the node's execute():
//  - it owns everything it reads (capture by value: cv::Mat, std::vector, engine handles): the
//    node's inputs and stack are gone once the node has returned;
//  - it has no effect but its result: no files (write them afterwards, from the result, on the
//    node's thread) and no writes into the node's outputs.
#pragma once

#include <fieldflow/node.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

namespace ff::nodes {

inline constexpr std::chrono::milliseconds kPollInterval{25};

// Called on the node's thread about every kPollInterval while the call runs, with the seconds
// since it started (for progress: "decoding, 3 s").
using WaitingFn = std::function<void(double seconds)>;

// Runs `call` as described above; returns when it has finished, rethrowing what it threw; throws
// ff::Cancelled when the node is cancelled first (also when it already is: the call never starts).
void call_cancellable(const Node& node, std::function<void()> call, const WaitingFn& waiting = {});

// The same for a call with a result.
template <class Call>
auto call_cancellable_result(const Node& node, Call call, const WaitingFn& waiting = {}) {
    using Result = decltype(call());
    // Shared with the call, which may outlive this frame; only read here once the call is done.
    auto result = std::make_shared<std::optional<Result>>();
    call_cancellable(node, [result, call = std::move(call)]() mutable { result->emplace(call()); },
                     waiting);
    return std::move(**result);
}

// Calls still running after their node stopped waiting for them.
int abandoned_calls();

// Waits until no abandoned call is running (for tests; a process that exits never waits).
void wait_for_abandoned_calls();

} // namespace ff::nodes
