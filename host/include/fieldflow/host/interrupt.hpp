// SIGINT/SIGTERM during a run: the first one sets the cancelled flag (nodes poll it, the
// scheduler starts nothing new); a second SIGINT exits at once.
#pragma once

#include <atomic>

namespace fieldflow::host {

// Installs the handlers (idempotent) and returns the flag they set.
const std::atomic<bool>& install_interrupt_handlers();

// The signal that set the flag (SIGINT or SIGTERM), or 0.
int interrupt_signal();

// 130 for SIGINT, 143 for SIGTERM (128 + signal), 0 if not interrupted.
int interrupt_exit_code();

} // namespace fieldflow::host
