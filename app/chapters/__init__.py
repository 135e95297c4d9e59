"""The chapter registry: chapter id -> "module:Class" of its Viewer, in reading order.

Imports stay lazy: a chapter's module (and whatever it imports) costs nothing until the chapter
is shown. Adding a chapter is one module here and one line below; its controls are then in the
page URL, in embeds and under Reset to defaults with nothing else to write (app.chapters.base).
"""
import importlib

REGISTRY = {
    "0": "gleam_lab.app.chapters.ch0_scalar:ScalarChapter",
    "1": "gleam_lab.app.chapters.ch1_elman:ElmanChapter",
    "2": "gleam_lab.app.chapters.ch2_bptt:BPTTChapter",
    "3": "gleam_lab.app.chapters.ch3_vanishing:VanishingChapter",
    "4": "gleam_lab.app.chapters.ch4_gru:GRUChapter",
    "5": "gleam_lab.app.chapters.ch5_gru_lstm:GRUvsLSTMChapter",
    "6": "gleam_lab.app.chapters.ch6_training:TrainingChapter",
    "7": "gleam_lab.app.chapters.ch7_live:LiveLabChapter",
    "8": "gleam_lab.app.chapters.ch8_beyond:BeyondChapter",
    "9": "gleam_lab.app.chapters.ch9_cheatsheet:CheatSheetChapter",
    "memory": "gleam_lab.app.chapters.memory_lab:MemoryLabChapter",
    "extrapolation": "gleam_lab.app.chapters.extrapolation_lab:ExtrapolationLabChapter",
    "inspector": "gleam_lab.app.chapters.inspector:InspectorChapter",
}


def chapter_ids():
    """Every chapter id, in reading order."""
    return list(REGISTRY)


def viewer_class(chapter_id):
    """The Viewer class of a chapter (its module imported now)."""
    if chapter_id not in REGISTRY:
        raise ValueError(f"unknown chapter {chapter_id!r}; known: {', '.join(REGISTRY)}")
    module, name = REGISTRY[chapter_id].split(":")
    return getattr(importlib.import_module(module), name)


def make_viewer(chapter_id):
    """A new Viewer for one chapter."""
    return viewer_class(chapter_id)(chapter_id=chapter_id)
