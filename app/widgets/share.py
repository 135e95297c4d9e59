"""The row every chapter with controls gets once, from app.chapters.base: Reset to defaults and a
Share toggle, which opens the instructor's tools — Copy link, Copy embed snippet, the controls to
hide in the embed, and the link and snippet themselves — so the first screen is the lesson.

The link and the snippet are kept up to date in Python (app.lab hands over the page's address
and query at every change) and shown in read-only fields while Share is open (shown from the
start, a copy shifts nothing); the buttons' own JavaScript puts the field's text on the clipboard
in the page, so a copy needs no round trip, and says on the button that it did ("Copied ✓") or
that the field is there to copy by hand. Text from the URL is user input: the fields show it as a
text value, never as HTML, and the snippet escapes it. An embed shows Reset only. The snippet sizes
its frame to the embedded page's content (SNIPPET_SCRIPT, EMBED_SIZE_JS).
"""
import html

import panel as pn
from bokeh.models import CustomJS

from gleam_lab.app.widgets.page import html_pane, wrap_row
from gleam_lab.app.widgets.url_state import query_string

EMBED_HEIGHT = 900          # px: the snippet's height until the page has measured the widget

# navigator.clipboard exists on https:// and localhost pages; elsewhere the field still shows it.
# The button says what happened for a moment, then reads as before (its width is fixed: no shift).
COPY_JS = """
const said = (text) => {
  const label = button.label;
  if (label === text) return;
  button.label = text;
  setTimeout(() => { button.label = label; }, 1600);
};
const copy = (text) => {
  if (navigator.clipboard && window.isSecureContext)
    navigator.clipboard.writeText(text).then(() => said("Copied ✓"), () => said("Copy it below"));
  else said("Copy it below");
};
"""
COPY_LINK_JS = COPY_JS + "copy(field.value);"
# the snippet's height: the widget as the page lays it out now, plus the Reset row
COPY_EMBED_JS = COPY_JS + """
let text = field.value;
const roots = window.Bokeh && Bokeh.index ? (Bokeh.index.roots || Object.values(Bokeh.index)) : [];
for (const root of roots) {
  const view = root.owner && root.owner.find_one ? root.owner.find_one(widget) : null;
  if (view && view.el) {
    const height = Math.ceil(view.el.getBoundingClientRect().height) + 70;
    if (height > 150) text = text.replace(/height="\\d+"/, 'height="' + height + '"');
    break;
  }
}
field.value = text;
copy(text);
"""


# The embed sizes itself: the embedded page tells its parent its content's height whenever that
# changes (EMBED_SIZE_JS, app.lab runs it in an embed), and the snippet's script sets the height of
# the frame the message came from (any number of embeds on one page; a message from elsewhere, or
# not a number, changes nothing). Without the script (a course site that strips scripts) the frame
# keeps the height measured when the snippet was copied.
SIZE_MESSAGE = "rnn-lab-height"
MAX_EMBED_HEIGHT = 20000    # px: what a frame is ever set to
EMBED_SIZE_JS = """
if (!window.__glEmbedSize && window.parent !== window) {
  window.__glEmbedSize = true;
  // the lab's chapter area (its content's height, whatever the frame's): Panel's roots have no
  // height of their own, the page's scroll height is at least the frame's
  const find = (root) => {
    const hit = root.querySelector(".gl-chapter-area");
    if (hit) return hit;
    for (const el of root.querySelectorAll("*")) {
      const inner = el.shadowRoot && find(el.shadowRoot);
      if (inner) return inner;
    }
    return null;
  };
  let area = null, last = 0;
  const watch = new ResizeObserver(() => tell());
  // (its bottom also moves when what is above it does, which no observer reports: measured twice a
  // second; the static site's pre-rendered page is replaced once Python runs)
  const tell = () => {
    if (!area || !area.isConnected) {
      area = find(document);
      if (!area) return;
      watch.observe(area);
    }
    const height = Math.ceil(area.getBoundingClientRect().bottom + window.scrollY);
    if (height > 0 && Math.abs(height - last) > 2) {
      last = height;
      window.parent.postMessage({type: "%(type)s", height: height}, "*");
    }
  };
  setInterval(tell, 500);
  tell();
}
""" % {"type": SIZE_MESSAGE}
SNIPPET_SCRIPT = (
    '<script>addEventListener("message",function(e){var d=e.data;if(!d||d.type!=="%s"||!(d.height>0))return;'
    'document.querySelectorAll("iframe").forEach(function(f){if(f.contentWindow===e.source)'
    'f.style.height=Math.min(Math.ceil(d.height),%d)+"px"})})</script>' % (SIZE_MESSAGE, MAX_EMBED_HEIGHT))


def install_embed_sizing(doc):
    """Run EMBED_SIZE_JS in an embedded page once it is on screen (both modes)."""
    doc.js_on_event("document_ready", CustomJS(code=EMBED_SIZE_JS))


def iframe(src, title, height=EMBED_HEIGHT):
    """The embed snippet for a URL (escaped: the URL carries what a learner set): the frame, which
    allows clipboard writes (a copy made inside it works where a browser asks for that), and the
    few lines of script that size it to its content (SNIPPET_SCRIPT)."""
    return (f'<iframe src="{html.escape(src, quote=True)}" title="{html.escape(title, quote=True)}" '
            f'width="100%" height="{int(height)}" loading="lazy" allow="clipboard-write"></iframe>'
            + SNIPPET_SCRIPT)


class ShareTools:
    """Reset to defaults, and Share with Copy link and Copy embed snippet behind it, for one chapter
    (css classes gl-ch{id}-defaults, -share-toggle, -share-tools, -link, -embed; the fields
    -link-text, -embed-text; the choice -embed-hide)."""

    def __init__(self, chapter_id, title, controls, on_reset, widget=None, left_out=lambda: []):
        """`controls`: label -> URL name of the chapter's controls; `widget`: the chapter's
        interactive part (measured for the snippet's height); `left_out()`: (URL name, characters,
        limit) of the values too long for a link, said under the link."""
        cls = f"gl-ch{chapter_id}"
        self.title, self._left_out = title, left_out
        self.left_out_note = html_pane("", visible=False, css_classes=[f"{cls}-left-out"])
        self._base, self._pairs = "", []
        self.reset = pn.widgets.Button(label="Reset to defaults", css_classes=[f"{cls}-defaults"], width=140,
                                       description="Every control of this widget back to where it started")
        self.reset.on_click(lambda event: on_reset())
        self.toggle = pn.widgets.Toggle(label="Share ▸", css_classes=[f"{cls}-share-toggle"], width=90)
        self.link_text = pn.widgets.TextInput(label="Link to this state", disabled=True,
                                              css_classes=[f"{cls}-link-text"], sizing_mode="stretch_width")
        self.embed_text = pn.widgets.TextAreaInput(label="Embed snippet (HTML)", disabled=True,
                                                   height=80, css_classes=[f"{cls}-embed-text"],
                                                   sizing_mode="stretch_width")
        self.link = pn.widgets.Button(label="Copy link", css_classes=[f"{cls}-link"], width=120,
                                      description="Put a link to this chapter, as set now, on the clipboard")
        self.embed = pn.widgets.Button(label="Copy embed snippet", css_classes=[f"{cls}-embed"], width=170,
                                       description="An iframe showing only this widget, as set now, "
                                                   "for a course page")
        self.hide = pn.widgets.MultiSelect(label="Controls to hide in the embed (none: all shown)",
                                           options=dict(controls), size=min(4, len(controls)),
                                           css_classes=[f"{cls}-embed-hide"], width=300)
        self.link.js_on_click(args={"field": self.link_text, "button": self.link}, code=COPY_LINK_JS)
        self.embed.js_on_click(args={"field": self.embed_text, "widget": widget, "button": self.embed},
                               code=COPY_EMBED_JS)
        self.hide.param.watch(lambda event: self._refresh(), "value")
        self.tools = pn.Column(wrap_row(self.link, self.embed, self.hide), self.left_out_note, self.link_text,
                               self.embed_text, visible=False, sizing_mode="stretch_width",
                               css_classes=[f"{cls}-share-tools"])
        self.toggle.param.watch(lambda event: self._open(event.new), "value")
        self.panel = pn.Column(wrap_row(self.reset, self.toggle), self.tools,
                               sizing_mode="stretch_width", css_classes=[f"{cls}-share"])
        self.set_link("", [])

    def _open(self, on):
        self.toggle.label = "Share ▾" if on else "Share ▸"
        self.tools.visible = on

    def set_link(self, base, pairs):
        """The page's address without its query, and the query's (key, text) pairs now."""
        self._base, self._pairs = base, list(pairs)
        self._refresh()

    def sharing(self, on):
        """Offer Share or not (an embed shows Reset only)."""
        self.toggle.visible = on
        if not on:
            self.toggle.value = False

    def embed_url(self):
        pairs = [(k, v) for k, v in self._pairs if k not in ("embed", "hide")]
        at = 1 if pairs and pairs[0][0] == "chapter" else 0
        extra = [("embed", "widget")] + ([("hide", ",".join(self.hide.value))] if self.hide.value else [])
        return self._base + query_string(pairs[:at] + extra + pairs[at:])

    def _refresh(self):
        self.link_text.value = self._base + query_string(self._pairs)
        self.embed_text.value = iframe(self.embed_url(), self.title)
        left_out = [f"{key} ({n:,} characters; a link holds at most {limit:,})" for key, n, limit in self._left_out()]
        self.left_out_note.object = ("" if not left_out else "<span class='gl-note'>Not in the link or the embed, "
                                     "too long for a URL — they open with the default: "
                                     + html.escape(", ".join(left_out)) + ".</span>")
        self.left_out_note.visible = bool(left_out)
