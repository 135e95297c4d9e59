"""The two research labs' experiments: each run function, its result object and its measures.

    stepped        SteppedRun: a run of fixed length taken a few updates at a time (the pages'
                   retrains), and what a page shows of it (baseline_loss, table_rows, figure)
    memory/        what gates buy for memory
    extrapolation/ what a small recurrent model learns about symbolic maths out of distribution
"""
