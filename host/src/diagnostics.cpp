#include <fieldflow/host/diagnostics.hpp>

#include <algorithm>

namespace fieldflow::host {

std::string Diagnostic::format() const {
    return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column) +
           (note ? ": note: " : warning ? ": warning: " : ": error: ") + message;
}

void Diagnostics::error(SourcePos pos, std::string message) {
    items_.push_back({file_, pos, std::move(message)});
}

std::vector<Diagnostic> Diagnostics::sorted() const {
    std::vector<Diagnostic> out = items_;
    std::stable_sort(out.begin(), out.end(), [](const Diagnostic& a, const Diagnostic& b) {
        if (a.pos.line != b.pos.line) return a.pos.line < b.pos.line;
        return a.pos.column < b.pos.column;
    });
    return out;
}

std::string Diagnostics::format() const {
    std::string out;
    for (const Diagnostic& d : sorted()) out += d.format() + "\n";
    return out;
}

} // namespace fieldflow::host
