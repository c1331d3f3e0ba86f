#include "image/cv_options.hpp"

#include <fieldflow/node.hpp>

#include <opencv2/imgproc.hpp>

namespace ff::nodes {

int interpolation_flag(const char* param, const std::string& name) {
    if (name == "nearest") return cv::INTER_NEAREST;
    if (name == "linear") return cv::INTER_LINEAR;
    if (name == "cubic") return cv::INTER_CUBIC;
    if (name == "area") return cv::INTER_AREA;
    if (name == "lanczos") return cv::INTER_LANCZOS4;
    throw ParamError(param, "unknown interpolation '" + name + "'");
}

int border_flag(const char* param, const std::string& name) {
    if (name == "constant") return cv::BORDER_CONSTANT;
    if (name == "replicate") return cv::BORDER_REPLICATE;
    if (name == "reflect") return cv::BORDER_REFLECT;
    if (name == "reflect101") return cv::BORDER_REFLECT_101;
    if (name == "wrap") return cv::BORDER_WRAP;
    throw ParamError(param, "unknown border '" + name + "'");
}

} // namespace ff::nodes
