"""The two research labs' experiments: each run function, its result object and its measures."""
