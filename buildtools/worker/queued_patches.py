# Every queued patch applied, in arrival order (Panel's template keeps only the last one).
# Record: buildtools/patches/panel.py, "panel.queued-patches".

from panel.io.pyodide import _convert_json_patch
from panel.io.state import state
while _gl_patches:
    state.curdoc.apply_json_patch(_convert_json_patch(_gl_patches.pop(0)), setter='js')
