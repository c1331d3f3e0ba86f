#include "training_checkpoint.hpp"

#include "common/atomic_write.hpp"
#include "common/whole_file.hpp"

#include <fieldflow/node.hpp>

#include <nlohmann/json.hpp>

#include <cmath>
#include <limits>

namespace ff::neural {

namespace fe = ff::engine;
namespace fs = std::filesystem;
using nlohmann::json;

namespace {

constexpr const char* kProgressFormat = "fieldflow Train progress 1";

// JSON has no NaN or infinity: such values travel as null (they never occur in a finite run).
json number(double value) { return std::isfinite(value) ? json(value) : json(nullptr); }

double number_from(const json& value) {
    return value.is_number() ? value.get<double>() : std::numeric_limits<double>::quiet_NaN();
}

// Why a sound checkpoint cannot continue this run; empty if it can.
std::string mismatch(const fe::Checkpoint& c, fe::ModelKind kind, uint32_t width, uint32_t height,
                     uint32_t steps) {
    const uint32_t step = c.kind == fe::ModelKind::splats ? c.splats.step : c.trainer.step;
    if (c.kind != kind) return "it holds a " + std::string(fe::model_kind_name(c.kind)) + " model";
    if (c.image_width != width || c.image_height != height)
        return "it was trained on a " + std::to_string(c.image_width) + "x" +
               std::to_string(c.image_height) + " image";
    if (step > steps)
        return "it is at step " + std::to_string(step) + ", past the " + std::to_string(steps) +
               " steps of this run";
    return {};
}

} // namespace

fs::path checkpoint_path(const fs::path& state_dir) { return state_dir / "checkpoint.ffckpt"; }

std::optional<fs::path> checkpoint_file(const Node& node, uint32_t interval) {
    if (interval == 0) return std::nullopt;
    std::optional<std::string> dir = node.state_dir();
    if (!dir) return std::nullopt;
    return checkpoint_path(*dir);
}

bool save_checkpoint_or_warn(const Node& node, const fs::path& path, TrainingCheckpoint checkpoint,
                             uint32_t step) {
    try {
        save_checkpoint(path, std::move(checkpoint));
        return true;
    } catch (const std::exception& e) {
        node.warn("could not write a checkpoint at step " + std::to_string(step) + ": " + e.what());
        return false;
    }
}

std::string progress_json(const TrainingProgress& p) {
    json rows = json::array();
    // One array per row: step, loss, psnr (null where not measured), steps/s, elapsed seconds.
    for (const TrainingLogRow& r : p.log)
        rows.push_back({r.step, number(r.loss), r.psnr ? number(*r.psnr) : json(nullptr),
                        number(r.steps_per_second), number(r.elapsed_seconds)});
    json j = {
        {"format", kProgressFormat},
        {"log", std::move(rows)},
        {"snapshots", p.snapshots},
        {"train_seconds", number(p.train_seconds)},
        {"final_loss", number(p.final_loss)},
        {"final_psnr", p.final_psnr ? number(*p.final_psnr) : json(nullptr)},
    };
    return j.dump();
}

TrainingProgress progress_from_json(const std::string& text) {
    try {
        const json j = json::parse(text);
        if (!j.is_object() || j.value("format", "") != kProgressFormat)
            throw Error("its training progress is not in the format this build writes");
        TrainingProgress p;
        for (const json& row : j.at("log")) {
            if (!row.is_array() || row.size() != 5) throw Error("a training log row is malformed");
            TrainingLogRow r;
            r.step = row[0].get<uint32_t>();
            r.loss = number_from(row[1]);
            if (!row[2].is_null()) r.psnr = number_from(row[2]);
            r.steps_per_second = number_from(row[3]);
            r.elapsed_seconds = number_from(row[4]);
            p.log.push_back(r);
        }
        p.snapshots = j.at("snapshots").get<std::vector<uint32_t>>();
        p.train_seconds = number_from(j.at("train_seconds"));
        p.final_loss = number_from(j.at("final_loss"));
        if (!j.at("final_psnr").is_null()) p.final_psnr = number_from(j.at("final_psnr"));
        return p;
    } catch (const json::exception& e) {
        throw Error(std::string("its training progress is malformed (") + e.what() + ")");
    }
}

void save_checkpoint(const fs::path& path, TrainingCheckpoint checkpoint) {
    const std::string progress = progress_json(checkpoint.progress);
    const auto* bytes = reinterpret_cast<const std::byte*>(progress.data());
    checkpoint.engine.extra.assign(bytes, bytes + progress.size());
    std::vector<std::byte> encoded;
    try {
        encoded = fe::encode_checkpoint(checkpoint.engine);
    } catch (const fe::CheckpointError& e) {
        throw Error(e.what());
    }
    ff::nodes::atomic_write_file(
        path, std::string_view(reinterpret_cast<const char*>(encoded.data()), encoded.size()));
}

std::optional<TrainingCheckpoint> load_checkpoint(const fs::path& path) {
    std::error_code error;
    if (!fs::exists(path, error)) return std::nullopt;
    const std::optional<std::vector<unsigned char>> raw = ff::nodes::read_whole_file(path);
    if (!raw) throw Error("cannot read checkpoint '" + path.string() + "'");
    TrainingCheckpoint checkpoint;
    try {
        checkpoint.engine = fe::decode_checkpoint(
            std::span(reinterpret_cast<const std::byte*>(raw->data()), raw->size()), path.string());
    } catch (const fe::CheckpointError& e) {
        throw Error(e.what());
    }
    const std::vector<std::byte>& extra = checkpoint.engine.extra;
    try {
        checkpoint.progress =
            progress_from_json(std::string(reinterpret_cast<const char*>(extra.data()), extra.size()));
    } catch (const Error& e) {
        throw Error(path.string() + ": " + e.what());
    }
    checkpoint.engine.extra.clear();
    return checkpoint;
}

void warn_ignored_checkpoint(const Node& node, const fs::path& path, const std::string& why) {
    node.warn("ignoring the checkpoint " + path.string() + " (" + why + "); starting from step 0");
}

std::optional<TrainingCheckpoint> usable_checkpoint(const Node& node, const fs::path& path,
                                                    fe::ModelKind kind, uint32_t width,
                                                    uint32_t height, uint32_t steps) {
    std::optional<TrainingCheckpoint> c;
    std::string problem;
    try {
        c = load_checkpoint(path);
        if (c) problem = mismatch(c->engine, kind, width, height, steps);
    } catch (const std::exception& e) {
        problem = e.what();
    }
    if (problem.empty()) return c; // usable, or none yet
    warn_ignored_checkpoint(node, path, problem);
    return std::nullopt;
}

} // namespace ff::neural
