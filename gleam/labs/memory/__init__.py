"""The memory lab: what gates buy for memory.

    run          train_cue_delay: a small model on cue–delay, then put through the acceptance test
    acceptance   the acceptance test: horizons, retention, interference, revision latency
    probe_sets   cue–delay sequences in mirror pairs, run through a model
    window       the current-window baseline (what the task gives a model with no memory)
    carry        the carry challenge: can a state hold one bit through a noisy delay?
"""
