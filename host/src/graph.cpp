#include <fieldflow/host/graph.hpp>

namespace fieldflow::host {

const ResolvedParam* PlannedNode::param(std::string_view name) const {
    for (const ResolvedParam& p : params)
        if (p.info->name == name) return &p;
    return nullptr;
}

const InputEdge* PlannedNode::input(std::string_view port) const {
    for (const InputEdge& e : inputs)
        if (e.port == port) return &e;
    return nullptr;
}

long Graph::find(std::string_view name) const {
    for (size_t i = 0; i < nodes.size(); ++i)
        if (nodes[i].name == name) return long(i);
    return -1;
}

} // namespace fieldflow::host
