"""The one pattern every chapter follows.

A chapter is a `ChapterViewer`: its id as a class attribute, its parameters and handlers, a
`widget()` that lays out its interactive part, and `values()`, the texts of the value spans the
page shows (the surface the tests read, in Python and in the browser). The page around the
widget — title, card, prose — is laid out once, here, the first time the chapter is shown.

Its controls are its parameters that are not Events and not marked `precedence=-1`
(app.widgets.url_state): their values go into the page URL, and the base class gives every
chapter with controls Reset to defaults, Copy link and Copy embed snippet (app.widgets.share).
A chapter makes each control's widget with `self.control(name, WidgetClass, **kwargs)`, so the
base class knows it (to hide it in an embed) and its css class is `gl-ch{id}-{URL name}`.
The defaults are what a new viewer opens with, whatever its constructor set. A value the page
sends that a control's parameter refuses (a client can send any) is not applied: a message
beside the control says why, and the control shows the value in force (app.widgets.refusals).
"""
import param
import panel as pn

from gleam_lab import content
from gleam_lab.app.widgets import refusals, url_state
from gleam_lab.app.widgets.page import chapter_page
from gleam_lab.app.widgets.share import ShareTools


class _OpensWithDefaults(type(pn.viewable.Viewer)):
    """Records a new chapter's control values, once its whole constructor has run."""

    def __call__(cls, *args, **kwargs):
        viewer = super().__call__(*args, **kwargs)
        viewer._defaults = {name: _copy(getattr(viewer, name)) for name in url_state.controls(viewer)}
        return viewer


def _copy(value):
    return list(value) if isinstance(value, list) else value


class ChapterViewer(pn.viewable.Viewer, metaclass=_OpensWithDefaults):
    """One chapter of the lab: title, interactive part, prose."""

    chapter_id = ""    # the chapter's id ("1", "memory", ...); "" for a class that serves several
    url_names = {}     # parameter name -> a shorter name for the URL (read only: never mutated)
    has_prose = True   # False: the page is the title and the widget alone

    def __init__(self, chapter_id=None, **params):
        own = type(self).chapter_id
        if own and chapter_id not in (None, own):
            raise ValueError(f"{type(self).__name__} is chapter {own!r}, not {chapter_id!r}")
        if not (own or chapter_id):
            raise ValueError(f"{type(self).__name__} serves several chapters: say which (chapter_id=...)")
        super().__init__(**params)
        self.chapter_id = own or chapter_id
        self._page = None
        self._widgets = {}           # parameter name -> the widget made by control()
        self._hidden = set()         # parameter names hidden (an embed with hide=...)
        self._widget_only = False
        self._embedded = False
        self.share = None            # the Reset / Copy link / Copy embed row (a chapter with controls)
        self._refusals = {}          # parameter name -> the message pane beside its widget

    def widget(self):
        """The chapter's interactive part (None: the chapter is prose only)."""
        return None

    def values(self):
        """Value key -> the text its span shows on the page (`span.gv[data-key=...]`)."""
        return {}

    def leave(self):
        """The learner moved to another chapter: stop anything running in the background."""

    # ------------------------------------------------------------ controls
    def control(self, parameter, widget_type, **kwargs):
        """`widget_type.from_param(self.param[parameter], **kwargs)`, registered as the widget of
        that parameter. Its css classes are the ones given, or `gl-ch{id}-{parameter}`; a control
        (a URL parameter) always carries `gl-ch{id}-{URL name}` too."""
        if parameter in self._widgets:
            raise ValueError(f"{type(self).__name__}: {parameter!r} already has a widget")
        names = url_state.url_names(self)
        canonical = f"gl-ch{self.chapter_id}-{names.get(parameter, parameter)}"
        classes = list(kwargs.pop("css_classes", None) or [canonical])
        if parameter in names and canonical not in classes:
            classes.append(canonical)
        widget = widget_type.from_param(self.param[parameter], css_classes=classes, **kwargs)
        self._widgets[parameter] = widget
        refusals.guard(widget, self.param[parameter],
                       lambda value, why: self._refuse(parameter, value, why))
        if parameter in self._hidden:
            widget.visible = False
        return widget

    def _refuse(self, parameter, value, why):
        p = self.param[parameter]
        current = getattr(self, parameter)
        in_force = "empty" if current is None else url_state.format_value(p, current)
        self.say_refused(parameter, f"{p.label}: {url_state.short(str(value))} was not applied "
                                    f"({why}); it stays at {in_force}.")

    def refused_message(self, parameter):
        """The message beside a control about the last value it refused ("" if none showing)."""
        pane = self._refusals.get(parameter)
        return pane.text if pane is not None and pane.visible else ""

    def say_refused(self, parameter, text):
        """Show `text` (plain text) beside the widget of `parameter`, until it next takes a value."""
        pane = self._refusals.get(parameter)
        if pane is None:
            key = f"ch{self.chapter_id}.refused.{self.url_controls().get(parameter, parameter)}"
            pane = self._refusals[parameter] = refusals.RefusalNote(key)
            refusals.insert_after(self.__panel__(), self._widgets[parameter], pane.pane)
            self.param.watch(lambda event: pane.clear(), parameter)
        pane.say(text)

    def url_controls(self):
        """Parameter name -> URL name of every control, in declaration order."""
        return url_state.url_names(self)

    def defaults(self):
        """Parameter name -> the value the chapter opened with."""
        return dict(self._defaults)

    def _changed(self):
        """(URL name, its text, the longest text a link can carry) of every control away from its
        default, in declaration order."""
        defaults = self.defaults()
        return [(key, url_state.format_value(self.param[name], getattr(self, name)), self._max_length(name))
                for name, key in self.url_controls().items() if getattr(self, name) != defaults[name]]

    def url_query(self):
        """(URL name, text) of every control away from its default; a text too long to be read
        back is left out."""
        return [(key, text) for key, text, limit in self._changed() if len(text) <= limit]

    def url_left_out(self):
        """(URL name, characters, the limit) of each control away from its default whose text is
        too long for a link (a link opens with its default: the share tools say so)."""
        return [(key, len(text), limit) for key, text, limit in self._changed() if len(text) > limit]

    def apply_url(self, pairs):
        """Set the controls from a URL's (URL name, text) pairs; a control not named goes back to
        its default. Returns what was refused, as "name=value (why)" texts; a refused value
        leaves its control as it was."""
        by_url = {key: name for name, key in self.url_controls().items()}
        refused, wanted, kept = [], {}, set()
        for key, text in pairs:
            name = by_url.get(key)
            if name is None:
                refused.append(f"{url_state.short(key)}={url_state.short(text)} "
                               "(no such control in this chapter)")
                continue
            try:
                wanted[name] = url_state.parse_value(self.param[name], text, self._max_length(name))
            except ValueError as e:
                refused.append(f"{key}={url_state.short(text)} ({e})")
                kept.add(name)
        failed = self._settle({name: wanted.get(name, default) for name, default in self.defaults().items()
                               if name not in kept})
        names = self.url_controls()
        return refused + [f"{names[name]} (could not be applied: {url_state.short(str(e), 80)})"
                          for name, e in failed.items()]

    def reset_defaults(self):
        """Every control back to its default, but those an embed holds fixed (hidden)."""
        self._settle({name: default for name, default in self.defaults().items() if name not in self._hidden})

    def hide_controls(self, keys):
        """Hide the widgets of the controls with these URL names (an embed's `hide=`); their
        values stay as set. Returns the names that are no control of this chapter."""
        by_url = {key: name for name, key in self.url_controls().items()}
        before, self._hidden = self._hidden, {by_url[k] for k in keys if k in by_url}
        for name in before | self._hidden:
            if name in self._widgets:
                self._widgets[name].visible = name not in self._hidden
        return [k for k in keys if k not in by_url]

    def show_widget_only(self, on=True, embedded=None):
        """An embed of the interactive part alone (`on`): no title, no prose; in any embed
        (`embedded`, True whenever `on`) no Share tools, which are the instructor's."""
        self._widget_only = on
        self._embedded = bool(on if embedded is None else embedded or on)
        if self._page is not None:
            self._layout_embed()

    def _max_length(self, name):
        limit = getattr(self._widgets.get(name), "max_length", None)
        return min(limit or url_state.MAX_VALUE, url_state.MAX_VALUE)

    def _settle(self, target):
        """Set the controls to `target` one by one in declaration order, as a learner would, and
        again for any a handler moved meanwhile (a preset setting several). A slider's resting
        value (value_throttled, which some chapters wait for) is set too. Returns the controls
        whose setting raised (name -> the exception); the page goes on."""
        self.__panel__()                      # the widgets exist
        failed = {}
        for _ in range(3):
            todo = {name: value for name, value in target.items()
                    if name not in failed and getattr(self, name) != value}
            if not todo:
                break
            for name, value in todo.items():
                try:
                    setattr(self, name, _copy(value))
                except Exception as e:        # a chapter's handler refused it: report, go on
                    failed[name] = e
                    continue
                widget = self._widgets.get(name)
                if widget is not None and "value_throttled" in widget.param:
                    with param.edit_constant(widget):
                        widget.value_throttled = widget.value
        return failed

    # ------------------------------------------------------------ the page
    def _layout_embed(self):
        for part in self._page.objects:
            classes = set(part.css_classes or [])
            if {"gl-title", "gl-prose"} & classes:
                part.visible = not self._widget_only
            if {"gl-start", "gl-pager"} & classes:
                part.visible = not self._embedded
            if "gl-full-lab" in classes:
                part.visible = self._embedded
        if self.share is not None:
            self.share.sharing(not self._embedded)

    def __panel__(self):
        if self._page is None:
            widget = self.widget()
            names = self.url_controls()
            if names:
                labels = {f"{self.param[n].label} ({key})": key for n, key in names.items()}
                self.share = ShareTools(self.chapter_id, content.heading(self.chapter_id), labels,
                                        self.reset_defaults, widget, left_out=self.url_left_out)
            self._page = chapter_page(self.chapter_id, widget, self.share.panel if self.share else None,
                                      prose=self.has_prose)
            self._layout_embed()
        return self._page
