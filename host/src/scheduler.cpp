#include <fieldflow/host/host_api.hpp>
#include <fieldflow/host/run_log.hpp>
#include <fieldflow/host/scheduler.hpp>

#include "side_files.hpp"

#include <algorithm>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <thread>

namespace fieldflow::host {
namespace {

using Clock = std::chrono::steady_clock;

std::string position_text(const std::string& file, const SourcePos& pos) {
    return file + ":" + std::to_string(pos.line) + ":" + std::to_string(pos.column);
}

class Run {
public:
    Run(const Graph& graph, const RunOptions& options) : graph_(graph), options_(options) {
        const size_t n = graph.nodes.size();
        result_.nodes.resize(n);
        consumers_.resize(n);
        pending_.assign(n, 0);
        settled_.assign(n, false);
        root_failure_.resize(n);
        rank_.resize(n);
        for (size_t i = 0; i < graph.order.size(); ++i) rank_[graph.order[i]] = i;
        for (size_t i = 0; i < n; ++i)
            for (const InputEdge& e : graph.nodes[i].inputs) {
                ++pending_[i];
                consumers_[e.source].push_back(i);
            }
        for (size_t i : graph.order)
            if (pending_[i] == 0) ready_.insert({rank_[i], i});
        services_.device = options.device;
        services_.cancel = options.cancel;
        if (RunLog* log = options.log) {
            services_.log = [log](const std::string& node, ff_log_level level, const std::string& m) {
                log->node_message(node, level, m);
            };
            services_.progress = [log](const std::string& node, uint64_t done, uint64_t total,
                                       const std::string& detail) {
                log->node_progress(node, done, total, detail);
            };
        }
        // prepare() and release() may log and read the device, but draw no progress: their node
        // is not running.
        prepare_services_ = services_;
        prepare_services_.progress = nullptr;
        prepared_.assign(n, false);
        released_.assign(n, false);
    }

    RunResult execute() {
        const auto start = Clock::now();
        // The ops' prepare and release (ABI 1.4) on a thread of their own, started before any
        // node, so that the setup they warm (opening a compute device) overlaps the nodes
        // upstream, and what they release (closing it) the nodes downstream.
        std::thread hooks;
        if (std::any_of(graph_.nodes.begin(), graph_.nodes.end(),
                        [](const PlannedNode& n) { return n.op->prepare != nullptr; }))
            hooks = std::thread([this] { prepare_and_release(); });
        unsigned jobs = options_.jobs ? options_.jobs : std::max(1u, std::thread::hardware_concurrency());
        jobs = unsigned(std::min<size_t>(jobs, std::max<size_t>(1, graph_.nodes.size())));
        std::vector<std::thread> workers;
        for (unsigned i = 0; i < jobs; ++i) workers.emplace_back([this] { work(); });
        for (std::thread& t : workers) t.join();
        {
            std::lock_guard lock(mutex_);
            run_over_ = true;
        }
        settled_wake_.notify_all();
        if (hooks.joinable()) hooks.join(); // a plugin's prepare or release never outlives the run
        result_.interrupted = cancelled();
        result_.seconds = std::chrono::duration<double>(Clock::now() - start).count();
        return std::move(result_);
    }

private:
    bool cancelled() const { return options_.cancel && options_.cancel->load(); }

    void work() {
        std::unique_lock lock(mutex_);
        while (true) {
            // Stop taking new nodes once interrupted; finish when nothing is left to start.
            if (cancelled() || (ready_.empty() && running_ == 0)) break;
            if (ready_.empty()) {
                wake_.wait_for(lock, std::chrono::milliseconds(100));
                continue;
            }
            const size_t node = ready_.begin()->second;
            ready_.erase(ready_.begin());
            ++running_;
            lock.unlock();
            NodeResult outcome = run_node(node);
            lock.lock();
            --running_;
            settle(node, std::move(outcome));
            wake_.notify_all();
            settled_wake_.notify_all();
        }
        wake_.notify_all();
    }

    // Calls each node's prepare in the graph's order, until the run is interrupted; then the
    // release of each prepared node once it has settled, and at the end those of nodes that never
    // ran. Their status is not the node's (execute meets and reports any problem); misuse of the
    // API is a warning.
    void prepare_and_release() {
        for (size_t index : graph_.order) {
            const PlannedNode& node = graph_.nodes[index];
            if (!node.op->prepare) continue;
            if (cancelled()) break;
            call_hook(node, "prepare", [&](ff_context& ctx) { node.op->prepare(host_api(), &ctx, node.op->user); });
            std::lock_guard lock(mutex_);
            prepared_[index] = true;
        }
        std::unique_lock lock(mutex_);
        while (true) {
            size_t next = graph_.nodes.size();
            for (size_t i = 0; i < graph_.nodes.size() && next == graph_.nodes.size(); ++i)
                if (prepared_[i] && !released_[i] && graph_.nodes[i].op->release && (settled_[i] || run_over_))
                    next = i;
            if (next < graph_.nodes.size()) {
                released_[next] = true;
                lock.unlock();
                const PlannedNode& node = graph_.nodes[next];
                call_hook(node, "release", [&](ff_context& ctx) { node.op->release(host_api(), &ctx, node.op->user); });
                lock.lock();
            } else if (run_over_) {
                return;
            } else {
                settled_wake_.wait(lock);
            }
        }
    }

    // One prepare or release call with the node's params and the run's device, its misuse of the
    // API reported as warnings.
    template <class Call>
    void call_hook(const PlannedNode& node, const char* name, Call call) {
        ff_context ctx;
        ctx.node = &node;
        ctx.services = &prepare_services_;
        ctx.validating = true;
        try {
            call(ctx);
        } catch (...) {
            ctx.misuse.push_back(std::string(name) + "() threw an exception across the plugin ABI");
        }
        if (options_.log)
            for (const std::string& m : ctx.misuse)
                options_.log->node_message(node.name, FF_LOG_WARNING, "plugin API misuse: " + m);
    }

    // Records a finished node and releases (or skips) its consumers. Called with the lock held.
    void settle(size_t node, NodeResult outcome) {
        const bool usable = outcome.status == NodeStatus::Ran ||
                            outcome.status == NodeStatus::CachedMemory ||
                            outcome.status == NodeStatus::CachedDisk;
        result_.nodes[node] = std::move(outcome);
        settled_[node] = true;
        if (options_.log) options_.log->node_finished(graph_.nodes[node].name, result_.nodes[node]);
        if (result_.nodes[node].status == NodeStatus::Cancelled) return; // dependents: not run
        for (size_t consumer : consumers_[node]) {
            if (settled_[consumer]) continue;
            if (usable) {
                if (--pending_[consumer] == 0) ready_.insert({rank_[consumer], consumer});
                continue;
            }
            const std::string& name = graph_.nodes[node].name;
            const bool failed_here = result_.nodes[node].status == NodeStatus::Failed;
            root_failure_[consumer] = failed_here ? name : root_failure_[node];
            NodeResult skipped;
            skipped.status = NodeStatus::Skipped;
            skipped.message = failed_here ? "input '" + name + "' failed"
                                          : "input '" + name + "' was skipped ('" +
                                                root_failure_[consumer] + "' failed)";
            skipped.started = skipped.finished = Clock::now();
            settle(consumer, std::move(skipped));
        }
    }

    NodeResult run_node(size_t index) {
        const PlannedNode& node = graph_.nodes[index];
        const OpInfo& op = *node.op;
        NodeResult out;
        out.started = Clock::now();

        // Inputs: finished producers' values, immutable from here on. Reading them without the
        // lock is safe: they were written before this node became ready, under the lock.
        InputKeys input_keys;
        std::map<std::string, ValuePtr> inputs;
        for (const InputEdge& e : node.inputs) {
            const NodeResult& source = result_.nodes[e.source];
            inputs[e.port] = source.outputs.at(e.source_port);
            input_keys.emplace_back(e.port, source.output_keys.at(e.source_port));
        }
        out.key = node_key(node, input_keys);

        const bool reads_outside = op.flags & FF_OP_READS_OUTSIDE;
        const bool writes_outside = op.flags & FF_OP_WRITES_OUTSIDE;
        const bool cacheable = !reads_outside && !writes_outside;
        const bool on_disk = cacheable && (op.flags & FF_OP_CACHE_ON_DISK) && options_.disk;

        if (cacheable && lookup_caches(node, out, on_disk)) {
            if (std::string why = materialise_side_files(node, out.outputs); !why.empty()) {
                out.status = NodeStatus::Failed;
                out.message = "writing the cached result's side files: " + why;
            }
            return finish(out);
        }

        if (options_.log) options_.log->node_started(node.name);
        ff_context ctx;
        ctx.node = &node;
        ctx.services = &services_;
        ctx.inputs = std::move(inputs);
        ctx.key = out.key;
        ctx.disk = options_.disk;
        int status = FF_ERROR;
        try {
            status = op.execute(host_api(), &ctx, op.user);
        } catch (...) {
            ctx.error = "an exception crossed the plugin ABI (the plugin must catch it)";
            status = FF_ERROR;
        }
        for (const std::string& m : ctx.misuse)
            if (options_.log) options_.log->node_message(node.name, FF_LOG_WARNING, "plugin API misuse: " + m);

        if (status == FF_CANCELLED) {
            out.status = cancelled() ? NodeStatus::Cancelled : NodeStatus::Failed;
            out.message = cancelled() ? "cancelled" : "stopped without being cancelled";
            return finish(out);
        }
        if (status != FF_OK) {
            out.status = NodeStatus::Failed;
            out.message = failure_message(node, ctx, status);
            return finish(out);
        }
        for (const PortInfo& port : op.outputs) {
            auto it = ctx.outputs.find(port.name);
            if (it == ctx.outputs.end()) {
                out.status = NodeStatus::Failed;
                out.message = "op '" + op.name + "' returned success without writing output '" +
                              port.name + "'";
                return finish(out);
            }
            out.outputs[port.name] = std::move(it->second); // now shared and immutable
        }
        for (const auto& [port, value] : out.outputs)
            out.output_keys[port] = reads_outside ? value->content_hash() : output_key(out.key, port);
        if (cacheable) {
            // Side files go with the result, so a cached run writes them too.
            if (std::string why = collect_side_files(node, ctx.side_files, out.outputs); !why.empty()) {
                out.status = NodeStatus::Failed;
                out.message = why;
                return finish(out);
            }
        }
        out.status = NodeStatus::Ran;

        if (cacheable && options_.memory) options_.memory->store(out.key, out.outputs);
        bool stored = true;
        if (on_disk) {
            std::string warning;
            stored = options_.disk->store(out.key, out.outputs, warning);
            if (!stored && options_.log) options_.log->warning("node '" + node.name + "': " + warning);
        }
        // The work is done and (where the op is disk-cached) its result is in the cache, which is
        // what a later run reads: the state kept for resuming it is of no more use. Kept when the
        // result could not be stored, so the next run can still resume.
        if (options_.disk && stored) {
            std::string warning;
            if (!options_.disk->remove_state(out.key, warning) && options_.log)
                options_.log->warning("node '" + node.name + "': " + warning);
        }
        return finish(out);
    }

    bool lookup_caches(const PlannedNode& node, NodeResult& out, bool on_disk) {
        std::optional<OutputMap> hit;
        if (options_.memory) hit = options_.memory->find(out.key);
        if (hit) {
            out.status = NodeStatus::CachedMemory;
        } else if (on_disk) {
            std::string warning;
            hit = options_.disk->load(out.key, warning);
            if (!warning.empty() && options_.log)
                options_.log->warning("node '" + node.name + "': " + warning);
            if (hit && !outputs_match(node, *hit)) {
                if (options_.log)
                    options_.log->warning("node '" + node.name +
                                          "': cache entry does not match the op's outputs; recomputing");
                hit.reset();
            }
            if (hit) {
                out.status = NodeStatus::CachedDisk;
                if (options_.memory) options_.memory->store(out.key, *hit);
            }
        }
        if (!hit) return false;
        out.outputs = std::move(*hit);
        for (const auto& [port, value] : out.outputs) out.output_keys[port] = output_key(out.key, port);
        return true;
    }

    static bool outputs_match(const PlannedNode& node, const OutputMap& outputs) {
        size_t ports = 0;
        for (const auto& [name, value] : outputs) ports += is_side_file_entry(name) ? 0 : 1;
        if (ports != node.op->outputs.size()) return false;
        for (const PortInfo& port : node.op->outputs) {
            auto it = outputs.find(port.name);
            if (it == outputs.end()) return false;
            if (port.type != FF_TYPE_ANY && it->second->type != port.type) return false;
        }
        return true;
    }

    std::string failure_message(const PlannedNode& node, const ff_context& ctx, int status) const {
        if (status != FF_ERROR)
            return "op '" + node.op->name + "' returned an unknown status " + std::to_string(status);
        std::string message = ctx.error;
        if (message.empty())
            message = ctx.misuse.empty() ? "failed without saying why" : "plugin API misuse: " + ctx.misuse.front();
        if (!ctx.error_param.empty()) {
            const ResolvedParam* p = node.param(ctx.error_param);
            std::string where = p && !p->from_default ? " (" + position_text(graph_.file, p->pos) + ")" : "";
            message = "param '" + ctx.error_param + "'" + where + ": " + message;
        }
        return message;
    }

    NodeResult finish(NodeResult& out) {
        out.finished = Clock::now();
        out.seconds = std::chrono::duration<double>(out.finished - out.started).count();
        return std::move(out);
    }

    const Graph& graph_;
    const RunOptions& options_;
    RunServices services_;
    RunServices prepare_services_;
    std::vector<bool> prepared_;  // prepare called
    std::vector<bool> released_;
    bool run_over_ = false;       // every worker has stopped: release what is left
    std::condition_variable settled_wake_;
    RunResult result_;
    std::vector<std::vector<size_t>> consumers_;
    std::vector<size_t> pending_;
    std::vector<bool> settled_;
    std::vector<std::string> root_failure_;
    std::vector<size_t> rank_;
    std::set<std::pair<size_t, size_t>> ready_; // (rank in dependency order, node)
    size_t running_ = 0;
    std::mutex mutex_;
    std::condition_variable wake_;
};

} // namespace

const char* status_name(NodeStatus status) {
    switch (status) {
    case NodeStatus::NotRun: return "not run";
    case NodeStatus::Ran: return "ran";
    case NodeStatus::CachedMemory: return "cached";
    case NodeStatus::CachedDisk: return "cached";
    case NodeStatus::Failed: return "failed";
    case NodeStatus::Skipped: return "skipped";
    case NodeStatus::Cancelled: return "cancelled";
    }
    return "?";
}

bool RunResult::any_failed() const { return count(NodeStatus::Failed) > 0; }

size_t RunResult::count(NodeStatus status) const {
    return size_t(std::count_if(nodes.begin(), nodes.end(),
                                [&](const NodeResult& r) { return r.status == status; }));
}

RunResult run_graph(const Graph& graph, const RunOptions& options) {
    return Run(graph, options).execute();
}

} // namespace fieldflow::host
