"""The algorithms' and loss models' colours, legible on the white page.

- the built-in algorithms: seaborn's ``colorblind`` palette in the registry's order (the
  figures of the paper's algorithm and its competitors never change colour);
- a plugin's algorithm: a colour of :data:`PLUGIN_COLOURS` (mostly Paul Tol's
  colour-blind-safe "muted" scheme without its pale members; each at least
  :data:`TARGET_CONTRAST` to 1 against white, WCAG 2's contrast for graphics), chosen by the
  sha256 of its name: the same colour whatever other plugins are installed, and never the
  colorblind palette's pale yellow that a ninth algorithm used to get;
- the negative controls: greys (``controls=True``), so that figures of the algorithms do not
  change when a config also runs the controls.
"""

from __future__ import annotations

import hashlib

from privdtol.algorithms import ALGORITHMS, PLUGINS

#: the registry's algorithms and controls, in display order (plugins included)
ALGORITHM_ORDER = tuple(n for n, c in ALGORITHMS.items() if c.role != "control")
CONTROL_ORDER = tuple(n for n, c in ALGORITHMS.items() if c.role == "control")
#: the controls' greys (matplotlib grey levels), in CONTROL_ORDER
CONTROL_GREYS = ("0.15", "0.35", "0.5", "0.65")
#: a plugin's colours: Paul Tol's "muted" scheme (indigo, green, wine, purple, olive, rose)
#: without its sand, cyan and teal (below 3:1 on white), and the two dark ends of
#: ColorBrewer's BrBG (brown, teal); each at least 3:1 against white
PLUGIN_COLOURS = (
    "#332288",
    "#117733",
    "#882255",
    "#aa4499",
    "#999933",
    "#cc6677",
    "#8c510a",
    "#01665e",
)
#: a colour whose contrast with the white page is below this is darkened (the palette's pale
#: yellow); every built-in colour is above
MIN_CONTRAST = 1.5
#: the contrast a darkened colour is given, and that of every plugin colour (WCAG 2's for
#: graphics, success criterion 1.4.11)
TARGET_CONTRAST = 3.0


def contrast_with_white(rgb) -> float:
    """WCAG 2 contrast ratio of ``rgb`` (components in [0, 1]) against white."""

    def linear(c):
        return c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (linear(c) for c in rgb)
    luminance = 0.2126 * r + 0.7152 * g + 0.0722 * b
    return 1.05 / (luminance + 0.05)


def legible(rgb) -> tuple:
    """``rgb`` unchanged, or darkened (scaled towards black, hue kept) to
    :data:`TARGET_CONTRAST` when its contrast with white is below :data:`MIN_CONTRAST`."""
    rgb = tuple(float(c) for c in rgb)
    if contrast_with_white(rgb) >= MIN_CONTRAST:
        return rgb
    scale = 1.0
    while contrast_with_white(tuple(c * scale for c in rgb)) < TARGET_CONTRAST:
        scale -= 0.01
    return tuple(c * scale for c in rgb)


def plugin_colour(name: str) -> tuple:
    """The colour of the plugin algorithm ``name``: the entry of :data:`PLUGIN_COLOURS` at the
    sha256 of its name modulo their number (stable by name, not by installation order)."""
    import matplotlib.colors as mcolors

    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16)
    return mcolors.to_rgb(PLUGIN_COLOURS[digest % len(PLUGIN_COLOURS)])


def palette(controls: bool = False) -> dict[str, tuple]:
    """Algorithm → RGB colour: the built-in ones from seaborn's colorblind palette (stable
    assignment, in registry order), a plugin's by :func:`plugin_colour`; with
    ``controls=True`` also each control → a grey (the algorithms' colours do not change)."""
    import matplotlib.colors as mcolors
    import seaborn as sns

    built_in = [a for a in ALGORITHM_ORDER if a not in PLUGINS]
    colours = sns.color_palette("colorblind", len(built_in))
    out = {a: legible(c) for a, c in zip(built_in, colours, strict=True)}
    out.update({a: plugin_colour(a) for a in ALGORITHM_ORDER if a in PLUGINS})
    out = {a: out[a] for a in ALGORITHM_ORDER}  # the registry's order
    if controls:
        greys = (mcolors.to_rgb(g) for g in CONTROL_GREYS)
        out.update(zip(CONTROL_ORDER, greys, strict=False))
    return out
