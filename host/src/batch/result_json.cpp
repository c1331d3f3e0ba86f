#include "result_json.hpp"

#include <stdexcept>

namespace fieldflow::host::batch {
namespace {

using nlohmann::json;

template <typename T>
void put(json& j, const char* key, const std::optional<T>& value) {
    j[key] = value ? json(*value) : json(nullptr);
}

std::optional<double> number(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number()) return std::nullopt;
    return it->get<double>();
}

std::optional<uint64_t> count(const json& j, const char* key) {
    auto it = j.find(key);
    if (it == j.end() || !it->is_number() || it->get<double>() < 0) return std::nullopt;
    return it->is_number_integer() ? it->get<uint64_t>() : static_cast<uint64_t>(it->get<double>());
}

std::string text(const json& j, const char* key) {
    auto it = j.find(key);
    return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

json attempts_to_json(const std::vector<FailedAttempt>& attempts) {
    json list = json::array();
    for (const FailedAttempt& a : attempts) list.push_back({{"device", a.device}, {"error", a.error}, {"log", a.log}});
    return list;
}

} // namespace

std::optional<double> ImageMetrics::psnr_gain() const {
    if (!psnr_learned || !psnr_bilinear) return std::nullopt;
    return *psnr_learned - *psnr_bilinear;
}

json metrics_to_json(const ImageMetrics& m) {
    json j = json::object();
    put(j, "psnr_learned", m.psnr_learned);
    put(j, "psnr_bilinear", m.psnr_bilinear);
    put(j, "psnr_gain", m.psnr_gain());
    put(j, "ssim_learned", m.ssim_learned);
    put(j, "ssim_bilinear", m.ssim_bilinear);
    put(j, "psnr", m.psnr);
    put(j, "ssim", m.ssim);
    put(j, "steps", m.steps);
    put(j, "train_seconds", m.train_seconds);
    put(j, "model_bytes", m.model_bytes);
    j["device"] = m.device;
    return j;
}

ImageMetrics metrics_from_json(const json& j) {
    ImageMetrics m;
    if (!j.is_object()) return m;
    m.psnr_learned = number(j, "psnr_learned");
    m.psnr_bilinear = number(j, "psnr_bilinear");
    m.ssim_learned = number(j, "ssim_learned");
    m.ssim_bilinear = number(j, "ssim_bilinear");
    m.psnr = number(j, "psnr");
    m.ssim = number(j, "ssim");
    m.steps = count(j, "steps");
    m.train_seconds = number(j, "train_seconds");
    m.model_bytes = count(j, "model_bytes");
    m.device = text(j, "device");
    return m;
}

json result_to_json(const ImageResult& r) {
    return json{{"stem", r.stem},
                {"input", r.input},
                {"status", r.status},
                {"error", r.error},
                {"input_hash", r.input_hash},
                {"graph_hash", r.graph_hash},
                {"shard", r.shard},
                {"seconds", r.seconds},
                {"folder", r.folder},
                {"report", r.report},
                {"log", r.log},
                {"metrics", metrics_to_json(r.metrics)},
                {"ran_on", r.ran_on},
                {"retried_after", attempts_to_json(r.retried_after)}};
}

ImageResult result_from_json(const json& j) {
    if (!j.is_object()) throw std::runtime_error("not a JSON object");
    ImageResult r;
    r.stem = j.at("stem").get<std::string>();
    r.status = j.at("status").get<std::string>();
    if (r.stem.empty()) throw std::runtime_error("empty stem");
    if (r.status != kStatusDone && r.status != kStatusFailed && r.status != kStatusNotRun)
        throw std::runtime_error("unknown status '" + r.status + "'");
    r.input = text(j, "input");
    r.error = text(j, "error");
    r.input_hash = text(j, "input_hash");
    r.graph_hash = text(j, "graph_hash");
    r.shard = text(j, "shard");
    r.seconds = number(j, "seconds").value_or(0.0);
    r.folder = text(j, "folder");
    r.report = text(j, "report");
    r.log = text(j, "log");
    if (auto it = j.find("metrics"); it != j.end()) r.metrics = metrics_from_json(*it);
    r.ran_on = text(j, "ran_on");
    if (auto it = j.find("retried_after"); it != j.end() && it->is_array())
        for (const json& a : *it)
            if (a.is_object()) r.retried_after.push_back({text(a, "device"), text(a, "error"), text(a, "log")});
    return r;
}

} // namespace fieldflow::host::batch
