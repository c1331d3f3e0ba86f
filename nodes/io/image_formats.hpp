// The file formats WriteImage writes, chosen by the path's extension.
#pragma once

#include <cstdint>
#include <string>

namespace ff::nodes {

enum class SampleFormat {
    integer, // 8 or 16 bits per sample, as the `bits` param says (where the format allows)
    floating // 32-bit float samples (EXR) or shared-exponent float (Radiance HDR)
};

struct ImageFormat {
    const char* extension; // lower case, with the dot
    SampleFormat samples;
    bool allows_16_bits;
    bool holds_alpha; // an RGBA image keeps its alpha channel
    bool holds_gray;  // a one-channel image stays one channel
    bool encodes_in_memory; // OpenCV's encoder writes to memory (cv::imencode); EXR and HDR only to a named file
    uint32_t max_side = 0;  // the most pixels a side the format holds where the encoder refuses more
                            // with a message of its own that names no limit (WebP: 16,383); 0: none
};

// The format for `path`'s extension (case-insensitive), or nullptr if WriteImage does not write it.
const ImageFormat* image_format_for(const std::string& path);

// "png, jpg, ..." for messages.
std::string supported_extensions();

} // namespace ff::nodes
