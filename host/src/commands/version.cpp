// `fieldflow version` (and `fieldflow --version`): every version this build carries, read from the
// generated fieldflow/versions.hpp, so a bug report or a model file's provenance names them all.
#include <fieldflow/host/cli.hpp>
#include <fieldflow/host/command_support.hpp>
#include <fieldflow/versions.hpp>

#include <cstdio>
#include <string>

namespace fieldflow::host {

std::string version_text() {
    auto pair = [](uint32_t major, uint32_t minor) {
        return std::to_string(major) + "." + std::to_string(minor);
    };
    using namespace versions;
    return std::string("fieldflow ") + kProgram + "\n" +
           "plugin ABI " + pair(kPluginAbiMajor, kPluginAbiMinor) + "\n" +
           "model format " + pair(kModelFormatMajor, kModelFormatMinor) + "\n" +
           "checkpoint format " + pair(kCheckpointFormatMajor, kCheckpointFormatMinor) + "\n" +
           "engine " + std::to_string(kEngine) + "\n";
}

namespace {

int version_main(const std::vector<std::string>& args) {
    CommandLine cl("version", "fieldflow version",
                   "Prints the program version, then the plugin ABI, model-format, "
                   "checkpoint-format and engine versions it was built with.");
    if (auto code = cl.parse(args)) return *code;
    std::fputs(version_text().c_str(), stdout);
    return kExitOk;
}

const CommandRegistration registration{
    {"version", "show the program, plugin ABI, model-format and engine versions", version_main}};

} // namespace
} // namespace fieldflow::host
