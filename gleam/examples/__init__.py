"""Every worked example of the syllabus, computed through gleam and returned as plain data.

Each `chapterN_*` function returns JSON-able dicts/lists/floats with descriptive keys; the
chapter pages show these numbers (a template names the function, see content.render) and
tests/core/test_syllabus.py holds them to the syllabus.
`python -m gleam.examples --json` prints `all_examples()` as one JSON document.

    gleam.examples.recurrence   chapters 0-3     gleam.examples.training   chapters 6-7
    gleam.examples.gates        chapters 4-5, 9's self-test
    gleam.examples.beyond       chapter 8, 9's deployment budget, the memory lab
"""
import json
import sys

from gleam.examples.beyond import (chapter8_beyond, chapter9_deployment,  # noqa: F401
                                   memory_lab_carry_challenge)
from gleam.examples.data import VOCAB_ABC, plain  # noqa: F401
from gleam.examples.gates import (CONVENTIONS, chapter4_gate_meters, chapter4_gru_hand_example,  # noqa: F401
                                  chapter4_pinned_gates, chapter4_torch_example, chapter5_carry_multipliers,
                                  chapter5_counts, chapter9_self_test, gru_hand_params, gru_hand_params_torch)
from gleam.examples.recurrence import (chapter0_scalar_memory, chapter1_hand_example, chapter1_params,  # noqa: F401
                                       chapter1_wh_scale, chapter2_bptt, chapter2_contributions,
                                       chapter2_truncation_shares, chapter3_clipping, chapter3_measured_decay,
                                       chapter3_vanishing)
from gleam.examples.training import chapter6_cross_entropy, chapter6_trainer, chapter7_live_lab  # noqa: F401


def all_examples():
    return {
        "chapter0_scalar_memory": chapter0_scalar_memory(),
        "chapter1_hand_example": chapter1_hand_example(),
        "chapter1_wh_scale": chapter1_wh_scale(),
        "chapter2_bptt": chapter2_bptt(),
        "chapter2_contributions": {str(u): chapter2_contributions(u=u) for u in (0.3, 0.9)},
        "chapter3_vanishing": chapter3_vanishing(),
        "chapter3_measured_decay": chapter3_measured_decay(),
        "chapter3_clipping": chapter3_clipping(),
        "chapter4_gru_hand_example": {c: chapter4_gru_hand_example(c) for c in ("textbook", "torch")},
        "chapter4_gate_meters": chapter4_gate_meters(),
        "chapter4_pinned_gates": chapter4_pinned_gates((0.5, 0.5), (0.5, 0.5)),
        "chapter5_counts": chapter5_counts(),
        "chapter5_carry_multipliers": chapter5_carry_multipliers(),
        "chapter6_cross_entropy": chapter6_cross_entropy(),
        "chapter6_trainer": chapter6_trainer(),
        "chapter7_live_lab": chapter7_live_lab(),
        "chapter8_beyond": chapter8_beyond(),
        "chapter9_self_test": {c: chapter9_self_test(c) for c in ("textbook", "torch")},
        "chapter9_deployment": chapter9_deployment(),
        "memory_lab_carry_challenge": memory_lab_carry_challenge(),
    }


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if argv not in ([], ["--json"]):
        print("usage: python -m gleam.examples [--json]", file=sys.stderr)
        return 2
    doc = plain(all_examples())
    print(json.dumps(doc, indent=None if "--json" in argv else 2, allow_nan=False))
    return 0


