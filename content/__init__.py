"""The chapters' prose: Markdown templates whose every computed number is a placeholder.

    content.chapters     the chapter list: ids, titles, Markdown sources
    content.formatting   one formatter per way the lab prints a number (also the templates' filters)
    content.render       a template filled from gleam.examples, and Markdown to HTML
"""
from gleam_lab.content.chapters import (SITE_DESCRIPTION, SITE_TITLE, chapter_ids, filename, heading,  # noqa: F401
                                        page_title, preview_tags, source, title, title_and_description, titles)
from gleam_lab.content.formatting import (fmt_comma, fmt_fixed, fmt_gate, fmt_num, fmt_pct,  # noqa: F401
                                          fmt_sci, fmt_sig, tex_matrix, tex_tuple)
from gleam_lab.content.render import (markdown_to_html, render, render_html, start_html, typeset,  # noqa: F401
                                      typeset_html)
