// libFuzzer target for the graph-file loader (built with -DFIELDFLOW_FUZZ=ON and clang):
//   ff_fuzz_graph_file -max_total_time=60 CORPUS_DIR
// Input: YAML/JSON graph text, optionally followed by a NUL byte and `--set` arguments, one per
// line. The loader (parse, variables, validation against two in-process ops covering every param
// kind) must either build a graph or report positioned errors; a crash, a sanitizer report, an
// escaping exception, or a result that contradicts its diagnostics is a bug.
#include <fieldflow/host/validate.hpp>

#include <cstdint>
#include <cstdlib>
#include <string>

namespace {

namespace fh = fieldflow::host;

fh::ParamInfo param(const char* name, ff_param_kind kind, double min = 0, double max = 0) {
    fh::ParamInfo p;
    p.name = name;
    p.kind = kind;
    p.has_range = min != max;
    p.min = min;
    p.max = max;
    if (kind == FF_PARAM_ENUM) p.choices = {"nearest", "linear", "area"};
    return p;
}

fh::PortInfo port(const char* name, const char* type, bool optional = false) {
    fh::PortInfo p;
    p.name = name;
    p.type = type;
    p.optional = optional;
    return p;
}

const fh::OpRegistry& registry() {
    static const fh::OpRegistry reg = [] {
        fh::OpInfo source;
        source.name = "Source";
        source.category = "fuzz";
        source.outputs = {port("image", "image"), port("stats", "json")};
        source.params = {param("path", FF_PARAM_STRING),
                         param("steps", FF_PARAM_INT, 1, 1e6),
                         param("lr", FF_PARAM_FLOAT, 1e-8, 10),
                         param("flag", FF_PARAM_BOOL),
                         param("mode", FF_PARAM_ENUM),
                         param("size", FF_PARAM_INT_LIST, 0, 65536),
                         param("labels", FF_PARAM_STRING_LIST)};
        fh::OpInfo sink;
        sink.name = "Sink";
        sink.category = "fuzz";
        sink.inputs = {port("image", "image"), port("extra", "any", true)};
        sink.outputs = {port("image", "image")};
        sink.params = {param("path", FF_PARAM_STRING)};
        fh::OpRegistry r;
        if (!r.add({source, sink}).empty()) std::abort();
        return r;
    }();
    return reg;
}

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
    std::string input(reinterpret_cast<const char*>(data), size);
    std::string text = input.substr(0, input.find('\0'));
    fh::VarOverrides sets;
    if (text.size() < input.size()) {
        std::string rest = input.substr(text.size() + 1);
        size_t start = 0;
        while (start <= rest.size()) {
            size_t end = rest.find('\n', start);
            if (end == std::string::npos) end = rest.size();
            if (auto set = fh::parse_set_argument(rest.substr(start, end - start))) sets.push_back(*set);
            start = end + 1;
        }
    }
    fh::Diagnostics diags("fuzz.yaml");
    std::optional<fh::Graph> graph = fh::load_graph_text(text, sets, registry(), diags);
    // A graph is built exactly when nothing was reported, and every report has a real position.
    if (graph.has_value() != diags.empty()) std::abort();
    for (const fh::Diagnostic& d : diags.sorted())
        if (d.pos.line < 1 || d.pos.column < 1 || d.message.empty()) std::abort();
    (void)diags.format();
    return 0;
}
