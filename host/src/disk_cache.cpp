#include <fieldflow/host/cache.hpp>
#include <fieldflow/host/cache_folder.hpp>
#include <fieldflow/host/regular_file.hpp>

#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>

namespace fieldflow::host {
namespace {

namespace fs = std::filesystem;

// Entry layout (little-endian, as written by this machine; a foreign entry fails the checks and
// is recomputed):
//   "FFCACHE1" | u32 format | u32 output count | key (u64 high, u64 low)
//   per output: text name | text type | u8 is_image | u32 w, h, c, bits | u64 size | size bytes
//   (format 1, still read, had no bits)
//   u64 XXH3-64 of everything before it
// where text = u32 length + bytes.
constexpr char kMagic[8] = {'F', 'F', 'C', 'A', 'C', 'H', 'E', '1'};
constexpr uint32_t kFormat = 2;

class Writer {
public:
    void raw(const void* p, size_t n) {
        const auto* b = static_cast<const unsigned char*>(p);
        buf.insert(buf.end(), b, b + n);
    }
    template <typename T> void num(T v) { raw(&v, sizeof v); }
    void text(const std::string& s) {
        num<uint32_t>(uint32_t(s.size()));
        raw(s.data(), s.size());
    }
    std::vector<unsigned char> buf;
};

// Every read checks the bytes remaining first: nothing in the file is trusted.
class Reader {
public:
    Reader(const unsigned char* p, size_t n) : p_(p), left_(n) {}
    bool raw(void* out, size_t n) {
        if (n > left_) return false;
        std::memcpy(out, p_, n);
        p_ += n;
        left_ -= n;
        return true;
    }
    template <typename T> bool num(T& v) { return raw(&v, sizeof v); }
    bool text(std::string& s, size_t limit = 4096) {
        uint32_t n = 0;
        if (!num(n) || n > limit || n > left_) return false;
        s.assign(reinterpret_cast<const char*>(p_), n);
        p_ += n;
        left_ -= n;
        return true;
    }
    size_t left() const { return left_; }

private:
    const unsigned char* p_;
    size_t left_;
};

std::optional<OutputMap> decode(const std::string& text, const Hash128& key,
                                std::string& why) {
    const size_t trailer = sizeof(uint64_t);
    const auto* bytes = reinterpret_cast<const unsigned char*>(text.data());
    struct {
        const unsigned char* data() const { return p; }
        size_t size() const { return n; }
        const unsigned char* p;
        size_t n;
    } data{bytes, text.size()};
    if (data.size() < sizeof kMagic + trailer) {
        why = "truncated";
        return std::nullopt;
    }
    uint64_t stored_sum = 0;
    std::memcpy(&stored_sum, data.data() + data.size() - trailer, trailer);
    if (stored_sum != checksum64(data.data(), data.size() - trailer)) {
        why = "checksum mismatch (truncated or corrupt)";
        return std::nullopt;
    }
    Reader r(data.data(), data.size() - trailer);
    char magic[8];
    uint32_t format = 0, count = 0;
    Hash128 stored_key;
    if (!r.raw(magic, sizeof magic) || std::memcmp(magic, kMagic, sizeof kMagic) != 0) {
        why = "not a fieldflow cache entry";
        return std::nullopt;
    }
    if (!r.num(format) || (format != kFormat && format != 1)) {
        why = "unknown entry format " + std::to_string(format);
        return std::nullopt;
    }
    if (!r.num(count) || !r.num(stored_key.high) || !r.num(stored_key.low) || !(stored_key == key) ||
        count > 1024) {
        why = "header does not match its key";
        return std::nullopt;
    }
    OutputMap outputs;
    for (uint32_t i = 0; i < count; ++i) {
        auto value = std::make_shared<Value>();
        std::string name;
        uint8_t is_image = 0;
        uint64_t size = 0;
        if (!r.text(name) || !r.text(value->type) || !r.num(is_image) || !r.num(value->width) ||
            !r.num(value->height) || !r.num(value->channels) ||
            (format >= 2 && !r.num(value->bits)) || !r.num(size) || size > r.left()) {
            why = "output " + std::to_string(i) + " is malformed";
            return std::nullopt;
        }
        value->is_image = is_image != 0;
        if (value->is_image) {
            const uint64_t values = uint64_t(value->width) * value->height * value->channels;
            if (values == 0 || values > std::numeric_limits<uint64_t>::max() / sizeof(float) ||
                values * sizeof(float) != size) {
                why = "image '" + name + "' has a size that does not match its dimensions";
                return std::nullopt;
            }
            value->pixels.resize(values);
            r.raw(value->pixels.data(), size);
        } else {
            value->bytes.resize(size);
            r.raw(value->bytes.data(), size);
        }
        outputs.emplace(std::move(name), std::move(value));
    }
    if (r.left() != 0) {
        why = "trailing bytes";
        return std::nullopt;
    }
    return outputs;
}

} // namespace

void use_shader_cache(const std::string& cache_dir) {
    // Only in a folder that is (or may become) a marked cache folder: never beside a user's files.
    const bool usable = !cache_dir.empty() && claim_cache_folder(cache_dir).empty();
    const std::string dir = usable ? (fs::path(cache_dir) / "spirv").string() : "";
    ::setenv("FIELDFLOW_SPIRV_CACHE_DIR", dir.c_str(), 1);
}

std::string DiskCache::default_dir() {
    if (const char* dir = std::getenv("FIELDFLOW_CACHE_DIR"); dir && *dir) return dir;
    if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
        return (fs::path(xdg) / "fieldflow").string();
    if (const char* home = std::getenv("HOME"); home && *home)
        return (fs::path(home) / ".cache" / "fieldflow").string();
    return {};
}

std::string DiskCache::entry_path(const Hash128& key) const {
    const std::string hex = key.hex();
    return (fs::path(dir_) / "v1" / hex.substr(0, 2) / (hex + ".ffc")).string();
}

std::string DiskCache::state_path(const Hash128& key) const {
    return (fs::path(dir_) / "state" / key.hex()).string();
}

bool DiskCache::remove_state(const Hash128& key, std::string& warning) const {
    warning.clear();
    std::error_code ec;
    const fs::path path = state_path(key);
    fs::remove_all(path, ec);
    if (ec) warning = "cannot remove the state folder " + path.string() + ": " + ec.message();
    return !ec;
}

std::optional<OutputMap> DiskCache::load(const Hash128& key, std::string& warning) const {
    warning.clear();
    const std::string path = entry_path(key);
    std::string data, error;
    std::string why;
    try {
        // Anything at the path that cannot be read (a folder, a FIFO, an I/O error) is a miss
        // with a warning, never an exception out of the run.
        switch (read_regular_file(path, data, error)) {
        case ReadStatus::missing: return std::nullopt; // a plain miss
        case ReadStatus::failed:
            warning = "cache entry " + path + " " + error + "; recomputing";
            return std::nullopt;
        case ReadStatus::ok: break;
        }
        auto outputs = decode(data, key, why);
        if (!outputs) warning = "cache entry " + path + " is unusable (" + why + "); recomputing";
        return outputs;
    } catch (const std::bad_alloc&) {
        warning = "cache entry " + path + " is unusable (too large); recomputing";
        return std::nullopt;
    }
}

bool DiskCache::store(const Hash128& key, const OutputMap& outputs, std::string& warning) const {
    warning.clear();
    Writer w;
    w.raw(kMagic, sizeof kMagic);
    w.num<uint32_t>(kFormat);
    w.num<uint32_t>(uint32_t(outputs.size()));
    w.num<uint64_t>(key.high);
    w.num<uint64_t>(key.low);
    for (const auto& [name, value] : outputs) {
        w.text(name);
        w.text(value->type);
        w.num<uint8_t>(value->is_image ? 1 : 0);
        w.num<uint32_t>(value->width);
        w.num<uint32_t>(value->height);
        w.num<uint32_t>(value->channels);
        w.num<uint32_t>(value->bits);
        w.num<uint64_t>(value->byte_size());
        if (value->is_image) w.raw(value->pixels.data(), value->byte_size());
        else w.raw(value->bytes.data(), value->bytes.size());
    }
    w.num<uint64_t>(checksum64(w.buf.data(), w.buf.size()));

    const fs::path final_path = entry_path(key);
    std::error_code ec;
    fs::create_directories(final_path.parent_path(), ec);
    if (ec) {
        warning = "cannot create cache folder " + final_path.parent_path().string() + ": " + ec.message();
        return false;
    }
    // A unique temp name per writer, renamed into place: readers see the old entry or the whole
    // new one, and two processes storing the same key both succeed.
    static std::atomic<uint64_t> counter{0};
    const fs::path temp = final_path.string() + ".tmp." + std::to_string(::getpid()) + "." +
                          std::to_string(counter.fetch_add(1));
    FILE* f = std::fopen(temp.c_str(), "wb");
    if (!f) {
        warning = "cannot write cache entry " + temp.string() + ": " + std::strerror(errno);
        return false;
    }
    bool ok = std::fwrite(w.buf.data(), 1, w.buf.size(), f) == w.buf.size();
    ok = std::fflush(f) == 0 && ok;
    ok = ::fsync(::fileno(f)) == 0 && ok;
    ok = std::fclose(f) == 0 && ok;
    if (ok) {
        fs::rename(temp, final_path, ec);
        ok = !ec;
    }
    if (!ok) {
        warning = "cannot write cache entry " + final_path.string() + ": " +
                  (ec ? ec.message() : std::string(std::strerror(errno)));
        fs::remove(temp, ec);
        return false;
    }
    return true;
}

} // namespace fieldflow::host
