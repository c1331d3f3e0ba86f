// Which grid model a run learned and what the other grid encoding would have cost: the choice
// between the dense grid and the hash grid is one `--set encoding=...` away, and a user who keeps
// one should see the size of the other. The lake graph's rule (hash_log2_table_size 0): the other
// of a dense model is the hash grid of Train's defaults with the table whose parameter count is
// nearest the dense model's (train_params.hpp); of a hash model, the dense grid the lake graph
// learns (the image / 4, Train's dense defaults otherwise); the MLP stays the one that ran.
#pragma once

#include "report_page.hpp"

#include <fieldflow/engine/model_file.hpp>

#include <cstdint>
#include <optional>
#include <string>

namespace ff::neural {

struct ModelAlternative {
    std::string summary;    // engine's model_summary, e.g. "hash grid 16x2 (...) + MLP 32x2"
    std::string set;        // the graph setting that learns it, e.g. "encoding=hash_grid"
    uint64_t parameters = 0;
    uint64_t bytes = 0;     // its model file at the same stored precision
    bool bytes_exact = true; // false: estimated from the run's file (a model too large to encode here)
};

// The other encoding of a grid model (dense <-> hash); none for SIREN and splat models.
std::optional<ModelAlternative> model_alternative(const ff::engine::ModelFile& ran);

// "Model:": the model that ran (summary, parameters, bytes as stored) and the other's cost.
ReportNote model_note(const ff::engine::ModelFile& ran, uint64_t ran_bytes,
                      const std::optional<ModelAlternative>& other);

} // namespace ff::neural
