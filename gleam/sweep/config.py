"""What every run function of a sweep shares: its config read over its defaults, and the seeds it
hands to its parts."""

__all__ = ["with_defaults", "child_seed"]


def with_defaults(config, defaults, run):
    """config over `defaults` (a dict), or ValueError for a non-dict or a name `run` does not read
    (every run function of gleam's reads its config this way)."""
    if not isinstance(config, dict):
        raise ValueError(f"config must be a dict of names to values, got {type(config).__name__}")
    unknown = sorted((k for k in config if k not in defaults), key=repr)
    if unknown:
        raise ValueError(f"config has unknown names {unknown}; {run} reads {', '.join(defaults)}")
    return {**defaults, **config}


def child_seed(seed_sequence):
    """The int seed of one part of a run (data, weights, order), drawn from its SeedSequence."""
    return int(seed_sequence.generate_state(1)[0])
