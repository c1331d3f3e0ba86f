#include <fieldflow/host/interrupt.hpp>

#include <csignal>
#include <unistd.h>

namespace fieldflow::host {
namespace {

std::atomic<bool> g_cancel{false};
std::atomic<int> g_signal{0};
static_assert(std::atomic<bool>::is_always_lock_free && std::atomic<int>::is_always_lock_free,
              "the handler relies on lock-free atomics");

extern "C" void on_interrupt(int sig) {
    if (g_cancel.load() && sig == SIGINT) ::_exit(128 + SIGINT); // second Ctrl-C: at once
    int expected = 0;
    g_signal.compare_exchange_strong(expected, sig);
    g_cancel.store(true);
}

} // namespace

const std::atomic<bool>& install_interrupt_handlers() {
    static const bool installed = [] {
        struct sigaction action {};
        action.sa_handler = on_interrupt;
        sigemptyset(&action.sa_mask);
        action.sa_flags = 0; // no SA_RESTART: blocking waits return and see the flag
        sigaction(SIGINT, &action, nullptr);
        sigaction(SIGTERM, &action, nullptr);
        return true;
    }();
    (void)installed;
    return g_cancel;
}

int interrupt_signal() { return g_signal.load(); }

int interrupt_exit_code() {
    const int sig = g_signal.load();
    return sig ? 128 + sig : 0;
}

} // namespace fieldflow::host
