// fieldflow: run, check and inspect node graphs. Everything lives in ff_host; see host/src/cli.cpp.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/interrupt.hpp>

#include <unistd.h>

#include <cstdio>

int main(int argc, char** argv) {
    const int code = fieldflow::host::run_cli(argc, argv);
    // An interrupted run ends here and now. A cancelled node may have left a call running that
    // cannot be stopped part-way (an image decode or encode, a GPU render:
    // nodes/common/cancellable_call.hpp); exit() would run static destructors and the libraries'
    // exit handlers under it, and the Vulkan driver's handler (Mesa's) joins its queue threads,
    // that is, waits for the render to end. Nothing is owed at exit but the buffered output: files
    // are written under temporary names and renamed, and the commands' own cleanup (the batch
    // lock, the progress display) has run by now.
    if (fieldflow::host::interrupt_exit_code() != 0) {
        std::fflush(nullptr);
        ::_exit(code);
    }
    return code;
}
