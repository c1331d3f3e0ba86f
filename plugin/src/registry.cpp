// Registry: the ops a plugin library declared with FF_NODE, gathered at load time, and the
// ff_plugin_info the exported entry point returns.
#include <fieldflow/node.hpp>

#include <mutex>

namespace ff {

Registry& Registry::instance() {
    // A function-local static: constructed on first use, so FF_NODE registrations in any
    // translation unit (whatever their static-initialisation order) find it ready.
    static Registry registry;
    return registry;
}

OpBuilder& Registry::add(OpBuilder builder) {
    // std::deque keeps existing elements in place on emplace_back, so each builder's address,
    // and with it every pointer its decl holds, stays stable.
    OpBuilder& stored = ops_.emplace_back(std::move(builder));
    decls_.push_back(stored.decl());
    return stored;
}

const ff_plugin_info* Registry::info(const char* plugin_name, const char* plugin_version) {
    // The entry point may be called more than once, possibly from several threads.
    static std::mutex mutex;
    std::lock_guard lock(mutex);
    info_.struct_size = sizeof(ff_plugin_info);
    info_.abi_major = FF_ABI_MAJOR;
    info_.abi_minor = FF_ABI_MINOR;
    info_.name = plugin_name;
    info_.version = plugin_version;
    info_.ops = decls_.empty() ? nullptr : decls_.data();
    info_.op_count = uint32_t(decls_.size());
    return &info_;
}

} // namespace ff
