"""Moving between chapters inside one page: the history entries, Back and Forward, links to a
chapter that move in place, and the tab's title (app.widgets.url_state says what the query holds)."""
import json

from bokeh.models import CustomJS

from gleam_lab import content

# Panel's Location model calls history.pushState on every change of the URL and never listens to
# popstate. This script (run once per page, on the document's document_ready) makes a change
# within one chapter replace the current history entry (at most ~10 a second: browsers throttle
# the history API), a change of chapter add one, and Back/Forward hand the entry's query to the
# Location models on screen (app.lab then shows that entry's chapter and controls).
NAVIGATION_JS = r"""
if (!window.__glNavigation) {
  window.__glNavigation = true;
  const push = history.pushState.bind(history), replace = history.replaceState.bind(history);
  const chapter = (u) => u.searchParams.get("chapter"), titles = __TITLES__;   // chapter -> the tab's title
  const retitle = () => { const t = titles[chapter(new URL(window.location.href))]; if (t) document.title = t; };
  let pending = null, timer = null, last = 0;
  const flush = () => {
    clearTimeout(timer);
    timer = null;
    if (pending !== null) {
      const [state, title, url] = pending;
      pending = null;
      replace(state, title, url);
      last = Date.now();
    }
  };
  // The static site has a page per chapter (chapter-<id>.html, index.html for chapter 0): an
  // entry of another chapter names that chapter's page, so a link copied from the address bar
  // (or a reload) opens the page that pre-renders it.
  const page = /\/(chapter-[\w-]+|index)\.html$/;
  history.pushState = function (state, title, url) {
    const next = new URL(url, window.location.href), here = new URL(window.location.href);
    const wanted = chapter(next);
    if (page.test(next.pathname) && wanted !== null && /^[\w-]+$/.test(wanted))
      next.pathname = next.pathname.replace(page, "/chapter-" + wanted + ".html");
    if (next.href === here.href) { pending = null; return; }
    const same = (next.pathname === here.pathname || (page.test(next.pathname) && page.test(here.pathname)))
      && (chapter(next) === null || chapter(here) === null || chapter(next) === chapter(here));
    if (same) {
      pending = [state, title, next.href];
      if (timer === null) timer = setTimeout(flush, Math.max(0, 100 - (Date.now() - last)));
      return;
    }
    flush();
    push(state, title, next.href); retitle();
  };
  const tell = () => {           // the Location models on screen take the address's query
    const roots = window.Bokeh && Bokeh.index ? (Bokeh.index.roots || Object.values(Bokeh.index)) : [];
    let told = false;
    for (const view of roots) {
      const model = view.model;
      if (model && model.constructor.__name__ === "Location") {
        told = true;
        if (model.search !== window.location.search) model.search = window.location.search;
      }
    }
    return told;
  };
  window.addEventListener("popstate", () => {
    pending = null;
    clearTimeout(timer);
    timer = null;
    tell(); retitle();
  });
  // A link to a chapter (href "?chapter=…": the first screen's, previous and next) moves in place
  // as the contents do: an entry, no reload (no second start of Python on the static site); a
  // modified click (new tab or window) is the browser's. An embed's link to the full lab opens
  // the page's address without embed and hide, in a new tab.
  document.addEventListener("click", (event) => {
    const link = event.composedPath().find((el) => el.tagName === "A");
    if (link && link.classList.contains("gl-full-lab-link")) {
      const full = new URL(window.location.href);
      full.searchParams.delete("embed");
      full.searchParams.delete("hide");
      link.href = full.href;
      return;
    }
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey
        || event.altKey) return;
    const href = link && link.getAttribute("href");
    const resume = link && link.classList.contains("gl-resume-link");     // a remembered place: its controls too
    if (!href || !(/^[?]chapter=[\w-]+$/.test(href) || (resume && /^[?]chapter=[\w-]+(&|$)/.test(href))) || link.target) return;
    event.preventDefault();
    history.pushState(null, "", new URL(href, window.location.href).href);
    if (!tell()) window.location.reload();
  });
}
"""


def install_navigation(doc):
    """Run NAVIGATION_JS in the page once the document is on screen (both modes: served, and
    the static site's pre-rendered and live documents; the script guards against a second run)."""
    titles = json.dumps({cid: content.page_title(cid) for cid in content.chapter_ids()}, ensure_ascii=False)
    doc.js_on_event("document_ready", CustomJS(code=NAVIGATION_JS.replace("__TITLES__", titles)))
