// ImageResult <-> JSON, shared by the manifest and the summary.
#pragma once

#include <fieldflow/host/batch/image_result.hpp>

#include <nlohmann/json.hpp>

namespace fieldflow::host::batch {

nlohmann::json metrics_to_json(const ImageMetrics& m);
ImageMetrics metrics_from_json(const nlohmann::json& j);

nlohmann::json result_to_json(const ImageResult& r);
// Throws nlohmann::json::exception or std::runtime_error on a malformed record.
ImageResult result_from_json(const nlohmann::json& j);

} // namespace fieldflow::host::batch
