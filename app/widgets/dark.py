"""The dark theme in the page: the reader's choice (light, dark, or as the system prefers) kept in
localStorage, or a link's `theme=light|dark` (an embed's: not kept), and all on screen following it.

- CSS: the palettes are custom properties (app.widgets.theme); `root_css()` picks one on the root
  element, from `prefers-color-scheme` or its `data-gl-theme` attribute. The static site's pages
  set that attribute from localStorage in <head> (`head_html`, before the first paint); under
  `panel serve` the page script does it once the document is on screen.
- Panel and Bokeh widgets set their own colours (`--background-color`, `--panel-…`) on the
  `:host` of every shadow root, so they do not inherit the page's: WIDGET_CSS maps them onto the
  lab's custom properties, added to every widget of a chapter when it is built (`Theming.apply`).
- Figures are drawn on a canvas: `recolour` sets their colours from Python (plot and axes from
  the palette by role, every other colour the light palette named from the palette on screen, a
  column of colours through one CategoricalColorMapper), again whenever the theme changes. The
  page tells Python the theme through a hidden text field it writes (`gl-theme-state`), in both
  modes (in the static site Python runs in a worker and hears the page only through models).
"""
import json

import bokeh.plotting  # noqa: F401  (registers Figure, whose defaults head_html names)
import panel as pn
from bokeh.core.enums import NamedColor
from bokeh.core.property.dataspec import ColorSpec
from bokeh.core.property.vectorization import Field, Value
from bokeh.model import Model
from bokeh.models import Axis, CategoricalColorMapper, ColorBar, CustomJS, Grid, Legend, Plot, Title
from panel.io.document import unlocked

from gleam_lab.app.widgets.theme import PALETTE, PALETTES, css_names, root_css

STORAGE_KEY = "gl-theme"
CHOICES = {"Follow the system": "system", "Light": "light", "Dark": "dark"}

# Bokeh's and Panel's own colour variables, set on every shadow root's :host, mapped onto ours
WIDGET_CSS = """:host {
  --color: var(--gl-text); --background-color: var(--gl-page); --hover-color: var(--gl-sunken);
  --disabled-color: var(--gl-muted); --border-color: var(--gl-control); --divider-color: var(--gl-border);
  --shortcut-color: var(--gl-muted); --highlight-color: var(--gl-positive); --active-bg: var(--gl-rule);
  --active-border: var(--gl-positive); --active-fg: var(--gl-positive); --inactive-bg: var(--gl-rule);
  --inactive-fg: var(--gl-muted); --icon-color: var(--gl-muted); --inverted-color: var(--gl-on-accent);
  --placeholder-color: var(--gl-muted); --surface-background-color: var(--gl-sunken);
  --disabled-background-color: var(--gl-sunken); --input-focus-border-color: var(--gl-focus);
  --outline-color: var(--gl-focus);
%(buttons)s
  --panel-background-color: var(--gl-page); --panel-on-background-color: var(--gl-text);
  --panel-surface-color: var(--gl-surface); --panel-on-surface-color: var(--gl-text);
  --panel-border-color: var(--gl-border); --panel-primary-color: var(--gl-positive);
  --panel-on-primary-color: var(--gl-on-accent); --panel-secondary-color: var(--gl-rule);
  --panel-on-secondary-color: var(--gl-text);
  color: var(--gl-text);
}
.bk-input, select, textarea { background-color: var(--gl-page); color: var(--gl-text); border-color: var(--gl-control); }
.bk-input[disabled] { background-color: var(--gl-sunken); color: var(--gl-text); opacity: 1; }
.bk-btn-primary { color: var(--gl-on-accent); background-color: var(--gl-positive); }
.bk-btn-success { color: var(--gl-on-accent); background-color: var(--gl-good); border-color: var(--gl-good); }
.bk-btn-danger { color: var(--gl-on-accent); background-color: var(--gl-error); border-color: var(--gl-error); }
.bk-btn-warning { color: var(--gl-text); background-color: var(--gl-surface); border: 2px solid var(--gl-secondary); }
pre { background: var(--gl-code); color: var(--gl-text); }
.noUi-target { background: var(--gl-rule); border-color: var(--gl-control); box-shadow: none; }
.noUi-handle { background: var(--gl-surface); border-color: var(--gl-control); box-shadow: none; }
.noUi-connect { background: var(--gl-positive); }
""".replace("%(buttons)s", "\n".join(  # each kind of button: its background and border, in every state
    "  " + " ".join(f"--{kind}{state}: var(--gl-{bg}); --{kind}{state}-border: var(--gl-{line});"
                    for state in ("", "-hover", "-active", "-disabled"))
    for kind, (bg, line) in {"default": ("surface", "control"), "light": ("sunken", "border"),
                             "primary": ("positive", "positive"), "success": ("good", "good"),
                             "danger": ("error", "error"), "warning": ("surface", "secondary")}.items()))

# figure parts coloured by role (a part left without a colour, e.g. a hidden grid, stays so)
CHROME = (
    (Plot, {"background_fill_color": "page", "border_fill_color": "page", "outline_line_color": "border"}),
    (Axis, {"axis_line_color": "muted", "major_tick_line_color": "muted", "minor_tick_line_color": "muted",
            "major_label_text_color": "muted", "axis_label_text_color": "text", "group_text_color": "muted",
            "subgroup_text_color": "muted"}),
    (Grid, {"grid_line_color": "rule"}),
    (Title, {"text_color": "text"}),
    (Legend, {"background_fill_color": "page", "border_line_color": "border", "label_text_color": "text",
              "title_text_color": "text", "inactive_fill_color": "page"}),
    (ColorBar, {"background_fill_color": "page", "major_label_text_color": "muted", "title_text_color": "text",
                "major_tick_line_color": "page"}),
)

# The page: read the stored choice, put it in the toggle, set the root's attribute, tell Python
# whether the page is dark; again at every change of the toggle or of the system's preference.
PAGE_JS = """
const root = document.documentElement, KEY = %(key)s;
if (!document.getElementById("gl-theme-root")) {     // panel serve: the static pages have it in <head>
  const style = document.createElement("style");
  style.id = "gl-theme-root";
  style.textContent = %(css)s;
  document.head.appendChild(style);
}
const system = window.matchMedia("(prefers-color-scheme: dark)");
const asked = new URLSearchParams(window.location.search).get("theme");   // a link's: not stored
let stored = null, quiet = ["light", "dark"].includes(asked);
try { stored = quiet ? asked : window.localStorage.getItem(KEY); } catch (e) {}
if (!["system", "light", "dark"].includes(stored)) stored = "system";
const find = (doc, cls) => [...doc._all_models.values()].find(
  m => Array.isArray(m.css_classes) && m.css_classes.includes(cls));
for (const doc of (window.Bokeh ? Bokeh.documents : [])) {
  const choice = find(doc, "gl-theme-choice"), state = find(doc, "gl-theme-state");
  if (!choice || !state || choice.__glTheme) continue;
  choice.__glTheme = true;
  const apply = () => {
    const c = choice.value;
    if (c === "light" || c === "dark") root.setAttribute("data-gl-theme", c);
    else root.removeAttribute("data-gl-theme");
    const shown = c === "dark" || (c !== "light" && system.matches) ? "dark" : "light";
    if (state.value !== shown) state.value = shown;
  };
  choice.properties.value.change.connect(() => {
    if (!quiet) try { window.localStorage.setItem(KEY, choice.value); } catch (e) {} apply();
  });
  system.addEventListener("change", apply);
  if (choice.value !== stored) choice.value = stored; else apply();
}
quiet = false;      // the reader's own choice, from now on, is remembered
"""

# First in the static site's <head>: the root's theme before the first paint; and every document
# BokehJS embeds (the pre-rendered one, then Python's) drawn in the dark palette when the page is
# dark: its colour properties mapped light -> dark, chrome left at Bokeh's defaults given the dark
# one. (Python, told the theme once the page is live, then sets the same colours itself.) Colour
# columns are left alone: their CategoricalColorMapper's palette is mapped instead.
HEAD_HTML = """<style id="gl-theme-root">%(css)s</style>
<script>
  // Added by build.py: the theme stored by the lab's toggle, before anything is drawn.
  (function () {
    var root = document.documentElement, choice = null;
    try { choice = window.localStorage.getItem(%(key)s); } catch (e) {}
    var asked = new URLSearchParams(window.location.search).get("theme");
    if (asked === "light" || asked === "dark") choice = asked;     // a link's (an embed's) first
    if (choice === "light" || choice === "dark") root.setAttribute("data-gl-theme", choice);
    var map = %(map)s, roles = %(roles)s;
    var colour = function (v) {
      if (typeof v === "string") return Object.prototype.hasOwnProperty.call(map, v) ? map[v] : v;
      if (Array.isArray(v)) return v.map(colour);
      if (v && typeof v === "object" && typeof v.value === "string") v.value = colour(v.value);
      return v;
    };
    var walk = function (node) {
      if (node === null || typeof node !== "object") return;
      if (node.type === "object" && node.attributes) {
        var attrs = node.attributes, own = roles[node.name] || {};
        for (var prop in own) if (!(prop in attrs)) attrs[prop] = own[prop];
        if (node.name === "ColumnDataSource") return;
        for (var key in attrs) {
          if (/(color|palette)$/.test(key)) attrs[key] = colour(attrs[key]);
          else walk(attrs[key]);
        }
        return;
      }
      for (var k in node) walk(node[k]);
    };
    var dark = function () {
      var set = root.getAttribute("data-gl-theme");
      return set === "dark" || (set !== "light" && window.matchMedia("(prefers-color-scheme: dark)").matches);
    };
    // once BokehJS is in (the page loads it after its first paint: buildtools/boot.py)
    var whenBokeh = window.glBoot ? glBoot.whenBokeh : function (fn) { document.addEventListener("DOMContentLoaded", fn); };
    whenBokeh(function () {
      var embed = window.Bokeh && Bokeh.embed, items = embed && embed.embed_items;
      if (!items) return;
      embed.embed_items = function (docs, renders) {
        var text = typeof docs === "string", parsed = text ? JSON.parse(docs) : docs;  // text: HTML-escaped
        if (dark()) walk(parsed);
        if (dark()) docs = text ? JSON.stringify(parsed) : parsed;
        return items.apply(this, [docs].concat([].slice.call(arguments, 1)));
      };
    });
  })();
</script>"""


def _light_names():
    """Light colour -> its palette name (the first name, where two share a colour)."""
    return {colour: name for name, colour in reversed(list(css_names(PALETTE).items()))}


def head_html():
    """The static pages' <head> snippet (buildtools.convert puts it in every page)."""
    dark = PALETTES["dark"]
    mapping = {colour: getattr(dark, name) for colour, name in _light_names().items()}
    roles = {}      # Bokeh model name -> property -> dark colour, for those left at Bokeh's default
    for name, cls in sorted(Model.model_class_reverse_map.items()):
        own = {**({"text_color": "text"} if "text_color" in cls.properties() else {}), **_roles(cls)}
        if own:
            roles[name] = {p: getattr(dark, r) for p, r in own.items()}
    return HEAD_HTML % {"css": root_css(), "key": json.dumps(STORAGE_KEY), "map": json.dumps(mapping),
                        "roles": json.dumps(roles, sort_keys=True)}


def _is_column(model, prop, value):
    """Whether a colour property names a data column (`color="color"`) with no transform."""
    if isinstance(value, Field):
        return not isinstance(value.transform, Model)
    return (isinstance(value, str) and isinstance(model.lookup(prop).property, ColorSpec)
            and value not in NamedColor and not value.startswith(("#", "rgb", "hsl")))


_DEFAULT = object()      # (an original value) the property was left at Bokeh's default


def _roles(cls):
    """Property -> palette name of the chrome of a Bokeh model class (CHROME)."""
    roles = {}
    for kind, props in CHROME:
        if issubclass(cls, kind):
            roles.update({p: r for p, r in props.items() if p in cls.properties()})
    return roles


def _explicit_colours(model):
    """A Bokeh model's colours set on it or by a document theme: properties_with_values(
    include_defaults=False)'s, without reading every other property's default first."""
    themed = model.themed_values() or {}
    return {name: model.lookup(name).get_value(model) for name in (*model._property_values, *themed)
            if name.endswith("color")}


def recolour(models, palette, originals, mapper):
    """Colour Bokeh `models` (a figure's references) in `palette`: chrome by role, every other
    colour that is a light palette colour (as first built, kept in `originals`: model id ->
    {property: value}) by its name, and each column of colours through `mapper`."""
    names = _light_names()
    for model in models:
        first = originals.setdefault(model.id, {})
        roles = _roles(type(model))
        explicit = _explicit_colours(model)
        if ("text_color" in model.properties() and "text_color" not in roles      # text left at Bokeh's grey
                and first.setdefault("text_color", explicit.get("text_color", _DEFAULT)) is _DEFAULT):
            roles["text_color"] = "text"
        for prop, role in roles.items():
            if getattr(model, prop) is not None:
                setattr(model, prop, getattr(palette, role))
        for prop, current in explicit.items():
            if prop in roles or not prop.endswith("color"):
                continue
            value = first.setdefault(prop, current)
            colour = value.value if isinstance(value, Value) else value
            if isinstance(colour, str) and colour in names:
                new = getattr(palette, names[colour])
                if getattr(model, prop) != new:
                    setattr(model, prop, new)
            elif _is_column(model, prop, value):
                name = value.field if isinstance(value, Field) else value
                if getattr(current, "transform", None) is not mapper:
                    setattr(model, prop, Field(name, transform=mapper))
    mapper.palette = [getattr(palette, names[c]) for c in mapper.factors]


class Theming:
    """One Lab's theme: the toggle (in its table of contents), the hidden field the page writes,
    the page script, and the recolouring of whatever is on screen."""

    def __init__(self, lab):
        self.lab = lab
        self.palette = PALETTE
        self.choice = pn.widgets.Select(label="Theme", options=CHOICES, value="system", width=200,
                                        css_classes=["gl-theme-choice"], margin=(4, 10, 8, 10),
                                        description="Light, dark, or as your system prefers (remembered)")
        self.state = pn.widgets.TextInput(value="light", visible=False, css_classes=["gl-theme-state"])
        self.state.param.watch(self._switch, "value")
        self._originals = {}
        light = list(_light_names())
        self._mapper = CategoricalColorMapper(factors=light, palette=light)   # colour columns: light -> shown
        tocs = lab.__panel__().select(lambda o: "gl-toc" in (getattr(o, "css_classes", None) or []))
        (tocs[0] if tocs else lab.__panel__()).append(pn.Column(self.choice, self.state, margin=0))
        lab.on_build.append(lambda viewer: self.apply(viewer.__panel__()))   # styled before it is shown
        lab.param.watch(lambda event: self.apply(lab.view(lab.chapter).__panel__()), "chapter")
        self._switch()
        if pn.state.curdoc is not None:
            code = PAGE_JS % {"key": json.dumps(STORAGE_KEY), "css": json.dumps(root_css())}
            pn.state.curdoc.js_on_event("document_ready", CustomJS(code=code))

    def _switch(self, event=None):
        """The palette named by the page (None: as it is) on the lab and every chapter built."""
        self.palette = PALETTES.get(event.new, PALETTE) if event is not None else self.palette
        self.apply(self.lab.__panel__(), *(self.lab.view(cid).__panel__() for cid in self.lab.built_chapters()))

    @property
    def theme(self):
        return "dark" if self.palette is PALETTES["dark"] else "light"

    def apply(self, *layouts):
        """Style the widgets of layouts (once) and colour their figures in the palette on screen
        (each once, where one layout holds another: the lab's holds the chapter on screen)."""
        objects = {id(obj): obj for layout in layouts for obj in layout.select()}
        with unlocked():
            for obj in objects.values():
                if isinstance(obj, pn.pane.Bokeh) and obj.object is not None:
                    recolour(obj.object.references(), self.palette, self._originals, self._mapper)
                elif isinstance(obj, pn.widgets.WidgetBase) and WIDGET_CSS not in obj.stylesheets:
                    obj.stylesheets = [*obj.stylesheets, WIDGET_CSS]


def install(lab):
    """Give a Lab its theme: the toggle, the page script, the recolouring."""
    return Theming(lab)
