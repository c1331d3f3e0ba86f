// `fieldflow do IN OP [PARAM=VALUE]... [OP [PARAM=VALUE]...]... OUT`: a one-line chain, the
// ImageMagick habit (`convert in.jpg -resize 50% -blur 0x2 out.jpg`). It is written out as the
// graph file a user would write (ReadImage -> each op on the image before it -> WriteImage) and
// goes through the same validation and messages, each error pointing at the word it came from;
// --print-graph prints that file to keep.
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/host/names.hpp>
#include <fieldflow/host/validate.hpp>

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <iterator>
#include <map>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

std::unique_ptr<CommandLine> do_table() {
    auto cl = std::make_unique<CommandLine>(
        "do", "fieldflow do IN OP [PARAM=VALUE]... [OP [PARAM=VALUE]...]... OUT [--print-graph] [options]",
        "Runs a chain of image ops on one image: reads IN, applies each OP with the params after "
        "it to the image before it, and writes OUT (its extension picks the format). It builds "
        "the graph a YAML file would (ReadImage, the ops, WriteImage) and checks it the same way, "
        "so a mistyped op or param gets the same \"did you mean\"; --print-graph prints that "
        "graph instead of running it, a file to keep and run with `fieldflow run`. "
        "`fieldflow nodes OP` lists an op's params. IN '-' reads the image from stdin (any format "
        "ReadImage reads, told by its bytes), OUT '-' writes it to stdout in --format.\n\n"
        "Example:\n"
        "  fieldflow do in.jpg Resize scale=0.5 GaussianBlur sigma=2 out.jpg\n"
        "  fieldflow do in.jpg Resize scale=0.5 out.jpg --print-graph > half.yaml\n"
        "  curl -s URL | fieldflow do - Rotate angle=90 - --format jpg > turned.jpg");
    add_positional(*cl, "words", "the chain", -1);
    cl->options.add_options()
        ("print-graph", "print the chain as a graph file (YAML) and run nothing")
        ("format", po::value<std::string>()->default_value("png")->value_name("EXT"),
         "the image format written to stdout when OUT is '-' (png, jpg, tif, exr, ...)");
    add_graph_command_options(*cl);
    return cl;
}

// A YAML double-quoted scalar whose value is `text` exactly (no variable in it is expanded).
std::string quoted(const std::string& text) {
    std::string out = "\"";
    for (size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (c == '"' || c == '\\') out += '\\';
        if (c == '$' && i + 1 < text.size() && text[i + 1] == '{') out += '$'; // "$${": a literal "${"
        if (static_cast<unsigned char>(c) < 0x20) {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", static_cast<unsigned char>(c));
            out += escaped;
            continue;
        }
        out += c;
    }
    return out + "\"";
}

// An op's word: a name as ops are named (CamelCase), not a path.
bool looks_like_op(const std::string& word) {
    return !word.empty() && std::isupper(static_cast<unsigned char>(word[0])) && is_valid_name(word);
}

struct Chain {
    std::string text;                // the graph file
    std::map<int, size_t> word_of_line; // line of the file -> the word it came from
    std::string error;               // the words do not make a chain
};

Chain build_chain(const std::vector<std::string>& words, const OpRegistry& registry) {
    Chain chain;
    if (words.size() < 2) {
        chain.error = "give the input image, the ops with their params, and the output image last, "
                      "e.g. `fieldflow do in.jpg Resize scale=0.5 out.jpg`";
        return chain;
    }
    const std::string& out = words.back();
    if (looks_like_op(out) || out.find('=') != std::string::npos) {
        chain.error = "the last word, '" + out + "', is not an output file: name the image to write last";
        return chain;
    }
    int line = 1;
    auto add = [&](const std::string& text, long word = -1) {
        chain.text += text + "\n";
        if (word >= 0) chain.word_of_line[line] = size_t(word);
        ++line;
    };
    add("fieldflow: 1");
    add("description: " + quoted("fieldflow do " + join(words, " ")));
    add("nodes:");
    add("  input:", 0);
    add("    op: ReadImage", 0);
    add("    params:", 0);
    add("      path: " + quoted(words[0]), 0);
    std::string previous = "input";
    std::map<std::string, int> uses;
    bool params_open = false;
    for (size_t i = 1; i + 1 < words.size(); ++i) {
        const std::string& word = words[i];
        const size_t eq = word.find('=');
        if (eq == std::string::npos) {
            if (!looks_like_op(word)) {
                chain.error = "'" + word + "' (word " + std::to_string(i + 1) + ") is neither an op nor " +
                              "PARAM=VALUE" + did_you_mean(word, registry.names()) +
                              "; ops are named like Resize (`fieldflow nodes` lists them)";
                return chain;
            }
            std::string name;
            for (char c : word) name += char(std::tolower(static_cast<unsigned char>(c)));
            if (++uses[name] > 1) name += std::to_string(uses[name]);
            add("  " + name + ":", long(i));
            add("    op: " + word, long(i));
            const OpInfo* op = registry.find(word);
            const auto image_input = op ? std::find_if(op->inputs.begin(), op->inputs.end(),
                                                       [](const PortInfo& p) { return p.type == "image"; })
                                        : std::vector<PortInfo>::const_iterator();
            if (op && image_input != op->inputs.end()) {
                add("    inputs:", long(i));
                add("      " + image_input->name + ": " + previous, long(i));
            }
            params_open = false;
            previous = name;
            continue;
        }
        if (previous == "input") {
            chain.error = "'" + word + "' (word " + std::to_string(i + 1) + ") comes before any op: "
                          "params follow the op they set, e.g. `Resize scale=0.5`";
            return chain;
        }
        if (!params_open) add("    params:", long(i));
        params_open = true;
        const std::string key = word.substr(0, eq);
        add("      " + (is_valid_name(key) ? key : quoted(key)) + ": " + quoted(word.substr(eq + 1)), long(i));
    }
    add("  output:", long(words.size() - 1));
    add("    op: WriteImage", long(words.size() - 1));
    add("    inputs:", long(words.size() - 1));
    add("      image: " + previous, long(words.size() - 1));
    add("    params:", long(words.size() - 1));
    add("      path: " + quoted(out), long(words.size() - 1));
    return chain;
}

// A private folder for stdin's image and the one for stdout ('-'), removed when the command ends.
class PipeFolder {
public:
    ~PipeFolder() {
        std::error_code ec;
        if (!dir_.empty()) std::filesystem::remove_all(dir_, ec);
    }
    std::string path(const std::string& name) {
        if (dir_.empty()) {
            std::string pattern = (std::filesystem::temp_directory_path() / "fieldflow-do-XXXXXX").string();
            if (!::mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary folder for '-'");
            dir_ = pattern;
        }
        return (std::filesystem::path(dir_) / name).string();
    }

private:
    std::string dir_;
};

int do_main(CommandLine& cl, const std::vector<std::string>&) {
    std::vector<std::string> words;
    if (cl.values.count("words")) words = cl.values["words"].as<std::vector<std::string>>();
    // '-': stdin's bytes go to a file ReadImage reads; the image for stdout is written to a file
    // of --format, then copied out. A kept graph (--print-graph) names '-' as given.
    PipeFolder pipes;
    const bool print = cl.values.count("print-graph") > 0;
    std::string to_stdout;
    if (!print && words.size() >= 2 && words.front() == "-") {
        words.front() = pipes.path("stdin");
        std::ofstream in(words.front(), std::ios::binary);
        in << std::cin.rdbuf();
        if (!in) return cl.usage_error("could not read the image from stdin");
    }
    if (!print && words.size() >= 2 && words.back() == "-") {
        const std::string format = cl.values["format"].as<std::string>();
        if (format.empty() || !is_valid_name(format))
            return cl.usage_error("--format '" + format + "': expected an image extension such as png or jpg");
        to_stdout = words.back() = pipes.path("stdout." + format);
    }
    OpRegistry registry;
    if (!load_registry(registry, cl)) return kExitInvalid;
    const Chain chain = build_chain(words, registry);
    if (!chain.error.empty()) return cl.usage_error(chain.error);
    Diagnostics diags("fieldflow do");
    auto graph = load_graph_text(chain.text, {}, registry, diags);
    if (!graph) {
        // Each error at the word it came from, with the graph checker's own message.
        for (const Diagnostic& d : diags.sorted()) {
            const auto it = chain.word_of_line.find(d.pos.line);
            const std::string where = it == chain.word_of_line.end()
                                          ? ""
                                          : " word " + std::to_string(it->second + 1) + " '" + words[it->second] + "':";
            std::fprintf(stderr, "fieldflow do:%s error: %s\n", where.c_str(), d.message.c_str());
        }
        std::fprintf(stderr, "%zu error%s\n", diags.size(), diags.size() == 1 ? "" : "s");
        return kExitInvalid;
    }
    if (cl.values.count("print-graph")) {
        std::fputs(chain.text.c_str(), stdout);
        return kExitOk;
    }
    GraphCommandOptions options = graph_command_options(cl);
    const int code = run_graph_command(cl, "fieldflow do", chain.text, {}, options);
    if (code == kExitOk && !to_stdout.empty()) {
        std::ifstream image(to_stdout, std::ios::binary);
        std::cout << image.rdbuf();
        std::cout.flush();
    }
    return code;
}

const TableCommandRegistration registration{
    "do", "run a chain of image ops on one image: fieldflow do in.jpg Resize scale=0.5 out.jpg",
    do_table, do_main};

} // namespace
} // namespace fieldflow::host
