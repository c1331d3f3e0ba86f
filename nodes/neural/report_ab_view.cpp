#include "report_ab_view.hpp"

#include "report_page.hpp"

namespace ff::neural {

namespace {

constexpr const char* kStyle = R"(<style>
.ab-controls { display: flex; gap: 1em; flex-wrap: wrap; align-items: center; margin-bottom: 0.5em; }
.ab-view { overflow: auto; max-height: 80vh; border: 1px solid #ccc; background: #444; }
.ab-view:focus { outline: 2px solid #36c; }
.ab-stage { position: relative; width: 100%; cursor: ew-resize; user-select: none; }
.ab-stage img { display: block; width: 100%; height: auto; }
.ab-stage img.ab-top { position: absolute; left: 0; top: 0; }
.ab-stage.pixels img { image-rendering: pixelated; }
.ab-line { position: absolute; top: 0; bottom: 0; width: 2px; margin-left: -1px; background: #fff;
           box-shadow: 0 0 3px #000; pointer-events: none; }
.ab-tag { position: sticky; top: 0; display: inline-block; background: rgba(0,0,0,.65); color: #fff;
          padding: 2px 6px; font-size: 0.85em; z-index: 1; }
</style>
)";

// `state` holds what is shown; show() applies it and mirrors it in body[data-ab-state] so a test
// can read what the control did.
constexpr const char* kScript = R"(<script>
(function () {
  const $ = (id) => document.getElementById(id);
  const views = Array.from(document.querySelectorAll('img[data-view]'))
    .sort((x, y) => x.dataset.view - y.dataset.view);
  const zooms = [0, 1, 2, 4, 8];
  const state = { a: +$('ab-a').value, b: +$('ab-b').value, split: +$('ab-split').value, zoom: 0 };
  function show() {
    const va = views[state.a], vb = views[state.b];
    if ($('ab-img-a').getAttribute('src') !== va.getAttribute('src')) $('ab-img-a').src = va.src;
    if ($('ab-img-b').getAttribute('src') !== vb.getAttribute('src')) $('ab-img-b').src = vb.src;
    $('ab-img-a').alt = va.alt;
    $('ab-img-b').alt = vb.alt;
    $('ab-a').value = state.a;
    $('ab-b').value = state.b;
    $('ab-split').value = state.split;
    $('ab-img-b').style.clipPath = 'inset(0 0 0 ' + state.split + '%)';
    $('ab-line').style.left = state.split + '%';
    $('ab-tag').textContent = 'A: ' + $('ab-a').selectedOptions[0].text + '  |  B: ' +
      $('ab-b').selectedOptions[0].text;
    const zoom = zooms[state.zoom];
    $('ab-zoom').value = state.zoom;
    // Fit: the whole picture in the box (the box is at most 80% of the window high).
    const fit = va.naturalHeight ? 'min(100%, ' + (80 * va.naturalWidth / va.naturalHeight) + 'vh)' : '100%';
    $('ab-stage').style.width = zoom ? (va.naturalWidth * zoom) + 'px' : fit;
    $('ab-stage').classList.toggle('pixels', zoom >= 2);
    document.body.dataset.abState = 'a=' + state.a + ';b=' + state.b + ';split=' + state.split +
      ';zoom=' + (zoom || 'fit');
  }
  function flip() { [state.a, state.b] = [state.b, state.a]; show(); }
  function zoomBy(step) {
    state.zoom = Math.min(zooms.length - 1, Math.max(0, state.zoom + step));
    show();
  }
  function splitAt(event) {
    const box = $('ab-stage').getBoundingClientRect();
    state.split = Math.round(Math.min(100, Math.max(0, (event.clientX - box.left) / box.width * 100)));
    show();
  }
  $('ab-a').addEventListener('change', () => { state.a = +$('ab-a').value; show(); });
  $('ab-b').addEventListener('change', () => { state.b = +$('ab-b').value; show(); });
  $('ab-split').addEventListener('input', () => { state.split = +$('ab-split').value; show(); });
  $('ab-zoom').addEventListener('change', () => { state.zoom = +$('ab-zoom').value; show(); });
  $('ab-flip').addEventListener('click', flip);
  $('ab-stage').addEventListener('pointerdown', (event) => {
    $('ab-stage').setPointerCapture(event.pointerId);
    splitAt(event);
  });
  $('ab-stage').addEventListener('pointermove', (event) => { if (event.buttons) splitAt(event); });
  $('ab').addEventListener('keydown', (event) => {
    if (event.target.tagName === 'SELECT') return;
    const key = event.key;
    if (key === 'f' || key === 'F') flip();
    else if (key === '+' || key === '=') zoomBy(1);
    else if (key === '-') zoomBy(-1);
    else if (key === '0') { state.zoom = 0; show(); }
    else if (event.target.id !== 'ab-split' && (key === 'ArrowLeft' || key === 'ArrowRight')) {
      state.split = Math.min(100, Math.max(0, state.split + (key === 'ArrowLeft' ? -5 : 5)));
      show();
    } else return;
    event.preventDefault();
  });
  show();
  views.forEach((v) => v.complete || v.addEventListener('load', show));
})();
</script>
)";

std::string options(const std::vector<std::string>& labels, size_t selected) {
    std::string out;
    for (size_t i = 0; i < labels.size(); ++i)
        out += "<option value=\"" + std::to_string(i) + "\"" + (i == selected ? " selected" : "") +
               ">" + html_escape(labels[i]) + "</option>";
    return out;
}

} // namespace

std::string ab_view_section(const std::vector<std::string>& labels, size_t a, size_t b) {
    std::string html = kStyle;
    html += "<section id=\"ab\">\n<h2>A/B comparison</h2>\n"
            "<p>A shows left of the split, B right of it. Drag or click on the picture, or use the "
            "slider or the arrow keys, to move the split; <b>F</b> (or Flip) swaps the sides; "
            "<b>+</b>/<b>-</b> zoom (1x = one pixel of the shown image per screen pixel), "
            "<b>0</b> fits; scroll to pan.</p>\n<div class=\"ab-controls\">\n";
    html += "<label>A <select id=\"ab-a\">" + options(labels, a) + "</select></label>\n";
    html += "<label>B <select id=\"ab-b\">" + options(labels, b) + "</select></label>\n";
    html += "<label>Split <input type=\"range\" id=\"ab-split\" min=\"0\" max=\"100\" value=\"50\" "
            "aria-label=\"split between A and B, percent from the left\"></label>\n"
            "<button type=\"button\" id=\"ab-flip\">Flip (F)</button>\n"
            "<label>Zoom <select id=\"ab-zoom\"><option value=\"0\">fit</option><option "
            "value=\"1\">1x</option><option value=\"2\">2x</option><option value=\"3\">4x</option>"
            "<option value=\"4\">8x</option></select></label>\n</div>\n"
            "<div class=\"ab-view\" id=\"ab-view\" tabindex=\"0\" aria-label=\"A/B view\">"
            "<span class=\"ab-tag\" id=\"ab-tag\"></span>"
            "<div class=\"ab-stage\" id=\"ab-stage\"><img id=\"ab-img-a\" alt=\"\">"
            "<img id=\"ab-img-b\" class=\"ab-top\" alt=\"\"><div class=\"ab-line\" id=\"ab-line\">"
            "</div></div></div>\n</section>\n";
    return html;
}

std::string ab_view_script() { return kScript; }

} // namespace ff::neural
