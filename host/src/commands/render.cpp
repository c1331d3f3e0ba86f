// `fieldflow render --weights FILE`: render saved weights (JSON from `fieldflow train` /
// SaveWeightsJson, or a .ffm model file) to an image. The graph:
//   LoadWeightsJson | LoadModel -> Infer -> WriteImage
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>

#include <charconv>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

constexpr const char* kRenderGraph = R"(fieldflow: 1
description: fieldflow render (built in)
vars: {weights: ~, output_image: ~, width: ~, height: ~, scale: ~}
nodes:
  model:
    op: LOADER
    params: {path: "${weights}"}
  render:
    op: Infer
    inputs: {model: model}
    params:
      width: ${width}
      height: ${height}
      scale: ${scale}
  write:
    op: WriteImage
    inputs: {image: render}
    params: {path: "${output_image}"}
)";

bool ends_with(const std::string& s, const std::string& suffix) {
    return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

std::unique_ptr<CommandLine> render_table() {
    auto table = std::make_unique<CommandLine>("render",
                   "fieldflow render --weights FILE [--output-image FILE.png] [--width N] "
                   "[--height N] [--scale S] [options]",
                   "Renders a trained model: JSON weights (fieldflow train --weights, SaveWeightsJson) "
                   "or a .ffm model file.\nDefault size: the training image's.");
    CommandLine& cl = *table;
    cl.options.add_options()
        ("weights", po::value<std::string>()->required()->value_name("FILE"),
         "JSON weights, or a model file ending in .ffm")
        ("output-image", po::value<std::string>()->default_value("rendered.png")->value_name("FILE"),
         "image to write")
        ("width", po::value<long long>()->default_value(0), "output width (0: from height or the training size)")
        ("height", po::value<long long>()->default_value(0), "output height (0: from width or the training size)")
        ("scale", po::value<double>()->default_value(0.0), "output size as a multiple of the training size");
    add_graph_command_options(cl);
    return table;
}

int render_main(CommandLine& cl, const std::vector<std::string>&) {
    const std::string weights = cl.values["weights"].as<std::string>();
    std::string graph = kRenderGraph;
    graph.replace(graph.find("LOADER"), 6, ends_with(weights, ".ffm") ? "LoadModel" : "LoadWeightsJson");
    char scale[32];
    auto end = std::to_chars(scale, scale + sizeof scale, cl.values["scale"].as<double>()).ptr;
    VarOverrides sets = {
        {"weights", weights},
        {"output_image", cl.values["output-image"].as<std::string>()},
        // Signed: a negative size reaches the Render node's range check as itself (an unsigned
        // option would turn -5 into 4294967291).
        {"width", std::to_string(cl.values["width"].as<long long>())},
        {"height", std::to_string(cl.values["height"].as<long long>())},
        {"scale", std::string(scale, end)},
    };
    return run_graph_command(cl, "fieldflow render", graph, sets, graph_command_options(cl));
}

const TableCommandRegistration registration{
    "render", "render JSON weights or a model file to an image", render_table, render_main};

} // namespace
} // namespace fieldflow::host
