// Errors found in a graph file, each tied to a position: `FILE:LINE:COL: error: MESSAGE`.
#pragma once

#include <string>
#include <vector>

namespace fieldflow::host {

// 1-based line and column, as shown to the user.
struct SourcePos {
    int line = 1;
    int column = 1;
    bool operator==(const SourcePos&) const = default;
};

struct Diagnostic {
    std::string file;
    SourcePos pos;
    std::string message;
    bool warning = false;       // a warning does not stop the graph (Graph::warnings)
    bool note = false;          // information only (Graph::notes)
    std::string format() const; // "FILE:LINE:COL: error: MESSAGE" (or "warning: ", "note: ")
};

// Collects every error of one file, so that all of them are reported, not just the first.
class Diagnostics {
public:
    explicit Diagnostics(std::string file = {}) : file_(std::move(file)) {}

    void error(SourcePos pos, std::string message);
    bool empty() const { return items_.empty(); }
    size_t size() const { return items_.size(); }
    const std::string& file() const { return file_; }
    void set_file(std::string file) { file_ = std::move(file); }

    // Sorted by position (stable), so the output reads top to bottom like the file.
    std::vector<Diagnostic> sorted() const;
    // All diagnostics, formatted, one per line.
    std::string format() const;

private:
    std::string file_;
    std::vector<Diagnostic> items_;
};

} // namespace fieldflow::host
