# The queue of incoming patches, made once. Record: buildtools/patches/panel.py, "panel.queued-patches".
# (One line: it is a JS string.)
_gl_patches = []
