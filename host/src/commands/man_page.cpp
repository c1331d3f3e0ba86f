// `fieldflow man`: the fieldflow(1) manual page in roff, generated from the same command texts
// and option tables as `fieldflow help`; the install rules install it as man1/fieldflow.1.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/help_text.hpp>

#include <cstdio>
#include <sstream>
#include <string>

namespace fieldflow::host {
namespace {

// Text as roff prints it: backslashes and hyphens escaped, no line starting with a control
// character, an empty line a paragraph break and an indented line kept as it is (examples).
std::string roff(const std::string& text) {
    std::string out;
    bool line_start = true;
    for (char c : text) {
        if (line_start && (c == '.' || c == '\'')) out += "\\&";
        line_start = c == '\n';
        if (c == '\\') out += "\\e";
        else if (c == '-') out += "\\-";
        else out += c;
    }
    return out;
}

// The about text as roff paragraphs: an empty line starts one, and indented lines (examples)
// are kept as they are rather than filled.
std::string paragraphs(const std::string& text) {
    std::string out = ".PP\n";
    bool in_example = false;
    std::istringstream lines(text);
    for (std::string line; std::getline(lines, line);) {
        const bool example = !line.empty() && line[0] == ' ';
        if (example != in_example) out += example ? ".nf\n" : ".fi\n";
        in_example = example;
        out += line.empty() ? ".PP\n" : roff(line) + "\n";
    }
    return out + (in_example ? ".fi\n" : "");
}

std::string man_page() {
    std::string page = ".TH FIELDFLOW 1 \"\" \"fieldflow " + std::string(version()) + "\" \"User Commands\"\n"
                       ".SH NAME\nfieldflow \\- node\\-based image pipeline: graph files run on a Vulkan engine\n"
                       ".SH SYNOPSIS\n.B fieldflow\n.I COMMAND\n[\\fIOPTIONS\\fR]\n.br\n"
                       ".B fieldflow help\n[\\fICOMMAND\\fR]\n"
                       ".SH DESCRIPTION\nfieldflow validates and runs image pipelines described in YAML graph "
                       "files. Each command below has the options listed with it; \\fBfieldflow help "
                       "\\fICOMMAND\\fR prints the same text.\n"
                       ".SH COMMANDS\n";
    for (const Command& c : commands()) {
        page += ".SS " + roff(c.name) + "\n";
        if (!c.options) {
            page += roff(c.summary) + "\n";
            continue;
        }
        std::unique_ptr<CommandLine> cl = c.options();
        page += ".PP\n.nf\n" + roff(cl->usage) + "\n.fi\n" + paragraphs(cl->about);
        for (const OptionRow& r : option_rows(cl->options, cl->positional)) {
            page += ".TP\n\\fB" + roff(r.short_name ? std::string("-") + r.short_name + ", --" + r.long_name
                                                    : "--" + r.long_name) + "\\fR";
            if (!r.value_name.empty()) page += " \\fI" + roff(r.value_name) + "\\fR";
            page += "\n" + roff(r.description);
            if (!r.default_text.empty()) page += " (default: " + roff(r.default_text) + ")";
            page += "\n";
        }
    }
    page += ".SH EXIT STATUS\n0 success; 1 a node failed; 2 invalid graph or usage; 130 and 143 "
            "interrupted (SIGINT, SIGTERM).\n"
            ".SH ENVIRONMENT\n.TP\n.B FIELDFLOW_CACHE_DIR\nthe cache folder (default "
            "\\fI$XDG_CACHE_HOME/fieldflow\\fR or \\fI~/.cache/fieldflow\\fR); see \\fBfieldflow cache\\fR.\n"
            ".TP\n.B FIELDFLOW_PLUGIN_PATH\nfolders searched for plugins, separated by ':'.\n"
            ".SH FILES\n.TP\n.I <prefix>/share/fieldflow/graphs\nthe example graphs, which "
            "\\fBfieldflow run\\fR finds by name (\\fBfieldflow examples\\fR lists them).\n"
            ".SH SEE ALSO\nThe documentation installed with fieldflow, in "
            "\\fI/usr/share/fieldflow\\fR from the Debian package (\\fI<prefix>/share/fieldflow\\fR "
            "for another install prefix): README.md, and in docs/ graph\\-format.md, batch.md, "
            "plugins.md, plugins\\-sdk.md, reliability.md.\n";
    return page;
}

std::unique_ptr<CommandLine> man_table() {
    return std::make_unique<CommandLine>(
        "man", "fieldflow man",
        "Prints the fieldflow(1) manual page (roff), generated from every command's help. The "
        "install rules install it; from a build folder: build/bin/fieldflow man | man -l -");
}

int man_main(CommandLine&, const std::vector<std::string>&) {
    std::fputs(man_page().c_str(), stdout);
    return kExitOk;
}

const TableCommandRegistration registration{"man", "print the manual page (roff)", man_table, man_main};

} // namespace
} // namespace fieldflow::host
