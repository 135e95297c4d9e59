"""gleam: the pure-NumPy core of the recurrent-networks lab.

Imports nothing but NumPy and the standard library, so the same code runs in CPython and
in Pyodide (numpy 2.0.2 there). The UI lives in `app/` and is never imported from here.
"""
