"""The algorithms' and loss models' colours, legible on the white page.

- the built-in algorithms: seaborn's ``colorblind`` palette, each at its fixed place by name
  (:data:`BUILT_IN_COLOURS`: the figures of the paper's algorithm and its competitors never
  change colour, and a new algorithm recolours no other);
- a plugin's algorithm, or a built-in one not in that table: a colour of
  :data:`PLUGIN_COLOURS` (mostly Paul Tol's colour-blind-safe "muted" scheme without its pale
  members; each at least :data:`TARGET_CONTRAST` to 1 against white, WCAG 2's contrast for
  graphics), chosen by the sha256 of its name: the same colour whatever else is installed,
  and never the colorblind palette's pale yellow that a ninth algorithm used to get;
- the loss models: the same rule (:data:`MODEL_COLOURS` for the built-in ones, the sha256 of
  the name otherwise), :func:`model_palette`;
- the negative controls: greys (``controls=True``), so that figures of the algorithms do not
  change when a config also runs the controls.
"""

from __future__ import annotations

import hashlib

from privdtol.algorithms import ALGORITHMS
from privdtol.environments import MODELS

#: the registry's algorithms and controls, in display order (plugins included)
ALGORITHM_ORDER = tuple(n for n, c in ALGORITHMS.items() if c.role != "control")
CONTROL_ORDER = tuple(n for n, c in ALGORITHMS.items() if c.role == "control")
#: each built-in algorithm's place in seaborn's ``colorblind`` palette, by name (fixed: an
#: algorithm added or removed changes no other's colour)
BUILT_IN_COLOURS = {
    "rps": 0,
    "rnm_ftnl": 1,
    "wu_wang": 2,
    "wu_wang_gumbel": 3,
    "rps_full_prefix": 4,
    "rps_uncapped": 5,
    "ftl": 6,
    "hedge": 7,
}
#: each built-in loss model's place in seaborn's ``colorblind`` palette, by name
MODEL_COLOURS = {
    "bernoulli": 0,
    "correlated": 1,
    "beta": 2,
    "deterministic": 3,
    "blocked": 7,
    "replay": 5,
}
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
    """The colour of the plugin algorithm (or loss model) ``name``: the entry of
    :data:`PLUGIN_COLOURS` at the sha256 of its name modulo their number (stable by name, not
    by installation order)."""
    import matplotlib.colors as mcolors

    digest = int(hashlib.sha256(name.encode("utf-8")).hexdigest(), 16)
    return mcolors.to_rgb(PLUGIN_COLOURS[digest % len(PLUGIN_COLOURS)])


def _by_name(names, table: dict[str, int]) -> dict[str, tuple]:
    """Each name's colour: its place in the colorblind palette from ``table``, made
    legible, else :func:`plugin_colour`."""
    import seaborn as sns

    colours = sns.color_palette("colorblind", 10)
    return {n: legible(colours[table[n]]) if n in table else plugin_colour(n) for n in names}


def palette(controls: bool = False) -> dict[str, tuple]:
    """Algorithm → RGB colour, in the registry's order: the built-in ones from seaborn's
    colorblind palette (:data:`BUILT_IN_COLOURS`, by name), any other by
    :func:`plugin_colour`; with ``controls=True`` also each control → a grey (the
    algorithms' colours do not change)."""
    import matplotlib.colors as mcolors

    out = _by_name(ALGORITHM_ORDER, BUILT_IN_COLOURS)
    if controls:
        greys = (mcolors.to_rgb(g) for g in CONTROL_GREYS)
        out.update(zip(CONTROL_ORDER, greys, strict=False))
    return out


def model_palette() -> dict[str, tuple]:
    """Loss model → RGB colour, in the registry's order: the built-in ones from seaborn's
    colorblind palette (:data:`MODEL_COLOURS`, by name), a plugin's by :func:`plugin_colour`
    (the same for every installation)."""
    return _by_name(MODELS, MODEL_COLOURS)
