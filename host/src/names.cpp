#include <fieldflow/host/names.hpp>

#include <algorithm>
#include <cctype>

namespace fieldflow::host {

bool is_valid_name(std::string_view name) {
    if (name.empty()) return false;
    auto first = static_cast<unsigned char>(name[0]);
    if (!(std::isalpha(first) || first == '_')) return false;
    return std::all_of(name.begin() + 1, name.end(), [](char c) {
        auto u = static_cast<unsigned char>(c);
        return std::isalnum(u) || u == '_' || u == '-';
    });
}

size_t edit_distance(std::string_view a, std::string_view b) {
    std::vector<size_t> row(b.size() + 1);
    for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
    for (size_t i = 1; i <= a.size(); ++i) {
        size_t diagonal = row[0];
        row[0] = i;
        for (size_t j = 1; j <= b.size(); ++j) {
            size_t above = row[j];
            bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) ==
                        std::tolower(static_cast<unsigned char>(b[j - 1]));
            row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (same ? 0 : 1)});
            diagonal = above;
        }
    }
    return row[b.size()];
}

std::string closest_name(std::string_view wanted, const std::vector<std::string>& candidates) {
    // A typo is a few edits; more than a third of the name is a different word.
    size_t limit = std::max<size_t>(2, wanted.size() / 3);
    std::string best;
    size_t best_distance = limit + 1;
    for (const std::string& candidate : candidates) {
        size_t d = edit_distance(wanted, candidate);
        if (d < best_distance && d < wanted.size()) { // replacing every letter is no typo
            best_distance = d;
            best = candidate;
        }
    }
    return best;
}

std::string did_you_mean(std::string_view wanted, const std::vector<std::string>& candidates) {
    std::string best = closest_name(wanted, candidates);
    return best.empty() ? std::string() : " (did you mean '" + best + "'?)";
}

std::string join(const std::vector<std::string>& items, std::string_view separator) {
    std::string out;
    for (size_t i = 0; i < items.size(); ++i) {
        if (i) out += separator;
        out += items[i];
    }
    return out;
}

std::vector<std::string> split(const std::string& s, char separator) {
    std::vector<std::string> out;
    size_t start = 0;
    while (true) {
        const size_t end = s.find(separator, start);
        std::string part = s.substr(start, end == std::string::npos ? std::string::npos : end - start);
        if (!part.empty()) out.push_back(std::move(part));
        if (end == std::string::npos) break;
        start = end + 1;
    }
    return out;
}

} // namespace fieldflow::host
