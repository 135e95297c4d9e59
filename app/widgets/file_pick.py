"""A file picker that refuses a file over its size limit in the browser, before sending a byte.

Panel's FileInput (1.9) reads any chosen file whole and sends it to Python in one message; under
`panel serve` a message over the server's websocket limit (20 MB by default) closes the
connection, and with it the session. FilePick is a button that opens the browser's file chooser
(a script of its own, PICK_JS): it checks the file's size first, and only a file within
`max_bytes` is read; either way what it found is written to a hidden text input, whose value
reaches Python in both modes. A file within the limit is handed to `on_file(name, data)`, a larger
one only to `on_refused(name, size in bytes)`. The same file chosen twice is news twice.
"""
import base64
import json

import panel as pn

PICK_JS = """
const input = document.createElement("input");
input.type = "file";
input.accept = accept;
input.addEventListener("change", () => {
  const file = input.files[0];
  if (!file) return;
  const news = String(Date.now()) + "." + String(Math.random()).slice(2);
  if (file.size > limit) {
    sink.value = JSON.stringify([news, file.name, file.size, null]);
    return;
  }
  const reader = new FileReader();
  reader.onload = () => {
    const url = reader.result;
    sink.value = JSON.stringify([news, file.name, file.size, url.slice(url.indexOf(",") + 1)]);
  };
  reader.readAsDataURL(file);
});
input.click();
"""


class FilePick:
    """The button and its hidden sink (module docstring); `panel()` lays them out."""

    def __init__(self, label, accept, max_bytes, css_class, on_file, on_refused, width=290):
        self._on_file, self._on_refused, self.max_bytes = on_file, on_refused, int(max_bytes)
        self.button = pn.widgets.Button(label=label, css_classes=[css_class], width=width, margin=(4, 5))
        self.sink = pn.widgets.TextInput(visible=False, max_length=2 ** 31 - 1, css_classes=[f"{css_class}-sink"])
        self.button.js_on_click(args={"sink": self.sink, "accept": accept, "limit": self.max_bytes}, code=PICK_JS)
        self.sink.param.watch(self._got, "value")

    def panel(self):
        return pn.Column(self.button, self.sink, margin=0)

    def _got(self, event):
        if not event.new:
            return
        try:
            _, name, size, data = json.loads(event.new)
        finally:
            self.sink.value = ""                  # (the browser writes each file as news)
        if data is None:
            self._on_refused(str(name), int(size))
        else:
            self._on_file(str(name), base64.b64decode(data))
