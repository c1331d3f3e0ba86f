#include <fieldflow/host/batch/summary.hpp>

#include "result_json.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cstring>
#include <fstream>
#include <random>
#include <sstream>
#include <stdexcept>

namespace fs = std::filesystem;
using nlohmann::json;

namespace fieldflow::host::batch {
namespace {

constexpr int kSummaryFormat = 1;

struct Mean {
    double sum = 0.0;
    size_t n = 0;
    void add(const std::optional<double>& v) {
        if (v) sum += *v, ++n;
    }
    std::optional<double> value() const { return n ? std::optional<double>(sum / double(n)) : std::nullopt; }
};

std::string fixed(const std::optional<double>& v, int digits) {
    if (!v) return "";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.*f", digits, *v);
    return buf;
}

template <typename T>
std::string integer(const std::optional<T>& v) {
    return v ? std::to_string(*v) : std::string();
}

std::string csv_field(const std::string& s) {
    if (s.find_first_of(",\"\n\r") == std::string::npos) return s;
    std::string out = "\"";
    for (char c : s) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + "\"";
}

std::string html(const std::string& s) {
    std::string out;
    for (char c : s) {
        switch (c) {
        case '&': out += "&amp;"; break;
        case '<': out += "&lt;"; break;
        case '>': out += "&gt;"; break;
        case '"': out += "&quot;"; break;
        case '\'': out += "&#39;"; break;
        default: out += c;
        }
    }
    return out;
}

// A relative path as an href: each segment percent-encoded where needed.
std::string href(const std::string& path) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : path) {
        if (std::isalnum(c) || c == '/' || c == '.' || c == '_' || c == '-') out += char(c);
        else out += std::string("%") + hex[c >> 4] + hex[c & 15];
    }
    return out;
}

// The devices a retried image failed on, in order: "7;8".
std::string retried_on(const ImageResult& r) {
    std::string out;
    for (const FailedAttempt& a : r.retried_after) out += (out.empty() ? "" : ";") + a.device;
    return out;
}

json devices_out_json(const SummaryInfo& info) {
    json list = json::array();
    for (const auto& [device, error] : info.devices_out) list.push_back({{"device", device}, {"error", error}});
    return list;
}

std::string csv_text(const std::vector<ImageResult>& results) {
    std::ostringstream out;
    out << "stem,status,input,psnr_learned,psnr_bilinear,psnr_gain,ssim_learned,ssim_bilinear,psnr,"
           "ssim,steps,train_seconds,model_bytes,device,seconds,shard,report,error,ran_on,retried_on\n";
    for (const ImageResult& r : results) {
        const ImageMetrics& m = r.metrics;
        out << csv_field(r.stem) << ',' << csv_field(r.status) << ',' << csv_field(r.input) << ','
            << fixed(m.psnr_learned, 4) << ',' << fixed(m.psnr_bilinear, 4) << ','
            << fixed(m.psnr_gain(), 4) << ',' << fixed(m.ssim_learned, 6) << ','
            << fixed(m.ssim_bilinear, 6) << ',' << fixed(m.psnr, 4) << ',' << fixed(m.ssim, 6) << ','
            << integer(m.steps) << ',' << fixed(m.train_seconds, 3) << ',' << integer(m.model_bytes)
            << ',' << csv_field(m.device) << ',' << fixed(r.seconds, 3) << ',' << csv_field(r.shard)
            << ',' << csv_field(r.report) << ',' << csv_field(r.error) << ',' << csv_field(r.ran_on)
            << ',' << csv_field(retried_on(r)) << '\n';
    }
    return out.str();
}

json totals_json(const SummaryTotals& t) {
    auto opt = [](const std::optional<double>& v) { return v ? json(*v) : json(nullptr); };
    return json{{"images", t.images},
                {"done", t.done},
                {"failed", t.failed},
                {"not_run", t.not_run},
                {"means",
                 {{"over", "done images that have the value"},
                  {"psnr_note", "mean of the per-image PSNRs in dB, not the PSNR of the pooled error"},
                  {"psnr_learned", opt(t.psnr_learned)},
                  {"psnr_bilinear", opt(t.psnr_bilinear)},
                  {"psnr_gain", opt(t.psnr_gain)},
                  {"ssim_learned", opt(t.ssim_learned)},
                  {"ssim_bilinear", opt(t.ssim_bilinear)},
                  {"psnr", opt(t.psnr)},
                  {"ssim", opt(t.ssim)},
                  {"train_seconds", opt(t.train_seconds)}}}};
}

std::string json_text(const std::vector<ImageResult>& results, const SummaryInfo& info) {
    json images = json::array();
    for (const ImageResult& r : results) images.push_back(result_to_json(r));
    json j = {{"fieldflow_batch", kSummaryFormat},
              {"graph", info.graph},
              {"shard", info.shard.empty() ? json(nullptr) : json(info.shard)},
              {"merged", info.merged},
              {"interrupted", info.interrupted},
              {"devices_taken_out", devices_out_json(info)},
              {"totals", totals_json(summary_totals(results))},
              {"images", images}};
    return j.dump(2) + "\n";
}

// One table cell: data-v holds the sort key (numbers sort as numbers, blanks last).
std::string cell(const std::string& shown, const std::optional<double>& key) {
    if (!key) return "<td></td>";
    char buf[64];
    std::snprintf(buf, sizeof buf, "%.17g", *key);
    return std::string("<td data-v=\"") + buf + "\">" + html(shown) + "</td>";
}

// One metric column of the page: its heading, the value it shows and how (digits < 0: integer).
struct MetricColumn {
    const char* heading;
    std::optional<double> (*value)(const ImageMetrics&);
    int digits;
};

std::optional<double> as_double(const std::optional<uint64_t>& v) {
    return v ? std::optional<double>(double(*v)) : std::nullopt;
}

const std::vector<MetricColumn>& metric_columns() {
    static const std::vector<MetricColumn> columns = {
        {"PSNR gain (dB)", [](const ImageMetrics& m) { return m.psnr_gain(); }, 2},
        {"PSNR learned", [](const ImageMetrics& m) { return m.psnr_learned; }, 2},
        {"PSNR bilinear", [](const ImageMetrics& m) { return m.psnr_bilinear; }, 2},
        {"SSIM learned", [](const ImageMetrics& m) { return m.ssim_learned; }, 4},
        {"SSIM bilinear", [](const ImageMetrics& m) { return m.ssim_bilinear; }, 4},
        {"PSNR", [](const ImageMetrics& m) { return m.psnr; }, 2},
        {"SSIM", [](const ImageMetrics& m) { return m.ssim; }, 4},
        {"steps", [](const ImageMetrics& m) { return as_double(m.steps); }, -1},
        {"train s", [](const ImageMetrics& m) { return m.train_seconds; }, 1},
        {"model bytes", [](const ImageMetrics& m) { return as_double(m.model_bytes); }, -1},
    };
    return columns;
}

std::vector<MetricColumn> shown_columns(const std::vector<ImageResult>& results) {
    std::vector<MetricColumn> shown;
    for (const MetricColumn& c : metric_columns())
        if (std::any_of(results.begin(), results.end(), [&](const ImageResult& r) { return c.value(r.metrics).has_value(); }))
            shown.push_back(c);
    return shown;
}

// How the page starts sorted: by the first metric shown (column `first_metric`), best first (PSNR
// gain when the graph has a baseline), else by image name.
std::string initial_sort(const std::vector<MetricColumn>& shown, int first_metric) {
    return shown.empty() ? "0,false" : std::to_string(first_metric) + ",true";
}

// The picture the Report leaves next to an image's outputs (graphs/lake.yaml: thumbnail.png), as
// an href from the summary's folder; empty when the image has none.
std::string thumbnail_of(const fs::path& dir, const ImageResult& r) {
    if (r.folder.empty()) return {};
    const std::string file = r.folder + "/thumbnail.png";
    std::error_code ec;
    return fs::is_regular_file(dir / file, ec) ? file : std::string();
}

std::string html_text(const std::vector<ImageResult>& results, const SummaryInfo& info,
                      const fs::path& dir) {
    const SummaryTotals t = summary_totals(results);
    std::ostringstream out;
    std::string title = "fieldflow batch: " + info.graph;
    if (!info.shard.empty()) title += " (shard " + info.shard + ")";
    out << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n<title>" << html(title)
        << "</title>\n<style>\n"
           "body{font-family:system-ui,sans-serif;margin:2em;color:#222}\n"
           "table{border-collapse:collapse}th,td{padding:.25em .6em;border-bottom:1px solid #ddd;"
           "text-align:right}\n"
           "th{cursor:pointer;background:#f4f4f4;position:sticky;top:0}td.p{padding:2px .3em}td.p img{display:block;height:72px}"
           "th:first-child,td:first-"
           "child,td.s,td.e{text-align:left}\n"
           "tr.failed td{background:#fff0f0}tr.notrun td{color:#888}td.e{max-width:40em;"
           "white-space:pre-wrap;font-size:.9em}\n"
           "</style></head><body>\n<h1>"
        << html(title) << "</h1>\n<p>" << t.images << " images: " << t.done << " done, " << t.failed
        << " failed";
    if (t.not_run) out << ", " << t.not_run << " not run";
    out << (info.interrupted ? " (the batch was interrupted)" : "") << ".</p>\n";
    for (const auto& [device, error] : info.devices_out)
        out << "<p>Device " << html(device) << " was taken out of the rotation: "
            << html(error) << "</p>\n";
    for (const ImageResult& r : results)
        if (!r.retried_after.empty())
            out << "<p>Retried " << html(r.stem) << ": " << html(retry_story(r)) << ".</p>\n";
    if (!info.merged.empty()) {
        out << "<p>Merged from:";
        for (const std::string& d : info.merged) out << " <code>" << html(d) << "</code>";
        out << "</p>\n";
    }
    out << "<p>Means over the done images (mean PSNR is the mean of the per-image PSNRs in dB, "
           "not the PSNR of the pooled error):";
    auto mean = [&](const char* name, const std::optional<double>& v, int digits, const char* unit) {
        if (v) out << " " << name << " " << fixed(v, digits) << unit << ";";
    };
    mean("PSNR learned", t.psnr_learned, 2, " dB");
    mean("PSNR bilinear", t.psnr_bilinear, 2, " dB");
    mean("PSNR gain", t.psnr_gain, 2, " dB");
    mean("SSIM learned", t.ssim_learned, 4, "");
    mean("SSIM bilinear", t.ssim_bilinear, 4, "");
    mean("PSNR", t.psnr, 2, " dB");
    mean("SSIM", t.ssim, 4, "");
    mean("training time", t.train_seconds, 1, " s");
    // The metric columns, each shown only when some image has a value for it: a graph without
    // a bilinear baseline (or without training) gets no columns that are always empty. The
    // picture column likewise appears only when some image has a thumbnail.
    const std::vector<MetricColumn> columns = shown_columns(results);
    const bool pictures = std::any_of(results.begin(), results.end(),
                                      [&](const ImageResult& r) { return !thumbnail_of(dir, r).empty(); });
    out << "</p>\n<p>Click a column heading to sort by it.";
    if (pictures)
        out << " The picture: the learned image, and where it is closer to the truth than bilinear "
               "(green) or further (magenta); sorting by it sorts by the gain.";
    out << "</p>\n<table>\n<thead><tr><th>image</th><th>status</th>";
    if (pictures) out << "<th>picture</th>";
    for (const MetricColumn& c : columns) out << "<th>" << c.heading << "</th>";
    out << "<th>wall s</th><th>log</th><th>error</th></tr></thead>\n<tbody>\n";
    for (const ImageResult& r : results) {
        const std::string cls = r.status == kStatusFailed ? "failed" : r.status == kStatusNotRun ? "notrun" : "";
        out << "<tr" << (cls.empty() ? "" : " class=\"" + cls + "\"") << ">";
        const std::string link = !r.report.empty() ? r.report : r.folder.empty() ? "" : r.folder + "/";
        if (link.empty()) out << "<td>" << html(r.stem) << "</td>";
        else out << "<td><a href=\"" << html(href(link)) << "\">" << html(r.stem) << "</a></td>";
        out << "<td class=\"s\">" << html(r.status) << "</td>";
        const ImageMetrics& m = r.metrics;
        if (pictures) {
            const std::string picture = thumbnail_of(dir, r);
            if (picture.empty()) {
                out << cell("", m.psnr_gain());
            } else {
                char key[64] = "";
                if (m.psnr_gain()) std::snprintf(key, sizeof key, " data-v=\"%.17g\"", *m.psnr_gain());
                out << "<td class=\"p\"" << key << "><img src=\"" << html(href(picture)) << "\" alt=\""
                    << html(r.stem) << ": learned, and its gain on bilinear\"></td>";
            }
        }
        for (const MetricColumn& c : columns) {
            const std::optional<double> v = c.value(m);
            out << cell(c.digits < 0 ? integer(v ? std::optional<uint64_t>(uint64_t(*v)) : std::nullopt)
                                     : fixed(v, c.digits),
                        v);
        }
        out << cell(fixed(r.seconds, 1), r.seconds);
        if (r.log.empty()) out << "<td></td>";
        else out << "<td><a href=\"" << html(href(r.log)) << "\">log</a></td>";
        out << "<td class=\"e\">" << html(r.error) << "</td></tr>\n";
    }
    // Sorting: numeric columns by data-v (blanks last), others by text; a second click reverses.
    // The table starts sorted by its first metric column, best first.
    out << "</tbody></table>\n<script>\n"
           "const tb=document.querySelector('tbody');\n"
           "function key(td){return td.dataset.v!==undefined?parseFloat(td.dataset.v):td.textContent;}\n"
           "function sortBy(i,desc){const rows=[...tb.rows];rows.sort((a,b)=>{const x=key(a.cells[i]),"
           "y=key(b.cells[i]);const bx=x==='',by=y==='';if(bx||by)return bx-by;"
           "const c=typeof x==='number'&&typeof y==='number'?x-y:String(x).localeCompare(String(y));"
           "return desc?-c:c;});rows.forEach(r=>tb.appendChild(r));}\n"
           "document.querySelectorAll('th').forEach((th,i)=>th.onclick=()=>{th.dataset.desc="
           "th.dataset.desc==='1'?'0':'1';sortBy(i,th.dataset.desc==='1');});\n"
           "sortBy(" << initial_sort(columns, pictures ? 3 : 2) << ");\n</script>\n</body></html>\n";
    return out.str();
}

std::runtime_error io_error(const std::string& what, const fs::path& file) {
    return std::runtime_error(what + " '" + file.string() + "': " + std::strerror(errno));
}

} // namespace

std::string retry_story(const ImageResult& r) {
    if (r.retried_after.empty()) return "";
    std::string story = "failed on device";
    if (r.retried_after.size() > 1) story += "s";
    for (const FailedAttempt& a : r.retried_after) story += (&a == &r.retried_after.front() ? " " : ", ") + a.device;
    if (r.status == kStatusNotRun) return story + ", then not run";
    if (r.ran_on == r.retried_after.back().device) return story + "; no device was left for it";
    return story + ", then " + r.status + " on device " + r.ran_on;
}

SummaryTotals summary_totals(const std::vector<ImageResult>& results) {
    SummaryTotals t;
    Mean pl, pb, pg, sl, sb, p, s, ts;
    for (const ImageResult& r : results) {
        ++t.images;
        if (r.status == kStatusFailed) ++t.failed;
        else if (r.status == kStatusNotRun) ++t.not_run;
        if (r.status != kStatusDone) continue;
        ++t.done;
        const ImageMetrics& m = r.metrics;
        pl.add(m.psnr_learned), pb.add(m.psnr_bilinear), pg.add(m.psnr_gain());
        sl.add(m.ssim_learned), sb.add(m.ssim_bilinear), p.add(m.psnr), s.add(m.ssim);
        ts.add(m.train_seconds);
    }
    t.psnr_learned = pl.value(), t.psnr_bilinear = pb.value(), t.psnr_gain = pg.value();
    t.ssim_learned = sl.value(), t.ssim_bilinear = sb.value(), t.psnr = p.value(), t.ssim = s.value();
    t.train_seconds = ts.value();
    return t;
}

void write_file_atomically(const fs::path& path, const std::string& text) {
    static thread_local std::mt19937_64 rng{std::random_device{}()};
    const fs::path temp = path.parent_path() /
                          ("." + path.filename().string() + ".tmp." + std::to_string(::getpid()) +
                           "." + std::to_string(rng() % 1000000));
    const int fd = ::open(temp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0) throw io_error("cannot create", temp);
    size_t written = 0;
    while (written < text.size()) {
        const ssize_t n = ::write(fd, text.data() + written, text.size() - written);
        if (n < 0 && errno == EINTR) continue;
        if (n < 0) {
            const auto error = io_error("cannot write", temp);
            ::close(fd);
            ::unlink(temp.c_str());
            throw error;
        }
        written += size_t(n);
    }
    if (::fsync(fd) != 0 || ::close(fd) != 0) {
        const auto error = io_error("cannot write", temp);
        ::unlink(temp.c_str());
        throw error;
    }
    if (::rename(temp.c_str(), path.c_str()) != 0) {
        const auto error = io_error("cannot rename a temp file to", path);
        ::unlink(temp.c_str());
        throw error;
    }
}

void write_summary(const fs::path& dir, const std::vector<ImageResult>& results,
                   const SummaryInfo& info) {
    write_file_atomically(dir / "summary.csv", csv_text(results));
    write_file_atomically(dir / "summary.json", json_text(results, info));
    write_file_atomically(dir / "index.html", html_text(results, info, dir));
}

SummaryFile read_summary_json(const fs::path& file) {
    std::ifstream in(file, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read '" + file.string() + "'");
    std::ostringstream text;
    text << in.rdbuf();
    const json j = json::parse(text.str(), nullptr, false);
    if (j.is_discarded() || !j.is_object())
        throw std::runtime_error("'" + file.string() + "' is not a JSON object");
    if (j.value("fieldflow_batch", 0) != kSummaryFormat)
        throw std::runtime_error("'" + file.string() + "' is not a fieldflow batch summary (format " +
                                 std::to_string(kSummaryFormat) + ")");
    SummaryFile out;
    out.info.graph = j.value("graph", "");
    if (j.contains("shard") && j["shard"].is_string()) out.info.shard = j["shard"].get<std::string>();
    out.info.interrupted = j.value("interrupted", false);
    if (j.contains("devices_taken_out") && j["devices_taken_out"].is_array())
        for (const json& d : j["devices_taken_out"])
            if (d.is_object()) out.info.devices_out.emplace_back(d.value("device", ""), d.value("error", ""));
    const auto images = j.find("images");
    if (images == j.end() || !images->is_array())
        throw std::runtime_error("'" + file.string() + "' has no 'images' list");
    for (size_t i = 0; i < images->size(); ++i) {
        try {
            out.results.push_back(result_from_json((*images)[i]));
        } catch (const std::exception& e) {
            throw std::runtime_error("'" + file.string() + "': image " + std::to_string(i + 1) + ": " + e.what());
        }
    }
    return out;
}

} // namespace fieldflow::host::batch
