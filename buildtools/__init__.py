"""Helpers of build.py: fetch, slim, lock, convert, verify and serve the static site."""
