// Runs a graph once per image as child processes `fieldflow run GRAPH --set input=...
// --set output=<temp folder>`, several at a time, spread over devices; moves each image's
// outputs into <output>/<stem>/ only when its run succeeded; records every finished image in the
// manifest, skips finished ones on --resume, and writes the summary.
#pragma once

#include <fieldflow/host/batch/inputs.hpp>
#include <fieldflow/host/variables.hpp>

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace fieldflow::host::batch {

struct BatchOptions {
    std::filesystem::path graph;  // absolute
    std::string graph_hash;       // hex, of the graph text and the --set values
    std::filesystem::path input;  // absolute: the folder the images come from
    std::filesystem::path output; // absolute; neither inside the input folder nor holding it
    unsigned jobs = 1;
    std::vector<std::string> devices; // children take these round-robin; empty: the default
    std::optional<Shard> shard;
    bool resume = false;
    bool declares_stem = false;         // the graph has a `stem` variable
    VarOverrides sets;                  // the user's --set values, passed on
    std::vector<std::string> run_flags; // passed on to `fieldflow run` (--plugin, --cache...)
    std::string metrics_file = "metrics.json";
    bool quiet = false;
};

// Returns the exit code: 0 all done, 1 some image failed, 130/143 interrupted; throws
// std::runtime_error for problems with the output folder.
int run_batch(const BatchOptions& options, const std::vector<BatchInput>& inputs);

// Combines shard summaries (summary.json, or manifest.jsonl where a shard has none) into one
// summary in `output`. Returns the exit code: 0 all done, 1 a failed or missing image or
// shard, 2 a folder holds neither.
int merge_batches(const std::vector<std::filesystem::path>& dirs,
                  const std::filesystem::path& output);

// XXH3-128 of a file's bytes, hex. Throws std::runtime_error when it cannot be read.
std::string hash_file(const std::filesystem::path& file);

// XXH3-128 of the graph text and the --set values, hex.
std::string hash_graph(const std::string& graph_text, const VarOverrides& sets);

} // namespace fieldflow::host::batch
