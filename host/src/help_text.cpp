#include <fieldflow/host/help_text.hpp>

#include <sys/ioctl.h>
#include <unistd.h>

#include <algorithm>
#include <cstdlib>
#include <sstream>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

constexpr size_t kMaxWidth = 100;

// Appends the words of one paragraph, wrapped.
void wrap_paragraph(const std::string& paragraph, size_t width, size_t indent, size_t first_indent,
                    std::string& out) {
    std::istringstream words(paragraph);
    size_t column = first_indent;
    out += std::string(first_indent, ' ');
    bool line_empty = true;
    for (std::string word; words >> word;) {
        if (!line_empty && column + 1 + word.size() > width) {
            out += "\n" + std::string(indent, ' ');
            column = indent;
            line_empty = true;
        }
        if (!line_empty) {
            out += ' ';
            ++column;
        }
        out += word;
        column += word.size();
        line_empty = false;
    }
}

// A name for an option's value when the table gives none ("arg" in Boost's words).
std::string value_name_for(const po::option_description& option) {
    auto typed = boost::dynamic_pointer_cast<const po::typed_value_base>(option.semantic());
    if (!typed) return "VALUE";
    const std::type_info& t = typed->value_type();
    if (t == typeid(unsigned) || t == typeid(int) || t == typeid(unsigned long long) ||
        t == typeid(long) || t == typeid(unsigned long))
        return "N";
    if (t == typeid(double) || t == typeid(float)) return "X";
    return "VALUE";
}

} // namespace

size_t text_width(FILE* out) {
    winsize ws{};
    if (out && ::isatty(::fileno(out)) && ::ioctl(::fileno(out), TIOCGWINSZ, &ws) == 0 && ws.ws_col > 20)
        return std::min<size_t>(ws.ws_col, kMaxWidth);
    if (const char* columns = std::getenv("COLUMNS")) {
        const long n = std::strtol(columns, nullptr, 10);
        if (n > 20) return std::min<size_t>(size_t(n), kMaxWidth);
    }
    return 80;
}

std::string wrap_text(const std::string& text, size_t width, size_t indent, size_t first_indent) {
    std::string out;
    std::istringstream lines(text);
    std::string paragraph;
    bool first = true;
    auto flush = [&] {
        if (paragraph.empty()) return;
        if (!out.empty()) out += '\n';
        wrap_paragraph(paragraph, width, indent, first ? first_indent : indent, out);
        first = false;
        paragraph.clear();
    };
    for (std::string line; std::getline(lines, line);) {
        if (line.empty()) {
            flush();
            out += '\n';
        } else if (line[0] == ' ') { // kept as written: examples, tables
            flush();
            if (!out.empty()) out += '\n';
            out += std::string(indent, ' ') + line;
            first = false;
        } else {
            paragraph += (paragraph.empty() ? "" : " ") + line;
        }
    }
    flush();
    return out;
}

std::string OptionRow::names() const {
    std::string text = short_name ? std::string("-") + short_name + ", " : std::string();
    text += "--" + long_name;
    if (!value_name.empty()) text += " " + value_name;
    return text;
}

std::vector<OptionRow> option_rows(const po::options_description& options,
                                   const po::positional_options_description& positional) {
    std::vector<std::string> positional_names;
    for (unsigned i = 0; i < positional.max_total_count() && i < 8; ++i)
        positional_names.push_back(positional.name_for_position(i));
    std::vector<OptionRow> rows;
    for (const auto& option : options.options()) {
        const std::string& name = option->long_name();
        if (std::find(positional_names.begin(), positional_names.end(), name) != positional_names.end())
            continue;
        OptionRow row;
        row.long_name = name;
        const std::string short_form = option->canonical_display_name(po::command_line_style::allow_dash_for_short);
        if (short_form.size() == 2 && short_form[0] == '-') row.short_name = short_form[1];
        row.description = option->description();
        if (option->semantic()->max_tokens() > 0) {
            std::string value = option->semantic()->name();
            if (const size_t at = value.find(" (="); at != std::string::npos && value.back() == ')') {
                row.default_text = value.substr(at + 3, value.size() - at - 4);
                value.resize(at);
            }
            row.value_name = value == "arg" ? value_name_for(*option) : value;
        }
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string format_option_rows(const std::vector<OptionRow>& rows, size_t width) {
    size_t column = 0;
    for (const OptionRow& row : rows) column = std::max(column, row.names().size());
    column = std::min<size_t>(column, 26) + 4; // longer names put their text on the next line
    std::string out;
    for (const OptionRow& row : rows) {
        std::string text = row.description;
        if (!row.default_text.empty()) text += " (default: " + row.default_text + ")";
        const std::string names = "  " + row.names();
        out += names;
        if (names.size() + 2 > column) out += "\n" + wrap_text(text, width, column, column);
        else out += std::string(column - names.size(), ' ') + wrap_text(text, width, column, column).substr(column);
        out += '\n';
    }
    return out;
}

} // namespace fieldflow::host
