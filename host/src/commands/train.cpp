// `fieldflow train --input IMAGE`: train a SIREN (or the grid model) on one image and write its
// JSON weights and reconstruction, reporting loss, PSNR and timing. The graph:
//   ReadImage -> TrainSiren | Train -> SaveWeightsJson -> Infer -> WriteImage
// The command declares no training defaults of its own: an option left out is left out of the
// graph, so the op's declared default applies (one default per param, `fieldflow nodes OP`).
#include "graph_command.hpp"

#include <fieldflow/host/cli.hpp>

#include <charconv>

namespace po = boost::program_options;

namespace fieldflow::host {
namespace {

// A command-line option and the params of the op it sets ("" where that model has none).
struct ParamOption {
    const char* option;
    const char* siren;  // TrainSiren's param
    const char* grid;   // Train's params, comma-separated
    bool integer;
};

constexpr ParamOption kParamOptions[] = {
    {"steps", "steps", "steps", true},
    {"train-batch", "batch", "batch", true},
    {"lr", "lr", "lr_mlp,lr_grid", false}, // the grid model's encoding takes the rate too
    {"log-interval", "log_interval", "log_interval", true},
    {"eval-interval", "eval_interval", "eval_interval", true},
    {"limit", "limit", "limit", true},
    {"hidden-width", "hidden_width", "hidden_width", true},
    {"hidden-layers", "hidden_layers", "hidden_layers", true},
    {"omega", "omega", "", false},
    {"seed", "seed", "seed", true},
};

std::string text(double v) {
    char buffer[32];
    auto end = std::to_chars(buffer, buffer + sizeof buffer, v).ptr;
    return std::string(buffer, end);
}

std::vector<std::string> split_names(const std::string& names) {
    std::vector<std::string> out;
    for (size_t start = 0; start < names.size();) {
        const size_t comma = std::min(names.find(',', start), names.size());
        out.push_back(names.substr(start, comma - start));
        start = comma + 1;
    }
    return out;
}

// The graph, with the params the command line gave as variables (paths with any characters stay
// data) and no others.
std::string train_graph(const std::string& op, const std::vector<std::string>& params) {
    std::string vars = "input: ~, weights: ~, output_image: ~", set;
    for (const std::string& p : params) {
        vars += ", " + p + ": ~";
        set += "      " + p + ": ${" + p + "}\n";
    }
    return "fieldflow: 1\n"
           "description: fieldflow train (built in)\n"
           "vars: {" + vars + "}\n"
           "nodes:\n"
           "  image:\n"
           "    op: ReadImage\n"
           "    params: {path: \"${input}\"}\n"
           "  train:\n"
           "    op: " + op + "\n"
           "    inputs: {image: image}\n" +
           (set.empty() ? "" : "    params:\n" + set) +
           "  weights:\n"
           "    op: SaveWeightsJson\n"
           "    inputs: {model: train.model}\n"
           "    params: {path: \"${weights}\"}\n"
           "  render:\n"
           "    op: Infer\n"
           "    inputs: {model: weights.model}\n"
           "  write:\n"
           "    op: WriteImage\n"
           "    inputs: {image: render}\n"
           "    params: {path: \"${output_image}\"}\n";
}

std::unique_ptr<CommandLine> train_table() {
    auto table = std::make_unique<CommandLine>("train",
                   "fieldflow train --input IMAGE [--weights FILE.json] [--output-image FILE.png]\n"
                   "                       [--steps N] [--log-interval N] [--eval-interval N] "
                   "[--lr LR]\n                       [--limit N] [--train-batch N] [--model "
                   "siren|grid] [--dry-run] [options]",
                   "Trains a SIREN (the op TrainSiren: a sine MLP on the pixel coordinates; or --model "
                   "grid, the op Train's\nfeature grid + MLP) on one image and writes its JSON weights "
                   "and the reconstructed image, reporting\nloss, PSNR and timing. An option left out "
                   "takes the op's default (`fieldflow nodes TrainSiren`,\n`fieldflow nodes Train`); "
                   "on a CPU Vulkan driver the op trains its CPU budget (cpu_steps) unless\nthe run "
                   "given is smaller. `fieldflow render --weights FILE.json` renders the weights again.");
    CommandLine& cl = *table;
    const char* op_default = " (default: the op's)";
    cl.options.add_options()
        ("input", po::value<std::string>()->required()->value_name("IMAGE"), "image to learn")
        ("weights", po::value<std::string>()->default_value("trained_siren.json")->value_name("FILE"),
         "JSON weights to write")
        ("output-image", po::value<std::string>()->default_value("trained_output.png")->value_name("FILE"),
         "reconstruction to write")
        ("model", po::value<std::string>()->default_value("siren")->value_name("siren|grid"),
         "representation: siren (the op TrainSiren) or grid (Train)")
        ("steps", po::value<long long>()->value_name("N"), (std::string("training steps") + op_default).c_str())
        ("log-interval", po::value<long long>()->value_name("N"),
         (std::string("print the loss every N steps (0: never)") + op_default).c_str())
        ("eval-interval", po::value<long long>()->value_name("N"),
         (std::string("measure the full-image PSNR every N steps (0: only at the end)") + op_default).c_str())
        ("lr", po::value<double>()->value_name("LR"), (std::string("Adam learning rate") + op_default).c_str())
        ("limit", po::value<long long>()->value_name("N"),
         (std::string("train on the first N pixels only (row order, whole rows; 0: all)") + op_default).c_str())
        ("train-batch", po::value<long long>()->value_name("N"),
         (std::string("random pixels per step") + op_default).c_str())
        ("hidden-width", po::value<long long>()->value_name("N"),
         (std::string("MLP width: 16, 32, 64 or 128") + op_default).c_str())
        ("hidden-layers", po::value<long long>()->value_name("N"), (std::string("MLP hidden layers") + op_default).c_str())
        ("omega", po::value<double>()->value_name("W"),
         (std::string("SIREN frequency factor (--model siren)") + op_default).c_str())
        ("seed", po::value<long long>()->value_name("N"),
         (std::string("initialisation and sampling seed") + op_default).c_str())
        ("dry-run,n", "validate and say what the training would do (steps, batch, time on the device); "
                      "run nothing");
    add_graph_command_options(cl);
    return table;
}

int train_main(CommandLine& cl, const std::vector<std::string>&) {
    const std::string model = cl.values["model"].as<std::string>();
    if (model != "siren" && model != "grid")
        return cl.usage_error("--model '" + model + "': expected siren or grid");
    const bool siren = model == "siren";
    // Checks the op's ranges cannot word as a command-line error. Signed options: a negative
    // value reaches the op's range check as itself, not wrapped around.
    auto given = [&](const char* key) { return cl.values.count(key) > 0; };
    if (given("steps") && cl.values["steps"].as<long long>() <= 0) return cl.usage_error("--steps must be at least 1");
    if (given("train-batch") && cl.values["train-batch"].as<long long>() <= 0)
        return cl.usage_error("--train-batch must be at least 1");
    if (given("lr") && !(cl.values["lr"].as<double>() > 0)) return cl.usage_error("--lr must be positive");

    VarOverrides sets = {
        {"input", cl.values["input"].as<std::string>()},
        {"weights", cl.values["weights"].as<std::string>()},
        {"output_image", cl.values["output-image"].as<std::string>()},
    };
    std::vector<std::string> params;
    for (const ParamOption& o : kParamOptions) {
        if (!given(o.option)) continue;
        const std::string names = siren ? o.siren : o.grid;
        if (names.empty()) return cl.usage_error("--" + std::string(o.option) + " applies to --model siren only");
        const std::string value = o.integer ? std::to_string(cl.values[o.option].as<long long>())
                                            : text(cl.values[o.option].as<double>());
        for (const std::string& name : split_names(names)) {
            params.push_back(name);
            sets.push_back({name, value});
        }
    }
    GraphCommandOptions options = graph_command_options(cl);
    options.dry_run = given("dry-run");
    return run_graph_command(cl, "fieldflow train", train_graph(siren ? "TrainSiren" : "Train", params), sets,
                             options);
}

const TableCommandRegistration registration{
    "train", "train a SIREN (or grid model) on an image; JSON weights", train_table, train_main};

} // namespace
} // namespace fieldflow::host
