// fieldflow: run, check and inspect node graphs. Everything lives in ff_host; see host/src/cli.cpp.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/interrupt.hpp>

#include <unistd.h>

#include <cstdio>
#include <iostream>

// Sanitizer builds end the normal way: LeakSanitizer's check runs from the exit handlers.
#if defined(__SANITIZE_ADDRESS__)
#define FF_EXIT_HANDLERS_WANTED 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FF_EXIT_HANDLERS_WANTED 1
#endif
#endif
#ifndef FF_EXIT_HANDLERS_WANTED
#define FF_EXIT_HANDLERS_WANTED 0
#endif

int main(int argc, char** argv) {
    const int code = fieldflow::host::run_cli(argc, argv);
    // The process ends here and now, without exit()'s static destructors and libraries' exit
    // handlers. Nothing is owed at exit but the buffered output: files are written under
    // temporary names and renamed, and the commands' own cleanup (the batch lock, the progress
    // display, the nodes' writer threads) has run by now. What exit() would add is teardown:
    // the ~140 libraries Debian's OpenCV loads and the Vulkan driver's handlers, a measurable
    // part of a short job's wall time (bench/archive/RESULTS.md, "the small hash config over 20
    // seeds on both kernel paths").
    // An interrupted run needs this most: a cancelled node may have left a call running that
    // cannot be stopped part-way (an image decode or encode, a GPU render:
    // nodes/common/cancellable_call.hpp), and the Vulkan driver's handler (Mesa's) joins its
    // queue threads, that is, waits for the render to end.
    std::cout.flush();
    std::fflush(nullptr);
    if (!FF_EXIT_HANDLERS_WANTED || fieldflow::host::interrupt_exit_code() != 0) ::_exit(code);
    return code;
}
