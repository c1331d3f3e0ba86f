#include <fieldflow/host/cache.hpp>

namespace fieldflow::host {

std::optional<OutputMap> MemoryCache::find(const Hash128& key) const {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(key);
    if (it == entries_.end()) return std::nullopt;
    return it->second;
}

void MemoryCache::store(const Hash128& key, const OutputMap& outputs) {
    std::lock_guard lock(mutex_);
    entries_[key] = outputs;
}

size_t MemoryCache::size() const {
    std::lock_guard lock(mutex_);
    return entries_.size();
}

} // namespace fieldflow::host
