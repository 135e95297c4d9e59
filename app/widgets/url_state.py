"""A chapter's state in the page URL: which parameters are its controls, their short names, how
a value is written into the query and read back exactly, and the page script that makes Back
and Forward move between chapters.

- The controls of a chapter are its `param` parameters that are not Events and whose
  `precedence` is not negative (a chapter marks its internal state, messages and errors with
  `precedence=-1`). Their URL name is the parameter's own unless the chapter's `url_names`
  says otherwise.
- Only values that differ from the chapter's defaults (what a new viewer opens with) are
  written. Floats are written with `repr` and read with `float`, so a value comes back exactly;
  a value a slider reached by steps carries a float sum's error (1.0 + 5 × 0.05 is
  1.2500000000000002), and one within 1e-12 of its step's grid is written as the grid point
  (`rho=1.25`). A value off the grid on purpose (chapter 4's z = 0.6748…) is written as it is.
- Reading is strict: an unknown name, a value of the wrong type, out of bounds, not one of a
  Selector's objects or too long is refused with a reason; the others still apply.

The query is the Lab's (app.lab): `?chapter=3&rho=1.2&gamma=0.6`, plus `embed`, `hide` and `theme`.
Moving between chapters in the page (history entries, Back and Forward): app.widgets.navigation.
"""
import math
import numbers
import re
import urllib.parse

import param

MAX_QUERY = 4096            # characters of a query read at all
MAX_VALUE = 2000            # characters of one text value (unless its widget says less)
RESERVED = ("chapter", "embed", "hide", "theme")      # the Lab's own keys
TRUE, FALSE = ("true", "1", "yes", "on"), ("false", "0", "no", "off")
INTEGER = re.compile(r"[-+]?\d+")
SUPPORTED = (param.Boolean, param.Number, param.Selector, param.ListSelector, param.String)


def controls(viewer):
    """Parameter name -> Parameter of every control of a chapter (class or instance), in
    declaration order."""
    cls = viewer if isinstance(viewer, type) else type(viewer)
    out = {}
    for name, p in cls.param.objects(instance=False).items():
        if name == "name" or isinstance(p, param.Event) or p.constant or p.readonly:
            continue
        if p.precedence is not None and p.precedence < 0:
            continue
        if not isinstance(p, SUPPORTED):
            raise TypeError(f"{cls.__name__}.{name}: a {type(p).__name__} cannot be put in a URL; "
                            "mark it precedence=-1 or use a supported parameter type")
        out[name] = p
    return out


def url_names(viewer):
    """Parameter name -> its name in the URL."""
    cls = viewer if isinstance(viewer, type) else type(viewer)
    own = getattr(cls, "url_names", {}) or {}
    names = {name: own.get(name, name) for name in controls(cls)}
    clash = [n for n in names.values() if n in RESERVED] or [n for n in set(names.values())
                                                              if list(names.values()).count(n) > 1]
    if clash:
        raise ValueError(f"{cls.__name__}: URL names {clash} clash (reserved: {', '.join(RESERVED)})")
    return names


# ---------------------------------------------------------------- one value

def format_value(p, value):
    """The text a value is written as in the URL (read back exactly by `parse_value`)."""
    if value is None:
        return ""
    if isinstance(p, param.Boolean):
        return "true" if value else "false"
    if isinstance(p, param.Integer):
        return str(int(value))
    if isinstance(p, param.Number):
        return repr(on_grid(p, float(value)))
    if isinstance(p, param.ListSelector):
        return ",".join(str(v) for v in value)
    return str(value)


def on_grid(p, value):
    """`value`, or the point of its step's grid (from the lower bound, or 0), in the step's
    decimals, when `value` is within 1e-12 of it: what a slider's steps meant to reach."""
    step = p.step
    if not step or not math.isfinite(value):
        return value
    origin = p.bounds[0] if p.bounds and p.bounds[0] is not None else 0.0
    point = origin + round((value - origin) / step) * step
    if abs(value - point) > 1e-12 * max(1.0, abs(value)):
        return value
    return round(point, max(0, -math.floor(math.log10(step))) + 3)   # a step of 0.05: 5 decimals


def _in_bounds(p, value):
    if p.bounds is None:
        return True
    (lo, hi), (lo_in, hi_in) = p.bounds, p.inclusive_bounds
    return not ((lo is not None and (value < lo or (value == lo and not lo_in)))
                or (hi is not None and (value > hi or (value == hi and not hi_in))))


def _choice(p, text):
    for obj in p.objects:
        if format_value(param.String(), obj) == text:
            return obj
    shown = ", ".join(str(o) for o in list(p.objects)[:8])
    raise ValueError(f"not one of {shown}" + (", …" if len(p.objects) > 8 else ""))


def parse_value(p, text, max_length=None):
    """The value `text` stands for, or ValueError(why it is refused)."""
    limit = min(max_length or MAX_VALUE, MAX_VALUE)
    if len(text) > limit:
        raise ValueError(f"too long ({len(text):,} characters, at most {limit:,})")
    if text == "" and p.allow_None and not isinstance(p, (param.String, param.ListSelector)):
        return None
    if isinstance(p, param.Boolean):
        if text.lower() in TRUE + FALSE:
            return text.lower() in TRUE
        raise ValueError("not true or false")
    if isinstance(p, param.Integer):
        if not INTEGER.fullmatch(text.strip()):
            raise ValueError("not a whole number")
        value = int(text)
    elif isinstance(p, param.Number):
        try:
            value = float(text)
        except ValueError:
            raise ValueError("not a number") from None
        if not math.isfinite(value):
            raise ValueError("not a finite number")
    elif isinstance(p, param.ListSelector):
        return [_choice(p, item) for item in text.split(",")] if text else []
    elif isinstance(p, param.Selector):
        return _choice(p, text)
    else:                                   # String
        if p.regex is not None and not re.match(p.regex, text):
            raise ValueError("not of the expected form")
        return text
    if not _in_bounds(p, value):
        lo, hi = p.bounds
        raise ValueError(f"out of bounds [{lo}, {hi}]")
    return value


def refusal(p, value):
    """Why parameter `p` refuses `value` (a value a page sent, as Python has it), or None when it
    takes it: the check setting the parameter runs (param's own), said as the URL reader says it."""
    try:
        p._validate(value)
        return None
    except Exception as e:                  # param raises ValueError, or TypeError for some types
        error = e
    if isinstance(p, param.Selector):
        shown = ", ".join(str(o) for o in list(p.objects)[:8])
        return f"not one of {shown}" + (", …" if len(p.objects) > 8 else "")
    if isinstance(p, param.Number) and isinstance(value, numbers.Real) and not isinstance(value, bool):
        if not math.isfinite(value):
            return "not a finite number"
        if isinstance(p, param.Integer) and value != int(value):
            return "not a whole number"
        if p.bounds is not None and not _in_bounds(p, value):
            lo, hi = p.bounds
            return f"out of bounds [{lo}, {hi}]"
    return re.sub(r"^\w+ parameter '[^']*' ", "", str(error)).rstrip(".")


def short(text, n=40):
    """A refused value as the message quotes it (the message escapes it)."""
    return text if len(text) <= n else text[: n - 1] + "…"


# ---------------------------------------------------------------- the query

def parse_query(search):
    """(pairs, refused): the query's (key, text) pairs in order, first value of each key, and a
    message if the query is longer than MAX_QUERY (its controls are then not read)."""
    search = (search or "").lstrip("?")
    pairs, seen = [], set()
    for key, value in urllib.parse.parse_qsl(search, keep_blank_values=True):
        if key not in seen:
            seen.add(key)
            pairs.append((key, value))
    if len(search) > MAX_QUERY:
        return [(k, v) for k, v in pairs if k in RESERVED], (
            f"the link's settings were not applied: its query is {len(search):,} characters long, "
            f"at most {MAX_QUERY:,} are read")
    return pairs, ""


STATIC_PAGE = re.compile(r"/(chapter-[\w-]+|index)\.html$")


def page_address(href, chapter):
    """The address of the page that shows `chapter`: on the static site, which has a page per
    chapter (chapter-<id>.html; index.html is chapter 0), that chapter's own page; under panel
    serve the one address. navigation.NAVIGATION_JS writes the same into the address bar."""
    if STATIC_PAGE.search(href) and re.fullmatch(r"[\w-]+", str(chapter)):
        return STATIC_PAGE.sub(f"/chapter-{chapter}.html", href)
    return href


def query_string(pairs):
    """`?k=v&…`, commas kept readable."""
    return "?" + urllib.parse.urlencode(pairs, quote_via=urllib.parse.quote, safe=",") if pairs else ""
