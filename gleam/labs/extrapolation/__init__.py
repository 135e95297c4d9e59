"""The extrapolation lab: what a small recurrent model learns about symbolic maths out of distribution.

    brackets   experiment 1: length against depth on bracket languages
    counting   experiment 2: aⁿbⁿ and aⁿbⁿcⁿ, does a small net count?
    sums       experiment 3: nested sums under one split, classify or arithmetic heads
    arith      the arithmetic heads on numbers: Madsen & Johansen's task, their criterion
    analysis   experiments 4–6: probes, interventions and Jacobians of a nested-sums model
    measures   the measurements behind analysis
"""
