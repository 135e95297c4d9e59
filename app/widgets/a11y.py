"""Keyboard, assistive technology and phone layout, written once for every chapter.

- `install(doc)` gives the page a viewport (phones lay it out at device width) through the
  document's template, which `panel serve` and `panel convert` (the static pages) both render, and
  runs A11Y_JS once the document is on screen, in both modes (the static site's pre-rendered
  document too). That script walks Bokeh's views whenever the page's DOM changes and:
  names every slider handle after its slider's title (noUiSlider's handles have role=slider and
  no name) and gives it the slider's exact value (noUiSlider's has one decimal), exposes toggle
  states (`aria-pressed`; `aria-expanded` on the contents button), marks
  the current chapter in the table of contents `aria-current="page"`, makes the contents a `nav`
  landmark and the chapter area `main`, gives each figure without a description role=img and a
  label from its title and axes, hides MathJax's SVG behind the TeX label of its `.gl-math`
  wrapper (content.render), wires the skip link, and adopts PAGE_CSS (a visible focus ring; on a
  phone nothing wider than its container) into every shadow root, where no page style reaches.
- `describe(fig, text)`: a figure's text alternative (role=img + aria-label on its element,
  through Bokeh's `html_attributes`, so it is in the pre-rendered page too).
- `skip_link()`: "Skip to the chapter", the first stop of Tab; it moves focus to the chapter.
Colours come from the theme's custom properties only (var(--gl-focus), ...).
"""
import panel as pn
from bokeh.models import CustomJS

VIEWPORT = '<meta name="viewport" content="width=device-width, initial-scale=1">'
# Panel's page template (panel/_templates/base.html) has no viewport; a document's template may be
# a string that extends it (panel.io.server.html_page_for_render_items).
SERVE_TEMPLATE = "{% block postamble %}" + VIEWPORT + "{{ gl_head }}{% endblock %}"
NARROW = 700           # px: below this the contents fold away behind a button and stack above

# Adopted into every shadow root (each Bokeh view's): the focus ring; on a narrow page no element
# wider than its container (fixed widths shrink, rows wrap, a figure clips its overlays).
PAGE_CSS = """
:focus-visible { outline: 3px solid var(--gl-focus) !important; outline-offset: 2px !important; }
.noUi-handle:focus-visible, .noUi-handle:focus { outline: 3px solid var(--gl-focus) !important; outline-offset: 1px !important; }
:host([role="main"]:focus) { outline: none; }
@media (max-width: %dpx) {
  :host(.bk-panel-models-layout-Column), :host(.bk-panel-models-markup-HTML) { max-width: 100%% !important; min-width: 0 !important; }
  :host(.bk-Row) { flex-wrap: wrap !important; }
  :host(.bk-Figure) { overflow: hidden !important; }
  :host(.bk-panel-models-markup-HTML) > div { max-width: 100%% !important; min-width: 0 !important; }
}
""" % NARROW

SKIP_CSS = """
.gl-skip { position: absolute; left: -10000px; top: auto; width: 1px; height: 1px; overflow: hidden; }
.gl-skip:focus { left: 6px; top: 6px; z-index: 10; width: auto; height: auto; padding: 4px 8px;
  color: var(--gl-text); background: var(--gl-page); border: 2px solid var(--gl-focus); border-radius: 4px; }
"""

# The lab's Row: the contents beside the chapter; on a narrow page they wrap above it.
LAB_CSS = """
@media (max-width: %dpx) {
  :host { flex-wrap: wrap !important; min-width: 0 !important; }
  .gl-toc { width: 100%% !important; flex: 0 0 100%% !important; min-width: 0 !important; height: auto !important; max-height: none !important;
            position: static !important; overflow: visible !important; border-right: none !important;
            border-bottom: 1px solid var(--gl-border); }
  .gl-chapter-area { width: 100%% !important; flex: 0 0 100%% !important; min-width: 0 !important; }
}
""" % NARROW

# The chapter area: narrower margins on a narrow page.
AREA_CSS = """
@media (max-width: %dpx) {
  .gl-main { min-width: 0 !important; margin-left: 6px !important; margin-right: 6px !important;
             width: calc(100%% - 12px) !important; }
  .gl-lab-message { margin-left: 12px !important; margin-right: 12px !important; }
}
""" % NARROW

# The contents column: its fold button only on a narrow page; folded, only the button shows.
TOC_FOLD_CSS = """
.gl-toc-toggle { display: none !important; }
@media (max-width: %dpx) {
  .gl-toc-toggle { display: block !important; }
  :host(:not(.gl-toc-open)) .gl-nav { display: none !important; }
}
""" % NARROW

A11Y_JS = r"""
if (!window.glA11y) {
  window.glA11y = true;
  const sheet = new CSSStyleSheet();
  sheet.replaceSync(css);
  const observed = new WeakSet();
  let timer = null;
  const schedule = () => { if (timer === null) timer = setTimeout(pass, 30); };
  const observe = (root) => {
    if (!root || observed.has(root)) return;
    observed.add(root);
    if (root !== document && !root.adoptedStyleSheets.includes(sheet))
      root.adoptedStyleSheets = [...root.adoptedStyleSheets, sheet];
    new MutationObserver(schedule).observe(root, {childList: true, subtree: true, attributes: true,
                                                  attributeFilter: ["class", "aria-valuenow"]});
  };
  const set = (el, name, value) => {
    if (!el) return;
    if (value === null) { if (el.hasAttribute(name)) el.removeAttribute(name); }
    else if (el.getAttribute(name) !== String(value)) el.setAttribute(name, String(value));
  };
  const text = (x) => (x == null ? "" : typeof x === "string" ? x : (x.text || "")).trim();
  const views = () => {
    const out = [];
    if (window.Bokeh && Bokeh.index && Bokeh.index.all_views) {
      try { for (const v of Bokeh.index.all_views()) out.push(v); } catch (e) { /* a view went away */ }
    }
    return out;
  };
  const focusChapter = (event) => {
    event.preventDefault();
    const area = views().find(v => (v.model.css_classes || []).includes("gl-chapter-area"));
    if (!area) return;
    area.el.setAttribute("tabindex", "-1");
    area.el.focus();
  };
  const figureAlt = (m) => {
    const axes = [...(m.below || []), ...(m.left || [])].map(a => text(a.axis_label)).filter(Boolean);
    const title = text(m.title);
    return "Figure" + (title ? ": " + title : "") + (axes.length ? " (axes: " + axes.join("; ") + ")" : "");
  };
  const pass = () => {
    timer = null;
    for (const v of views()) {
      const m = v.model, cls = m.css_classes || [], type = m.type || "";
      if (v.shadow_el) observe(v.shadow_el);
      if (!v.el) continue;
      if (cls.includes("gl-toc")) { set(v.el, "role", "navigation"); set(v.el, "aria-label", "Chapters"); }
      if (cls.includes("gl-chapter-area")) { set(v.el, "role", "main"); set(v.el, "aria-label", "Chapter"); }
      if (v.button_el) {
        if (cls.includes("gl-nav")) set(v.button_el, "aria-current", m.button_type === "primary" ? "page" : null);
        if ("active" in m && typeof m.active === "boolean")
          set(v.button_el, cls.includes("gl-toc-toggle") ? "aria-expanded" : "aria-pressed", m.active);
      }
      if (v.shadow_el && "title" in m && /Slider$/.test(type)) {
        const handles = v.shadow_el.querySelectorAll(".noUi-handle");
        const name = text(m.title) || "value";
        handles.forEach((h, i) => set(h, "aria-label", handles.length > 1 ? name + (i ? " (upper)" : " (lower)") : name));
        // noUiSlider writes its value with one decimal (1.25 read as 1.3): the model's value instead
        if (handles.length === 1 && typeof m.value === "number" && m.show_value !== false) {
          const exact = (x) => String(Number(Number(x).toPrecision(12)));
          set(handles[0], "aria-valuenow", exact(m.value));
          set(handles[0], "aria-valuetext", exact(m.value));
          set(handles[0], "aria-valuemin", exact(m.start));
          set(handles[0], "aria-valuemax", exact(m.end));
        }
      }
      if ("renderers" in m && "x_range" in m && !v.el.hasAttribute("aria-label")) {
        set(v.el, "role", "img");
        set(v.el, "aria-label", figureAlt(m));
      }
      if (v.shadow_el) {
        const name = text(m.title) || text(m.label);
        v.shadow_el.querySelectorAll(".bk-spin-btn-up, .bk-spin-btn-down").forEach(b =>
          set(b, "aria-label", (b.classList.contains("bk-spin-btn-up") ? "Increase " : "Decrease ") + (name || "the value")));
        v.shadow_el.querySelectorAll(".gl-math svg, .gl-math mjx-assistive-mml").forEach(s => set(s, "aria-hidden", "true"));
        // display math wider than the column scrolls in its own box: a keyboard reaches it there
        v.shadow_el.querySelectorAll(".katex-display, mjx-container[display=true]").forEach(el =>
          set(el, "tabindex", el.scrollWidth > el.clientWidth + 1 ? "0" : null));
        v.shadow_el.querySelectorAll(".gl-skip").forEach(a => {
          if (!a.glSkip) { a.glSkip = true; a.addEventListener("click", focusChapter); }
        });
      }
    }
  };
  observe(document);
  window.addEventListener("resize", schedule);     // what overflows changes with the width and
  if (document.fonts) document.fonts.addEventListener("loadingdone", schedule);   // the fonts
  pass();
}
"""


def install(doc, head=""):
    """The page's viewport and `head`, more of its <head> (panel serve: through the document's
    template), and A11Y_JS, run once the document is on screen (in the static site also for the
    pre-rendered document)."""
    from bokeh.core.templates import FILE
    from markupsafe import Markup
    from panel.io.resources import BASE_TEMPLATE
    if doc.template is FILE or doc.template is BASE_TEMPLATE:     # not a template of someone else's
        doc.template = SERVE_TEMPLATE
        doc.template_variables["gl_head"] = Markup(head)
    doc.js_on_event("document_ready", CustomJS(code=A11Y_JS, args={"css": PAGE_CSS}))


def describe(fig, text):
    """A figure's text alternative: role=img and `text` as its element's aria-label."""
    fig.html_attributes = {**fig.html_attributes, "role": "img", "aria-label": text}
    return fig


def skip_link():
    """"Skip to the chapter": visually hidden until it has focus (then over the masthead, so that the
    layout does not shift as it comes and goes); the first stop of Tab."""
    return pn.pane.HTML('<button class="gl-skip" type="button">Skip to the chapter</button>', stylesheets=[SKIP_CSS],
                        css_classes=["gl-skip-link"], margin=0, sizing_mode="stretch_width")
