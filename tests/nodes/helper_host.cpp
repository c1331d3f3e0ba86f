#include "helper_host.hpp"

namespace ff::test {

ff::Node HelperHost::node() {
    static const ff_host_api api = [] {
        ff_host_api t{};
        t.struct_size = sizeof(ff_host_api);
        t.abi_major = FF_ABI_MAJOR;
        t.abi_minor = FF_ABI_MINOR;
        t.cancelled = [](ff_context* ctx) -> int32_t {
            return reinterpret_cast<HelperHost*>(ctx)->cancel.load() ? 1 : 0;
        };
        t.progress = [](ff_context* ctx, uint64_t, uint64_t, const char* detail) {
            HelperHost* host = reinterpret_cast<HelperHost*>(ctx);
            host->details.emplace_back(detail ? detail : "");
            if (!host->cancel_at.empty() && host->details.back().rfind(host->cancel_at, 0) == 0)
                host->cancel = true;
        };
        return t;
    }();
    return ff::Node(&api, reinterpret_cast<ff_context*>(this));
}

} // namespace ff::test
