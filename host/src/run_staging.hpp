// A run's outputs as one consistent set. `fieldflow run` has its nodes write every file and folder
// they write (params flagged FF_PARAM_WRITES_FILE or FF_PARAM_SIDE_OUTPUT) into a staging folder,
// ROOT/.fieldflow-partial/, and moves them into place only once every node succeeded: a run that
// is interrupted (Ctrl-C, SIGTERM, a closed pipe, kill -9) or fails leaves the previous set as it
// was (and its staged files hidden beside it, for the same command to take up). ROOT is the top-most folder the graph writes into; the staged tree mirrors its layout.
//
// ROOT/.fieldflow-run (a written_files.hpp list) proves what runs wrote there. A rerun replaces
// only files on that list; in a folder a node owns as a whole (Train's snapshots), the earlier
// run's files this run does not write again go. Everything else is the user's and never touched;
// a file of the user's where the run would write is refused before the run starts (or, for a
// name only known once written, the results stay staged and the message says so).
//
// The staging folder holds a note naming the work (attempt_text): an interrupted or failed run's
// staged files stay for the same work, so a resumed Train finds the snapshots written before the
// interrupt; another work's are cleared, and so are temporary files of writers that were killed. Committing first records the earlier list in the staging
// folder (.fieldflow-commit): a run killed while moving files into place is finished by the next
// run into ROOT before anything else.
#pragma once

#include "written_files.hpp"

#include <fieldflow/host/graph.hpp>

#include <filesystem>
#include <set>
#include <string>
#include <vector>

namespace fieldflow::host {

class RunStaging {
public:
    // Plans the staging of what `graph` writes; changes nothing yet.
    explicit RunStaging(const Graph& graph);

    // The top-most folders the run writes into, as the graph spells them (each needs the run's
    // lock), and the folders below them where its files go (a run whose own top-most folder is
    // one of those locks it too).
    std::vector<std::filesystem::path> roots() const;
    std::vector<std::filesystem::path> subfolders() const;

    // Points the written params at their staged place, and so every other param naming one of
    // them without reading it as a file (Report's `snapshots` folder reads Train's new ones).
    void redirect(Graph& graph) const;

    // With every root locked: finishes a commit a killed run left, keeps the staged files of an
    // interrupted run of the same `attempt` or clears another's, and creates the staging folders.
    // Throws std::runtime_error, having written nothing, when a file the run writes would replace
    // one no run wrote (or one changed since), unless its node says `overwrite: true`. Returns
    // notes for the log.
    std::vector<std::string> prepare(const std::string& attempt) const;

    // Moves the staged outputs into place, root by root. Returns "" or what stopped it (the
    // staged files then stay where the message says).
    std::string commit() const;

    static constexpr const char* kStaging = ".fieldflow-partial";
    static constexpr const char* kMark = ".fieldflow-run";

private:
    struct Root {
        std::filesystem::path path;   // as spelled
        std::string identity;         // file_identity
        std::set<std::string> owned;  // relative folders a node owns as a whole ("" = the root)
        std::set<std::string> files;  // relative files the graph names
        std::set<std::string> replaceable; // of those, written by a node with `overwrite: true`
    };
    struct Written {
        size_t node, param;
        size_t root;
        std::string relative;
    };
    std::filesystem::path staged(const Root& root, const std::string& relative) const;

    std::vector<Root> roots_;
    std::vector<Written> written_;
};

// What names a run's work for its staging note: the graph file and every node's op and params.
std::string attempt_text(const Graph& graph);

// Whether `folder` is one a batch stages an image in (OUTPUT/.partial/<stem>.<id>, with its note):
// the batch commits it as a whole, so a run into it stages nothing of its own.
bool staged_by_batch(const std::filesystem::path& folder);

} // namespace fieldflow::host
