// `fieldflow train --input IMAGE`: train a SIREN (or a grid model) on one image and write its JSON
// weights and reconstruction, reporting loss, PSNR and timing. The graph:
//   ReadImage -> Train -> SaveWeightsJson -> Infer -> WriteImage
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>

#include <charconv>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

// Every value reaches the graph as a variable: paths with any characters stay data.
constexpr const char* kTrainGraph = R"(fieldflow: 1
description: fieldflow train (built in)
vars: {input: ~, weights: ~, output_image: ~, model: ~, steps: ~, batch: ~, lr: ~, lr_grid: ~,
       lr_siren: ~, log_interval: ~, eval_interval: ~, limit: ~, hidden_width: ~,
       hidden_layers: ~, omega: ~, seed: ~}
nodes:
  image:
    op: ReadImage
    params: {path: "${input}"}
  train:
    op: Train
    inputs: {image: image}
    params:
      model: ${model}
      steps: ${steps}
      batch: ${batch}
      lr_mlp: ${lr}
      lr_grid: ${lr_grid}
      lr_siren: ${lr_siren}
      log_interval: ${log_interval}
      eval_interval: ${eval_interval}
      limit: ${limit}
      hidden_width: ${hidden_width}
      hidden_layers: ${hidden_layers}
      omega: ${omega}
      seed: ${seed}
  weights:
    op: SaveWeightsJson
    inputs: {model: train.model}
    params: {path: "${weights}"}
  render:
    op: Infer
    inputs: {model: weights.model}
  write:
    op: WriteImage
    inputs: {image: render}
    params: {path: "${output_image}"}
)";

std::string text(double v) {
    char buffer[32];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

std::unique_ptr<CommandLine> train_table() {
    auto table = std::make_unique<CommandLine>("train",
                   "fieldflow train --input IMAGE [--weights FILE.json] [--output-image FILE.png]\n"
                   "                       [--steps N] [--log-interval N] [--eval-interval N] "
                   "[--lr LR]\n                       [--limit N] [--train-batch N] [--model "
                   "siren|grid] [options]",
                   "Trains a SIREN (sine MLP on the pixel coordinates; or --model grid, the feature "
                   "grid + MLP)\non one image and writes its JSON weights and the reconstructed "
                   "image, reporting loss,\nPSNR and timing. `fieldflow render --weights FILE.json` "
                   "renders the weights again.");
    CommandLine& cl = *table;
    cl.options.add_options()
        ("input", po::value<std::string>()->required()->value_name("IMAGE"), "image to learn")
        ("weights", po::value<std::string>()->default_value("trained_siren.json")->value_name("FILE"),
         "JSON weights to write")
        ("output-image", po::value<std::string>()->default_value("trained_output.png")->value_name("FILE"),
         "reconstruction to write")
        ("steps", po::value<long long>()->default_value(500), "training steps")
        ("log-interval", po::value<long long>()->default_value(50), "print the loss every N steps (0: never)")
        ("eval-interval", po::value<long long>()->default_value(50),
         "measure the full-image PSNR every N steps (0: only at the end)")
        ("lr", po::value<double>()->default_value(1e-3), "Adam learning rate")
        ("limit", po::value<unsigned long long>()->default_value(0),
         "train on the first N pixels only (row order, whole rows; 0: all)")
        ("train-batch", po::value<long long>()->default_value(2048), "random pixels per step")
        ("model", po::value<std::string>()->default_value("siren")->value_name("siren|grid"),
         "representation")
        ("hidden-width", po::value<long long>()->default_value(64), "MLP width: 16, 32, 64 or 128")
        ("hidden-layers", po::value<long long>()->default_value(3), "MLP hidden layers")
        ("omega", po::value<double>()->default_value(30.0), "SIREN frequency factor")
        ("seed", po::value<unsigned long long>()->default_value(1), "initialisation and sampling seed");
    add_graph_command_options(cl);
    return table;
}

int train_main(CommandLine& cl, const std::vector<std::string>&) {
    const std::string model = cl.values["model"].as<std::string>();
    if (model != "siren" && model != "grid")
        return cl.usage_error("--model '" + model + "': expected siren or grid");
    // Signed options: a negative value reaches Train's range check as itself, not wrapped around.
    const long long steps = cl.values["steps"].as<long long>();
    if (steps <= 0) return cl.usage_error("--steps must be at least 1");
    if (cl.values["train-batch"].as<long long>() <= 0) return cl.usage_error("--train-batch must be at least 1");
    const double lr = cl.values["lr"].as<double>();
    if (!(lr > 0)) return cl.usage_error("--lr must be positive");

    auto u = [&](const char* key) { return std::to_string(cl.values[key].as<long long>()); };
    VarOverrides sets = {
        {"input", cl.values["input"].as<std::string>()},
        {"weights", cl.values["weights"].as<std::string>()},
        {"output_image", cl.values["output-image"].as<std::string>()},
        {"model", model},
        {"steps", u("steps")},
        {"batch", u("train-batch")},
        // --lr is the rate of whichever model trains; the grid model's grid takes it too.
        {"lr", text(lr)},
        {"lr_grid", text(lr)},
        {"lr_siren", text(lr)},
        {"log_interval", u("log-interval")},
        {"eval_interval", u("eval-interval")},
        {"limit", std::to_string(cl.values["limit"].as<unsigned long long>())},
        {"hidden_width", u("hidden-width")},
        {"hidden_layers", u("hidden-layers")},
        {"omega", text(cl.values["omega"].as<double>())},
        {"seed", std::to_string(cl.values["seed"].as<unsigned long long>())},
    };
    return run_graph_command(cl, "fieldflow train", kTrainGraph, sets, graph_command_options(cl));
}

const TableCommandRegistration registration{
    "train", "train a SIREN (or grid model) on an image; JSON weights", train_table, train_main};

} // namespace
} // namespace fieldflow::host
