"""Where a learner stopped, remembered in their browser (localStorage, this site's origin only;
nothing leaves the page): per chapter, the address it was last seen at — the chapter and every
control moved away from its default, chapter 9's self-test answers among them (app.widgets.url_state)
— most recent first. An embed neither reads nor writes it.

On the index (chapter 0, the first screen) a "Welcome back" box lists those places, most recent
first; a link opens its chapter as it was left, in place (app.widgets.navigation), and "Forget my
progress" empties the store. The page script (PAGE_JS) saves the address once a second when it has
changed and hands the store to Python through a hidden field; Python reads it strictly (size, shape,
each query through url_state.parse_query, unknown chapters dropped) and writes the links itself.
"""
import html
import json

import panel as pn

from gleam_lab import content
from gleam_lab.app import chapters
from gleam_lab.app.widgets import url_state
from gleam_lab.app.widgets.page import START_CHAPTER, html_pane

STORAGE_KEY = "rnn-lab-progress"
MAX_STORE = 32768           # characters of the stored JSON read at all
MAX_SHOWN = 5               # places listed

PAGE_JS = """
const KEY = %(key)s, START = %(start)s;
if (!window.__glProgress) {
  const read = () => {
    try { const s = JSON.parse(window.localStorage.getItem(KEY) || "{}"); return s && typeof s === "object" ? s : {}; }
    catch (e) { return {}; }
  };
  const embedded = window.parent !== window || new URL(window.location.href).searchParams.has("embed");
  const p = window.__glProgress = {embedded: embedded, stored: embedded ? "" : JSON.stringify(read())};
  window.__glProgressForget = () => { try { window.localStorage.removeItem(KEY); } catch (e) {} p.stored = ""; };
  let last = null;
  const save = () => {
    const url = new URL(window.location.href);
    if (url.search === last) return;
    last = url.search;
    const chapter = url.searchParams.get("chapter") || START;
    url.searchParams.delete("theme");
    const query = url.search || "?chapter=" + chapter;
    if (chapter === START && query === "?chapter=" + START) return;       // the index as it opens
    const store = read(), places = Array.isArray(store.places) ? store.places : [];
    store.places = [{chapter: chapter, query: query}].concat(places.filter((q) => q && q.chapter !== chapter)).slice(0, 20);
    try { window.localStorage.setItem(KEY, JSON.stringify(store)); } catch (e) {}
  };
  if (!embedded) {
    setInterval(save, 1000);
    window.addEventListener("pagehide", save);
  }
}
// every document's field (the static site's pre-rendered one, then Python's) gets the store as it
// was when the page opened, once
for (const doc of (window.Bokeh && !window.__glProgress.embedded ? Bokeh.documents : []))
  for (const m of doc._all_models.values())
    if (Array.isArray(m.css_classes) && m.css_classes.includes("gl-progress-state") && !m.__glHanded) {
      m.__glHanded = true;
      if (m.value !== window.__glProgress.stored) m.value = window.__glProgress.stored;
    }
"""


def read_places(text):
    """[(chapter id, [(key, value), ...]), ...] of a stored progress (most recent first): each
    place's query read as a link would be, a place that is not a known chapter or whose query is
    refused entirely left out, a name that is not one of its chapter's controls dropped, each
    chapter once; [] for anything that is not such a store. (The lab still reads each value strictly
    when the link is followed, as it reads any link.)"""
    if not isinstance(text, str) or not text or len(text) > MAX_STORE:
        return []
    try:
        store = json.loads(text)
    except ValueError:
        return []
    places = store.get("places") if isinstance(store, dict) else None
    out, seen, ids = [], set(), set(content.chapter_ids())
    for p in places if isinstance(places, list) else []:
        if not (isinstance(p, dict) and isinstance(p.get("query"), str) and isinstance(p.get("chapter"), str)):
            continue
        pairs, _ = url_state.parse_query(p["query"].lstrip("?"))
        query = dict(pairs)
        cid = query.get("chapter")
        if cid != p["chapter"] or cid not in ids or cid in seen:
            continue
        seen.add(cid)
        names = set(url_state.url_names(chapters.viewer_class(cid)).values())
        out.append((cid, [(k, v) for k, v in pairs if k == "chapter" or k in names]))
    return out


class Progress:
    """One Lab's remembered places: the hidden field the page writes, the box on the index."""

    def __init__(self, lab):
        self.lab = lab
        self.state = pn.widgets.TextInput(value="", visible=False, css_classes=["gl-progress-state"])
        self.box = html_pane("", css_classes=["gl-resume"], visible=False, margin=(4, 34, 0, 34))
        self.forget = pn.widgets.Button(label="Forget my progress", css_classes=["gl-resume-forget"], width=170,
                                        visible=False, margin=(0, 34, 8, 34),
                                        description="Empty what this browser remembers of your places in the lab")
        self.forget.js_on_click(code="if (window.__glProgressForget) window.__glProgressForget();")
        self.forget.on_click(self._forget)
        self.panel = pn.Column(self.state, self.box, self.forget, sizing_mode="stretch_width", margin=0)
        # offered on the index as the page opens, and gone once the learner moves on (no box appears
        # above chapter 0 later in the visit, shifting what is on screen)
        self._moved = False
        self.state.param.watch(lambda event: self._show(), "value")
        lab.param.watch(self._moved_on, "chapter")

    def places(self):
        return read_places(self.state.value)

    def _moved_on(self, event):
        self._moved = True
        self._show()

    def _forget(self, event=None):
        self.state.value = ""

    def _show(self):
        places = [] if self.lab.embed or self._moved or self.lab.chapter != START_CHAPTER else self.places()[:MAX_SHOWN]
        items = []
        for cid, pairs in places:
            moved = [k for k, _ in pairs if k != "chapter"]
            kept = " — as you left it" if moved else ""
            href = html.escape(url_state.query_string(pairs), quote=True)
            items.append(f'<li><a class="gl-resume-link" href="{href}">{html.escape(content.heading(cid))}</a>'
                         f'{kept}</li>')
        self.box.object = ("<div class='gl-card gl-note'><b>Welcome back.</b> Continue where you stopped:"
                           f"<ul>{''.join(items)}</ul></div>") if items else ""
        self.box.visible = self.forget.visible = bool(items)


def install(lab, area):
    """Give a Lab its remembered places: the box and its field at the top of `area` (a Column),
    and the page script."""
    progress = Progress(lab)
    area.insert(0, progress.panel)
    if pn.state.curdoc is not None:
        from bokeh.models import CustomJS
        code = PAGE_JS % {"key": json.dumps(STORAGE_KEY), "start": json.dumps(START_CHAPTER)}
        pn.state.curdoc.js_on_event("document_ready", CustomJS(code=code))
    return progress
