#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/param_conditions.hpp>

#include <cstring>

namespace fieldflow::host {
namespace {

// Params hash by kind and value (not by how they were written): `3` and `3.0` for a float param,
// or an explicit default and an omitted one, give the same key.
void hash_param(Hasher& h, const ResolvedParam& p) {
    h.text(p.info->name).u64(p.info->kind).u64(p.value.index());
    struct Visitor {
        Hasher& h;
        void operator()(int64_t v) const { h.u64(uint64_t(v)); }
        void operator()(double v) const {
            if (v == 0.0) v = 0.0; // -0.0 and 0.0 are the same param
            uint64_t bits;
            static_assert(sizeof bits == sizeof v);
            std::memcpy(&bits, &v, sizeof bits);
            h.u64(bits);
        }
        void operator()(bool v) const { h.u64(v ? 1 : 0); }
        void operator()(const std::string& v) const { h.text(v); }
        void operator()(const std::vector<int64_t>& v) const {
            h.u64(v.size());
            for (int64_t x : v) h.u64(uint64_t(x));
        }
        void operator()(const std::vector<std::string>& v) const {
            h.u64(v.size());
            for (const std::string& x : v) h.text(x);
        }
    };
    std::visit(Visitor{h}, p.value);
}

} // namespace

Hash128 node_key(const PlannedNode& node, const InputKeys& inputs) {
    const OpInfo& op = *node.op;
    Hasher h;
    // v2: params that only set a cadence are left out, side-output paths count only as set/unset.
    // v3: params that do not apply to the node's values (applies_when) are left out.
    h.text("fieldflow node key v3");
    h.text(op.name).u64(op.version).text(op.plugin_name).text(op.plugin_version);
    const ParamLookup value_of = [&](std::string_view name) {
        const ResolvedParam* p = node.param(name);
        return p ? &p->value : nullptr;
    };
    for (const ResolvedParam& p : node.params) {
        if (p.info->flags & FF_PARAM_NOT_IN_KEY) continue;
        if (!param_applies(*p.info, value_of)) continue;
        if (p.info->flags & FF_PARAM_SIDE_OUTPUT) {
            const auto* path = std::get_if<std::string>(&p.value);
            h.text(p.info->name).text(path && !path->empty() ? "side output: set" : "side output: unset");
            continue;
        }
        hash_param(h, p);
    }
    h.u64(inputs.size());
    for (const auto& [port, key] : inputs) h.text(port).hash(key);
    return h.finish();
}

Hash128 output_key(const Hash128& node_key, const std::string& port) {
    Hasher h;
    h.text("fieldflow output key v1").hash(node_key).text(port);
    return h.finish();
}

} // namespace fieldflow::host
