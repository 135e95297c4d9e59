"""Chapter 9: the self-test (chapter 4's cell on input a) and the deployment budget."""
from gleam import counting
from gleam.examples.ch4_gru import CONVENTIONS, gru_example

__all__ = ['chapter9_self_test', 'chapter9_deployment']


def chapter9_self_test(convention="textbook"):
    return gru_example("a", convention)


def chapter9_deployment():
    return counting.deployment_budget("gru", d=256, n=512, layers=2, vocab=50_000, tokens=10_000)


def examples():
    """What `python -m gleam.examples --json` prints for this chapter."""
    return {"chapter9_self_test": {c: chapter9_self_test(c) for c in CONVENTIONS},
            "chapter9_deployment": chapter9_deployment()}
