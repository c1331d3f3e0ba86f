#include <fieldflow/host/batch/batch_runner.hpp>

#include <fieldflow/host/batch/batch_progress.hpp>
#include <fieldflow/host/batch/child_process.hpp>
#include <fieldflow/host/batch/device_failure.hpp>
#include <fieldflow/host/batch/manifest.hpp>
#include <fieldflow/host/batch/summary.hpp>
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/hash.hpp>
#include <fieldflow/host/interrupt.hpp>

#include "output_folder.hpp"
#include "../written_files.hpp"

#include <unistd.h>

#include <atomic>
#include <deque>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <map>
#include <memory>
#include <fstream>
#include <iterator>
#include <stdexcept>
#include <thread>

namespace fs = std::filesystem;

namespace fieldflow::host::batch {
namespace {

using Clock = std::chrono::steady_clock;

struct InFlight {
    pid_t pid = 0;
    size_t item = 0;      // index into the inputs
    fs::path partial;     // where the run writes
    size_t device = 0;    // index into the devices (0 when none are named)
    Clock::time_point started;
};

std::string seconds_text(double s) {
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fs", s);
    return buf;
}

// "PSNR 31.20 dB (bilinear 27.10, +4.10)" or "PSNR 27.10 dB, SSIM 0.8123", for the log line.
std::string metrics_text(const ImageMetrics& m) {
    char buf[160];
    if (m.psnr_learned && m.psnr_bilinear) {
        std::snprintf(buf, sizeof buf, "PSNR %.2f dB (bilinear %.2f, %+.2f)", *m.psnr_learned,
                      *m.psnr_bilinear, *m.psnr_learned - *m.psnr_bilinear);
        return buf;
    }
    if (m.psnr) {
        std::snprintf(buf, sizeof buf, "PSNR %.2f dB%s", *m.psnr, m.ssim ? "," : "");
        std::string text = buf;
        if (m.ssim) std::snprintf(buf, sizeof buf, " SSIM %.4f", *m.ssim), text += buf;
        return text;
    }
    return "";
}

// An exit that means the image was stopped by the batch's own interrupt, not that it failed.
bool stopped_by_interrupt(const ChildExit& exit) {
    if (exit.signaled) return exit.signal == SIGINT || exit.signal == SIGTERM || exit.signal == SIGKILL;
    return exit.code == kExitSigint || exit.code == kExitSigterm;
}

// Why a run failed, for the summary: the last error line of its log, and how it ended.
std::string failure_reason(const fs::path& log, const ChildExit& exit) {
    std::string line = failure_line_of(log);
    for (const char* prefix : {"error: ", "fieldflow run: error: "})
        if (line.rfind(prefix, 0) == 0) line = line.substr(std::strlen(prefix));
    if (line.empty()) return exit.describe();
    return line + " (" + exit.describe() + ")";
}

// The image's run wrote its log while its outputs were in the partial folder; once they are
// moved, the paths the log names (the report, the model) are the final folder's. Best effort:
// a log that cannot be rewritten keeps the old paths, and the image's result stands.
void point_log_at_final(const fs::path& log, const fs::path& partial, const fs::path& final_folder) {
    std::ifstream in(log, std::ios::binary);
    if (!in) return;
    std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    const std::string from = partial.string(), to = final_folder.string();
    size_t at = text.find(from);
    if (at == std::string::npos) return;
    for (; at != std::string::npos; at = text.find(from, at + to.size())) text.replace(at, from.size(), to);
    const fs::path temp = log.string() + ".tmp";
    {
        std::ofstream out(temp, std::ios::binary | std::ios::trunc);
        out << text;
        if (!out) return;
    }
    std::error_code ec;
    fs::rename(temp, log, ec);
    if (ec) fs::remove(temp, ec);
}

// The warnings an image's run printed (its log's lines that hold "warning: "), at most a few: they
// would otherwise reach only the log, and a batch is watched from its own terminal.
std::vector<std::string> warning_lines_of(const fs::path& log) {
    constexpr size_t kMaxShown = 8;
    std::vector<std::string> lines;
    std::ifstream in(log, std::ios::binary);
    for (std::string line; lines.size() < kMaxShown && std::getline(in, line);)
        if (line.find("warning: ") != std::string::npos && line.size() < 4096) lines.push_back(line);
    return lines;
}

class BatchRun {
public:
    BatchRun(const BatchOptions& options, const std::vector<BatchInput>& inputs)
        : o_(options), inputs_(inputs), folder_(options.output, options.input), exe_(self_executable()),
          results_(inputs.size()), per_device_(std::max<size_t>(1, options.devices.size()), 0) {}

    int run();

private:
    void prepare();
    void launch(size_t item);
    void finish(const InFlight& f, const ChildExit& exit);
    bool retry_elsewhere(const InFlight& f, const ChildExit& exit, const std::string& reason);
    void record_failure(ImageResult& r, const std::string& error);
    // Which input and graph an image's run is for: a leftover partial folder is resumed only by a
    // run of the same.
    std::string attempt_of(size_t item) const { return results_[item].input_hash + " " + o_.graph_hash; }
    std::optional<size_t> pick_device(size_t item);
    bool may_run_on(size_t item, size_t slot) const;
    bool device_out(const std::string& device) const;
    std::string no_device_left() const;
    unsigned jobs_now() const;

    const BatchOptions& o_;
    const std::vector<BatchInput>& inputs_;
    OutputFolder folder_;
    std::string exe_;
    std::vector<ImageResult> results_;
    std::vector<size_t> pending_;
    std::vector<size_t> unreadable_;
    // --resume: the partial folders interrupted runs of pending images left, by stem.
    std::map<std::string, fs::path> leftovers_;
    size_t skipped_ = 0;
    std::vector<InFlight> running_;
    std::vector<size_t> per_device_;
    size_t next_device_ = 0;
    // Devices taken out of the rotation (by their --device), each with the failure that did it.
    std::vector<std::pair<std::string, std::string>> devices_out_;
    // Images to run again on another device; they go before the pending ones.
    std::deque<size_t> retries_;
    std::unique_ptr<ManifestWriter> manifest_;
    std::unique_ptr<BatchProgress> progress_;
};

void BatchRun::prepare() {
    std::vector<std::string> warnings;
    const auto previous = read_manifest(folder_.root() / "manifest.jsonl", warnings);
    for (const std::string& w : warnings) std::fprintf(stderr, "warning: %s\n", w.c_str());
    manifest_ = std::make_unique<ManifestWriter>(folder_.root() / "manifest.jsonl");

    size_t would_skip = 0;
    for (size_t i = 0; i < inputs_.size(); ++i) {
        const BatchInput& in = inputs_[i];
        ImageResult& r = results_[i];
        r.stem = in.stem;
        r.input = in.path.string();
        r.status = kStatusNotRun;
        r.graph_hash = o_.graph_hash;
        r.shard = o_.shard ? o_.shard->text() : "";
        try {
            r.input_hash = hash_file(in.path);
        } catch (const std::exception& e) {
            r.error = e.what();
            unreadable_.push_back(i);
            continue;
        }
        // Done before, from the same bytes with the same graph and values, and still in place.
        const auto it = previous.find(in.stem);
        std::error_code ec;
        const bool unchanged = it != previous.end() && it->second.status == kStatusDone &&
                               it->second.input_hash == r.input_hash &&
                               it->second.graph_hash == o_.graph_hash &&
                               fs::is_directory(folder_.final_for(in.stem), ec);
        if (unchanged && o_.resume) {
            const std::string shard = r.shard;
            r = it->second;
            r.input = in.path.string();
            r.shard = shard;
            ++skipped_;
            continue;
        }
        would_skip += unchanged;
        pending_.push_back(i);
    }
    // Interrupted runs of the same images (same input and graph) go on in their own partial
    // folders; everything else left there goes.
    std::map<std::string, std::string> attempts;
    if (o_.resume)
        for (size_t i : pending_) attempts[inputs_[i].stem] = attempt_of(i);
    leftovers_ = folder_.adopt_leftovers(attempts);
    if (would_skip && !o_.quiet)
        std::fprintf(stderr, "note: %zu image%s already done in '%s' with the same input and graph; "
                             "--resume would skip %s\n",
                     would_skip, would_skip == 1 ? " is" : "s are", folder_.root().c_str(),
                     would_skip == 1 ? "it" : "them");
}

bool BatchRun::device_out(const std::string& device) const {
    return std::any_of(devices_out_.begin(), devices_out_.end(), [&](const auto& d) { return d.first == device; });
}

// A device slot the image may take: in the rotation, and not one its device failed on before.
bool BatchRun::may_run_on(size_t item, size_t slot) const {
    if (o_.devices.empty()) return true; // the runs' default device: no rotation
    const std::string& device = o_.devices[slot];
    const auto& failed = results_[item].retried_after;
    return !device_out(device) &&
           std::none_of(failed.begin(), failed.end(), [&](const FailedAttempt& a) { return a.device == device; });
}

std::optional<size_t> BatchRun::pick_device(size_t item) {
    // The least loaded device the image may take; ties go round-robin, so equal devices fill evenly.
    const size_t n = per_device_.size();
    std::optional<size_t> best;
    for (size_t k = 0; k < n; ++k) {
        const size_t d = (next_device_ + k) % n;
        if (may_run_on(item, d) && (!best || per_device_[d] < per_device_[*best])) best = d;
    }
    if (best) next_device_ = *best + 1;
    return best;
}

std::string BatchRun::no_device_left() const {
    std::string text = "no device of --devices left to run it on";
    for (const auto& [device, why] : devices_out_) text += "; device " + device + " failed: " + why;
    return text;
}

// Images in flight: --jobs, less the share of the devices taken out, so that each device left
// keeps the load it had.
unsigned BatchRun::jobs_now() const {
    if (devices_out_.empty()) return o_.jobs;
    const size_t slots = o_.devices.size();
    const size_t left = size_t(std::count_if(o_.devices.begin(), o_.devices.end(),
                                             [&](const std::string& d) { return !device_out(d); }));
    return std::max(1u, unsigned((size_t(o_.jobs) * left + slots - 1) / slots));
}

void BatchRun::record_failure(ImageResult& r, const std::string& error) {
    r.status = kStatusFailed;
    r.error = error;
    r.folder.clear();
    r.report.clear();
    manifest_->append(r);
    progress_->finished(r.stem, false, "failed " + r.stem + ": " + error);
}

void BatchRun::launch(size_t item) {
    const BatchInput& in = inputs_[item];
    ImageResult& r = results_[item];
    InFlight f;
    f.item = item;
    const std::optional<size_t> slot = pick_device(item);
    if (!slot) { // every device it could take failed
        r.log.clear(); // no run of its own: its earlier runs' logs are with retried_after
        record_failure(r, no_device_left());
        return;
    }
    f.device = *slot;
    const std::string device = o_.devices.empty() ? "" : o_.devices[f.device];
    r.ran_on = device;
    const fs::path log = folder_.log_for(in.stem);
    try {
        if (auto it = leftovers_.find(in.stem); it != leftovers_.end()) {
            f.partial = it->second;
            leftovers_.erase(it);
            progress_->note("resuming " + in.stem + " in the folder of its interrupted run");
        } else {
            f.partial = folder_.new_partial(in.stem, attempt_of(item));
        }
        std::vector<std::string> args = {"run", o_.graph.string(),
                                         "--set", "input=" + fs::absolute(in.path).string(),
                                         "--set", "output=" + f.partial.string()};
        if (o_.declares_stem) args.insert(args.end(), {"--set", "stem=" + in.stem});
        for (const auto& [name, value] : o_.sets) args.insert(args.end(), {"--set", name + "=" + value});
        if (!device.empty()) args.insert(args.end(), {"--device", device});
        args.insert(args.end(), o_.run_flags.begin(), o_.run_flags.end());
        f.started = Clock::now();
        progress_->started(in.stem, device, log);
        f.pid = spawn_child(exe_, args, log);
    } catch (const std::exception& e) {
        if (!f.partial.empty()) folder_.discard_partial(f.partial);
        r.log = "logs/" + in.stem + ".log";
        record_failure(r, e.what());
        return;
    }
    ++per_device_[f.device];
    running_.push_back(f);
}

void BatchRun::finish(const InFlight& f, const ChildExit& exit) {
    --per_device_[f.device];
    ImageResult& r = results_[f.item];
    const fs::path log = folder_.log_for(r.stem);
    r.seconds = std::chrono::duration<double>(Clock::now() - f.started).count();
    r.log = "logs/" + r.stem + ".log";
    std::error_code ec;
    if (!exit.ok()) {
        if (install_interrupt_handlers().load() && stopped_by_interrupt(exit)) {
            // Its partial folder stays for --resume (see OutputFolder::adopt_leftovers).
            progress_->removed(r.stem);
            progress_->note("stopped " + r.stem + " (interrupted)");
            return; // stays "not run"
        }
        folder_.discard_partial(f.partial);
        const std::string reason = failure_reason(log, exit);
        if (retry_elsewhere(f, exit, reason)) return;
        record_failure(r, reason);
        return;
    }
    for (const std::string& line : warning_lines_of(log)) progress_->print(r.stem + ": " + line);
    try {
        r.metrics = read_metrics_file(f.partial / o_.metrics_file);
        const std::vector<std::string> kept = folder_.move_into_place(f.partial, r.stem);
        if (!kept.empty())
            progress_->print("kept " + std::to_string(kept.size()) + " of your entr" + (kept.size() == 1 ? "y" : "ies") +
                             " in '" + folder_.final_for(r.stem).string() + "' (not written by fieldflow batch): " +
                             entry_list_text(kept, folder_.final_for(r.stem)));
        point_log_at_final(log, f.partial, folder_.final_for(r.stem));
    } catch (const std::exception& e) {
        folder_.discard_partial(f.partial);
        record_failure(r, e.what());
        return;
    }
    r.status = kStatusDone;
    r.error.clear();
    r.folder = r.stem;
    r.report = fs::exists(folder_.final_for(r.stem) / "report.html", ec) ? r.stem + "/report.html" : "";
    manifest_->append(r); // after the move: a crash in between only redoes this image
    std::string line = "done " + r.stem + "  " + seconds_text(r.seconds);
    if (const std::string m = metrics_text(r.metrics); !m.empty()) line += "  " + m;
    progress_->finished(r.stem, true, line);
}

// A run that failed because of its device: a device at fault leaves the rotation, and the image
// goes back in the queue for a device it has not failed on, its failed run's log kept as
// logs/<stem>@<device>.log ('@' is never part of a stem). False when the failure is the image's,
// or no device is left for it.
bool BatchRun::retry_elsewhere(const InFlight& f, const ChildExit& exit, const std::string& reason) {
    if (o_.devices.empty()) return false;
    ImageResult& r = results_[f.item];
    const fs::path log = folder_.log_for(r.stem);
    const DeviceFault fault = device_fault_of(exit, failure_line_of(log));
    if (fault == DeviceFault::none) return false;
    const std::string& device = o_.devices[f.device];
    if (takes_device_out(fault) && !device_out(device)) {
        devices_out_.emplace_back(device, reason);
        progress_->print("device " + device + " taken out of the rotation: " + reason);
    }
    r.retried_after.push_back({device, reason, ""});
    const bool elsewhere = [&] {
        for (size_t slot = 0; slot < o_.devices.size(); ++slot)
            if (may_run_on(f.item, slot)) return true;
        return false;
    }();
    if (!elsewhere) {
        r.retried_after.pop_back(); // its last run: the image's own error says it
        return false;
    }
    const std::string kept = "logs/" + r.stem + "@" + device + ".log";
    std::error_code ec;
    fs::rename(log, folder_.root() / kept, ec);
    r.retried_after.back().log = ec ? "" : kept;
    retries_.push_back(f.item);
    progress_->removed(r.stem);
    progress_->note("retrying " + r.stem + " on another device: it failed on device " + device +
                    (takes_device_out(fault) ? "" : ": " + reason));
    return true;
}

int BatchRun::run() {
    prepare();
    const bool live = ::isatty(::fileno(stderr)) != 0;
    progress_ = std::make_unique<BatchProgress>(stderr, live, o_.quiet, inputs_.size(), skipped_);
    for (size_t i = 0; i < inputs_.size(); ++i)
        if (results_[i].status == kStatusDone) progress_->note("skipped " + results_[i].stem + " (done in an earlier run)");
    for (size_t i : unreadable_) record_failure(results_[i], results_[i].error);

    const std::atomic<bool>& cancel = install_interrupt_handlers();
    size_t next = 0;
    bool forwarded = false;
    while (((next < pending_.size() || !retries_.empty()) && !cancel.load()) || !running_.empty()) {
        if (cancel.load() && !forwarded) {
            forwarded = true;
            const int sig = interrupt_signal() ? interrupt_signal() : SIGINT;
            for (const InFlight& f : running_) signal_child(f.pid, sig);
            progress_->print("interrupted: stopping " + std::to_string(running_.size()) +
                             " running image(s); --resume continues them");
        }
        while (!cancel.load() && running_.size() < jobs_now() && (!retries_.empty() || next < pending_.size())) {
            size_t item = 0;
            if (retries_.empty()) {
                item = pending_[next++];
            } else {
                item = retries_.front();
                retries_.pop_front();
            }
            launch(item);
        }
        bool reaped = false;
        for (size_t k = 0; k < running_.size();) {
            if (auto exit = poll_child(running_[k].pid)) {
                const InFlight f = running_[k];
                running_.erase(running_.begin() + std::ptrdiff_t(k));
                finish(f, *exit);
                reaped = true;
            } else {
                ++k;
            }
        }
        progress_->tick();
        // Polling keeps this loop simple and signal-safe; 20 ms is nothing next to an image's run.
        if (!reaped) std::this_thread::sleep_for(std::chrono::milliseconds(20));
    }
    folder_.tidy();

    SummaryInfo info;
    info.graph = o_.graph.string();
    info.shard = o_.shard ? o_.shard->text() : "";
    info.interrupted = cancel.load();
    info.devices_out = devices_out_;
    write_summary(folder_.root(), results_, info);

    const SummaryTotals t = summary_totals(results_);
    std::string line = "batch: " + std::to_string(t.done) + " done";
    if (skipped_) line += " (" + std::to_string(skipped_) + " from an earlier run)";
    line += ", " + std::to_string(t.failed) + " failed";
    if (t.not_run) line += ", " + std::to_string(t.not_run) + " not run";
    line += " of " + std::to_string(t.images) + "; summary: " + (folder_.root() / "index.html").string();
    progress_.reset(); // clears the live lines: the totals below stay on screen
    std::fprintf(stderr, "%s\n", line.c_str());
    for (const ImageResult& r : results_)
        if (r.status == kStatusFailed) std::fprintf(stderr, "  failed %s: %s\n", r.stem.c_str(), r.error.c_str());
    for (const auto& [device, why] : devices_out_)
        std::fprintf(stderr, "  device %s taken out of the rotation: %s\n", device.c_str(), why.c_str());
    for (const ImageResult& r : results_)
        if (!r.retried_after.empty() && r.status != kStatusNotRun)
            std::fprintf(stderr, "  retried %s: %s\n", r.stem.c_str(), retry_story(r).c_str());

    if (cancel.load()) return interrupt_exit_code() ? interrupt_exit_code() : kExitSigint;
    return t.failed ? kExitNodeFailed : kExitOk;
}

} // namespace

std::string hash_file(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + file.string() + "': " + std::strerror(errno));
    Hasher h;
    std::vector<char> buffer(1 << 20);
    while (in) {
        in.read(buffer.data(), std::streamsize(buffer.size()));
        h.bytes(buffer.data(), size_t(in.gcount()));
    }
    if (in.bad()) throw std::runtime_error("cannot read '" + file.string() + "'");
    return h.finish().hex();
}

std::string hash_graph(const std::string& graph_text, const VarOverrides& sets) {
    Hasher h;
    h.text("fieldflow batch graph 1").text(graph_text).u64(sets.size());
    for (const auto& [name, value] : sets) h.text(name).text(value);
    return h.finish().hex();
}

int run_batch(const BatchOptions& options, const std::vector<BatchInput>& inputs) {
    BatchRun run(options, inputs);
    return run.run();
}

} // namespace fieldflow::host::batch
