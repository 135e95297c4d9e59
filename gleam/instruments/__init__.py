"""Instruments for looking inside a trained recurrent model.

    probes               linear and MLP probes of hidden states
    control              control tasks and selectivity (Hewitt & Liang 2019)
    states               rows of hidden states for probing; their principal components
    interventions        clamp, patch, swap and combine edits of the state, measured by their effect
    input_interventions  erase or shuffle an input (the shortcut controls)
    stability            the recurrence's Jacobians along a sequence, and perturbations
    inspect              one model and one input taken apart (the model inspector's numbers)
"""
