"""The memory lab: the carry challenge's presets and table."""
import copy
import dataclasses
import functools

from gleam import memory
from gleam.examples.data import plain

__all__ = ['memory_lab_carry_challenge']


@functools.lru_cache(maxsize=None)
def _carry_tables():
    return {name: memory.run_preset(name) for name in memory.PRESETS}


def memory_lab_carry_challenge():
    presets = {name: dataclasses.asdict(p) for name, p in memory.PRESETS.items()}
    return plain({"trials": 5000, "seed": 46, "presets": presets, "rows": copy.deepcopy(_carry_tables())})


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"memory_lab_carry_challenge": memory_lab_carry_challenge()}
