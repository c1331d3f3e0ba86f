#include "report_crops.hpp"

#include <cstdio>

namespace ff::neural {

namespace {

constexpr const char* kStyle = R"(<style>
.crops { display: flex; flex-wrap: wrap; gap: 1em 2em; }
.crop-images { display: flex; gap: 6px; flex-wrap: wrap; cursor: zoom-in; }
.crop-images[data-zoom="4"] { cursor: zoom-out; }
.crop-images:focus { outline: 2px solid #36c; outline-offset: 2px; }
.crop-images figure { margin: 0; }
.crop-images img { display: block; image-rendering: pixelated; }
.crop-images figcaption { font-size: 0.85em; }
</style>
)";

// Each region's three images zoom together; the zoom is mirrored in the group's data-zoom so a
// test can read it. Sizes come from the images' width/height attributes (their full-resolution
// pixels), so zooming works before the pictures have decoded.
constexpr const char* kScript = R"(<script>
(function () {
  const zooms = [1, 2, 4];
  document.querySelectorAll('.crop-images').forEach((group) => {
    function set(zoom) {
      group.dataset.zoom = zoom;
      group.querySelectorAll('img').forEach((img) => {
        img.style.width = (+img.getAttribute('width') * zoom) + 'px';
        img.style.height = (+img.getAttribute('height') * zoom) + 'px';
      });
    }
    const at = () => zooms.indexOf(+group.dataset.zoom);
    group.addEventListener('click', () => set(zooms[(at() + 1) % zooms.length]));
    group.addEventListener('keydown', (event) => {
      const key = event.key;
      if (key === 'Enter' || key === ' ') set(zooms[(at() + 1) % zooms.length]);
      else if (key === '+' || key === '=') set(zooms[Math.min(zooms.length - 1, at() + 1)]);
      else if (key === '-') set(zooms[Math.max(0, at() - 1)]);
      else return;
      event.preventDefault();
    });
  });
})();
</script>
)";

std::string db(double value) {
    char buffer[32];
    std::snprintf(buffer, sizeof buffer, "%.2f dB", value);
    return buffer;
}

} // namespace

std::string crops_section(const std::vector<ReportCrop>& crops) {
    std::string html = kStyle;
    html += "<h2>1:1 crops: where learned wins most, and where bilinear wins most</h2>\n<p class=\"note\">"
            "Full-resolution pixels, one pixel per screen pixel. Learned's regions are the tiles where "
            "its mean squared error is lowest against bilinear's; bilinear's are the squares of whole "
            "8x8 blocks (the blocks counted under Where each wins) where its summed squared error is "
            "lowest against learned's, as large as the cluster of blocks it wins in. Each is labelled "
            "with both images' PSNR in the region. Click a region (or focus it and press "
            "Enter, <b>+</b> or <b>-</b>) to zoom its pictures together to 2x and 4x.</p>\n"
            "<div class=\"crops\">\n";
    bool any_bilinear_win = false;
    for (const ReportCrop& c : crops) {
        any_bilinear_win |= !c.learned_wins;
        const std::string where = std::to_string(c.width) + "x" + std::to_string(c.height) + " at (" +
                                  std::to_string(c.x) + ", " + std::to_string(c.y) + ")";
        const std::string size = " width=\"" + std::to_string(c.width) + "\" height=\"" +
                                 std::to_string(c.height) + "\"";
        std::string pictures;
        for (const ReportCropPanel& p : c.panels)
            pictures += "<figure>" + embedded_img(p.png, p.label + ", " + where, "", size) + "<figcaption>" +
                        html_escape(p.label) + (p.psnr ? " " + db(*p.psnr) : std::string()) +
                        "</figcaption></figure>";
        const double margin = c.learned_psnr - c.bilinear_psnr;
        const std::string verdict = c.learned_wins ? "Learned wins most here" : "Bilinear wins most here";
        const std::string scores = "bilinear " + db(c.bilinear_psnr) + ", learned " + db(c.learned_psnr) +
                                   " (learned " + (margin >= 0 ? "+" : "") + db(margin) + ")";
        html += "<div class=\"crop\" data-winner=\"" + std::string(c.learned_wins ? "learned" : "bilinear") +
                "\"><div class=\"crop-verdict\"><b>" + verdict + "</b>: " + scores +
                "</div><div class=\"crop-images\" tabindex=\"0\" role=\"button\" data-zoom=\"1\" "
                "aria-label=\"zoom region " + html_escape(where) + "\">" + pictures +
                "</div><div class=\"note\">Region " + html_escape(where) + "</div></div>\n";
    }
    html += "</div>\n";
    if (!any_bilinear_win)
        html += "<p class=\"note\">Bilinear is closer to the ground truth in none of the image's blocks: "
                "there is no region where it wins.</p>\n";
    return html;
}

std::string crops_script() { return kScript; }

} // namespace ff::neural
