# Bokeh's own setting: no signature check of each connected callback (read at each call: set first).
# Record: buildtools/patches/bokeh.py, "bokeh.no-error-diagnostics".

import os
os.environ.setdefault("BOKEH_PERFORM_ERROR_DIAGNOSTICS", "false")
