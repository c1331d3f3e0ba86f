// Text for people: paragraphs wrapped to the terminal, and a command's option table written as
// `-j, --jobs N    nodes run at the same time (default: ...)` instead of Boost's raw format.
#pragma once

#include <boost/program_options.hpp>

#include <cstdio>
#include <string>
#include <vector>

namespace fieldflow::host {

// Columns to wrap to: the terminal's width when `out` is one (at most 100, for readable lines),
// else $COLUMNS, else 80.
size_t text_width(FILE* out);

// Re-flows `text` to `width` columns: a single newline is a space, an empty line separates
// paragraphs, a line starting with spaces is kept as it is (examples). Continuation lines of a
// paragraph are indented by `indent` spaces, the first line by `first_indent`.
std::string wrap_text(const std::string& text, size_t width, size_t indent = 0, size_t first_indent = 0);

// What one option looks like to a person and to the completion and man page generators.
struct OptionRow {
    std::string long_name;  // "jobs"
    char short_name = 0;    // 'j', or 0
    std::string value_name; // "N", or "" for a flag
    std::string default_text; // "auto", or ""
    std::string description;
    std::string names() const; // "-j, --jobs N"
};

// The options of `options` in declaration order, leaving out `positional` names.
std::vector<OptionRow> option_rows(const boost::program_options::options_description& options,
                                   const boost::program_options::positional_options_description& positional);

// "  -j, --jobs N        nodes run at ... (default: 4)" rows, the description column wrapped.
std::string format_option_rows(const std::vector<OptionRow>& rows, size_t width);

} // namespace fieldflow::host
