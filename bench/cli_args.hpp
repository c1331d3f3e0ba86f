// Command-line reading shared by the benchmark programs: `--key value` pairs, each value checked,
// a bad one reported through the program's usage() (which exits).
#pragma once

#include <cstdint>
#include <cstdlib>
#include <string>

namespace ff::bench {

class ArgReader {
public:
    using UsageFn = void (*)(const std::string& problem);
    ArgReader(int argc, char** argv, UsageFn usage) : argc_(argc), argv_(argv), usage_(usage) {}

    // Advances to the next key; false at the end.
    bool next() {
        if (++i_ >= argc_) return false;
        key_ = argv_[i_];
        return true;
    }
    const std::string& key() const { return key_; }

    std::string value() {
        if (i_ + 1 >= argc_) fail(key_ + " needs a value");
        return argv_[++i_];
    }
    uint32_t u32() {
        std::string v = value();
        char* end = nullptr;
        unsigned long n = std::strtoul(v.c_str(), &end, 10);
        if (v.empty() || *end || n > 0xFFFFFFFFul) fail(key_ + " expects a whole number, got '" + v + "'");
        return uint32_t(n);
    }
    float f32() {
        std::string v = value();
        char* end = nullptr;
        float f = std::strtof(v.c_str(), &end);
        if (v.empty() || *end) fail(key_ + " expects a number, got '" + v + "'");
        return f;
    }

private:
    [[noreturn]] void fail(const std::string& problem) {
        usage_(problem);
        std::exit(2); // usage() exits; this keeps the reader honest if it ever returns
    }
    int argc_;
    char** argv_;
    UsageFn usage_;
    int i_ = 0;
    std::string key_;
};

} // namespace ff::bench
