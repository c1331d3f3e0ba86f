// A host that answers only cancelled() and progress(): enough to run the node helpers
// (nodes/common, nodes/io) in this test binary, outside a plugin. Progress details are recorded;
// the cancel flag rises when a test sets it, or at the first progress report whose detail starts
// with `cancel_at` (empty: never).
#pragma once

#include <fieldflow/node.hpp>

#include <atomic>
#include <string>
#include <vector>

namespace ff::test {

struct HelperHost {
    std::atomic<bool> cancel{false};
    std::string cancel_at;
    std::vector<std::string> details;

    ff::Node node();
};

} // namespace ff::test
