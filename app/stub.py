"""A chapter that is prose only for now: its title, its text, and a note about the widget to come."""
import panel as pn
import param

from app.common import html_pane, prose_pane, title_pane

NOTE = "The interactive part of this chapter is not built yet; the text and its numbers are complete."


class ProseChapter(pn.viewable.Viewer):
    """A prose-only chapter; the interactive part is announced, not faked."""

    chapter_id = param.String(default="0", constant=True)

    def __init__(self, **params):
        super().__init__(**params)
        parts = [title_pane(self.chapter_id)]
        if self.chapter_id.isdigit():    # the research labs' own text says they are not built
            parts.append(html_pane(f'<div class="gl-card gl-note">{NOTE}</div>', max_width=760))
        self._layout = pn.Column(*parts, prose_pane(self.chapter_id), sizing_mode="stretch_width")

    def __panel__(self):
        return self._layout
