"""Shared figure style for the notebooks: colours, markers, order, bands, and the one figure
writer.

- one colour (:mod:`privdtol.plotting.colours`: seaborn ``colorblind`` for the built-in
  algorithms, a contrast-safe one chosen by name for a plugin's), marker and line style per
  algorithm, in a fixed order (the algorithm registry's), with the registry classes' display
  names, so every figure uses the same legend; the negative controls of the regret checks
  (``role == "control"``, registered last) are left out of :func:`order` and :func:`palette`
  unless asked for (``controls=True``), and drawn in greys, so figures of the algorithms do not
  change when a config also runs the controls;
- :func:`save_figure` writes ``<out_dir>/figures/<name>.pdf`` and ``.png`` with no creation
  date or software stamp, atomically, so identical data give identical bytes.

Tables are data (``results/tables/<name>.csv``, :func:`privdtol.pipeline.io.write_table`); the
report renders them.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pandas as pd

from privdtol.algorithms import ALGORITHMS
from privdtol.environments import MODELS
from privdtol.pipeline.io import atomic_path

# the colours (privdtol.plotting.colours), and the display order of the algorithms: the
# registry's (one definition), controls apart
from privdtol.plotting.colours import (  # noqa: F401 (the figures' API)
    ALGORITHM_ORDER,
    CONTROL_GREYS,
    CONTROL_ORDER,
    MIN_CONTRAST,
    TARGET_CONTRAST,
    contrast_with_white,
    legible,
    palette,
    plugin_colour,
)

#: the longest algorithm name a figure shows (a plugin's may be longer: shortened, so that a
#: legend or a panel title does not widen the figure and shrink every text below the floor)
MAX_LABEL = 32


def display_label(text: str, width: int = MAX_LABEL) -> str:
    """``text`` as a figure shows it: at most ``width`` characters, else cut with an ellipsis
    (before a ``$`` that would open mathematics it cannot close)."""
    text = " ".join(str(text).split())
    if len(text) <= width:
        return text
    cut = text[: width - 1].rstrip()
    if cut.count("$") % 2:
        cut = cut[: cut.rfind("$")].rstrip()
    return cut + "…"


ALGORITHM_NAMES = {name: display_label(cls.display_name) for name, cls in ALGORITHMS.items()}
#: the experiments of the configs as a reader names them (legends; never the config's keys)
EXPERIMENT_NAMES = {
    "horizon": "horizon curves",
    "gap": r"$\Delta_{\min}$ sweep",
    "epsilon": r"$\varepsilon$ sweep",
    "actions": r"$K$ sweep",
    "grid": r"grid $K \times \Delta_{\min} \times \varepsilon$",
    "dependent": "dependent losses",
    "ablations": "ablations",
}
#: the loss models as figures name them, in display order (LossModel.display_label)
ENV_NAMES = {n: c.display_label() for n, c in MODELS.items()}
_MARKERS = ("o", "s", "^", "v", "D", "P", "X", "*")
_DASHES = ("-", "--", "-.", ":", "-", "--", "-.", ":")
_CONTROL_MARKERS = ("x", "+", "1", "2")
_CONTROL_GREYS = CONTROL_GREYS
#: the report's text width, inches (A4, 2.3 cm margins: ``paper/preamble.tex``); figures are
#: made at this width and included at ``\linewidth``, so their point sizes are the printed ones
TEXT_WIDTH = (210 - 2 * 23) / 25.4
#: width of a full-width figure, inches
WIDTH = TEXT_WIDTH
#: the smallest text of a figure at its printed size, points
MIN_FONT_PT = 7.0


def model_labels(df: pd.DataFrame) -> list[str]:
    """Display label of each row's loss model with its parameter (rho, kappa)."""
    out = []
    for _, r in df.iterrows():
        env = r.get("env", "bernoulli")
        name = ENV_NAMES.get(env, env)
        params = MODELS[env].parameters if env in MODELS else {}
        name += "".join(
            f", {symbol}={r[p]:g}" for p, symbol in params.items() if pd.notna(r.get(p, np.nan))
        )
        out.append(name)
    return out


def _parameter(row) -> float:
    """The value of the first parameter its loss model declares (0: none)."""
    env = row.get("env", "bernoulli")
    params = MODELS[env].parameters if env in MODELS else {}
    values = [row[p] for p in params if pd.notna(row.get(p, np.nan))]
    return float(values[0]) if values else 0.0


def model_order(df: pd.DataFrame) -> list[str]:
    """Loss-model labels in the registry's display order (independent, correlated by rho,
    Beta by kappa, the control), each model's by its parameter."""
    rank = {n: i for i, n in enumerate(MODELS)}
    rows = df.assign(_label=model_labels(df), _rank=df["env"].map(rank).fillna(len(rank)))
    rows = rows.assign(_p=[_parameter(r) for _, r in rows.iterrows()])
    rows = rows.sort_values(["_rank", "_p"])
    return list(dict.fromkeys(rows["_label"]))


def style(algorithm: str) -> dict:
    """Keyword arguments (colour, marker, linestyle, label) for an algorithm's line; a control
    gets a grey, a thin marker and a dotted line."""
    label = ALGORITHM_NAMES.get(algorithm, algorithm)
    if algorithm in CONTROL_ORDER:
        i = CONTROL_ORDER.index(algorithm) % len(_CONTROL_MARKERS)
        return {
            "color": _CONTROL_GREYS[i],
            "marker": _CONTROL_MARKERS[i],
            "linestyle": ":",
            "label": label,
        }
    i = ALGORITHM_ORDER.index(algorithm) if algorithm in ALGORITHM_ORDER else 0
    return {  # markers and dashes cycle: a plugin adds a ninth algorithm
        "color": palette().get(algorithm, "0.3"),
        "marker": _MARKERS[i % len(_MARKERS)],
        "linestyle": _DASHES[i % len(_DASHES)],
        "label": label,
    }


def order(algorithms: Sequence[str], controls: bool = False) -> list[str]:
    """The given algorithms in display order (unknown ones last, alphabetically).

    Negative controls (``role == "control"``) are dropped unless ``controls=True``, in which case
    they follow the algorithms in registry order."""
    given = set(algorithms)
    known = [a for a in ALGORITHM_ORDER if a in given]
    ctrl = [a for a in CONTROL_ORDER if a in given] if controls else []
    return known + ctrl + sorted(given - set(ALGORITHM_ORDER) - set(CONTROL_ORDER))


def setup(font_scale: float = 0.9) -> None:
    """Seaborn paper theme, colorblind palette, fonts embedded as TrueType, fixed hash salt."""
    import matplotlib as mpl
    import seaborn as sns

    sns.set_theme(context="paper", style="whitegrid", palette="colorblind", font_scale=font_scale)
    mpl.rcParams.update(
        {
            "pdf.fonttype": 42,
            "ps.fonttype": 42,
            "svg.hashsalt": "privdtol",
            "figure.dpi": 150,
            "savefig.dpi": 200,
            "savefig.bbox": "tight",
            "font.size": 9,
            "axes.labelsize": 9,
            "axes.titlesize": 9,
            "xtick.labelsize": 8,
            "ytick.labelsize": 8,
            "legend.fontsize": 8,
            "legend.title_fontsize": 8,
            "figure.titlesize": 10,
            "lines.markersize": 4,
            "lines.linewidth": 1.3,
        }
    )


def saved_width(fig) -> float:
    """The width, inches, of the figure as :func:`save_figure` writes it (``bbox_inches=
    "tight"``: the drawn content plus the padding, which may be wider than the figure when a
    legend or a label sticks out)."""
    import matplotlib as mpl

    bbox = fig.get_tightbbox(fig.canvas.get_renderer())
    return bbox.width + 2 * float(mpl.rcParams["savefig.pad_inches"])


def printed_scale(fig) -> float:
    """The factor from a figure's sizes to its printed ones: it is included at the text
    width, so a saved figure wider than the text is shrunk, a narrower one enlarged."""
    return TEXT_WIDTH / saved_width(fig)


def small_texts(fig, drawn: bool = False) -> list[tuple[str, float]]:
    """The visible texts of ``fig`` smaller than :data:`MIN_FONT_PT` at the printed size, as
    ``(text, printed points)``; ``drawn``: the figure was just drawn (saved), so its tick
    labels exist and it is not drawn again."""
    from matplotlib.text import Text

    if not drawn:
        fig.canvas.draw()  # tick labels exist once drawn
    scale = printed_scale(fig)
    out = []
    for t in fig.findobj(Text):
        if t.get_visible() and t.get_text().strip() and t.get_fontsize() * scale < MIN_FONT_PT:
            out.append((t.get_text(), round(t.get_fontsize() * scale, 2)))
    return out


def band(
    ax,
    x,
    mean,
    low,
    high,
    *,
    color=None,
    label=None,
    marker="o",
    linestyle="-",
    alpha: float = 0.2,
    **kwargs,
):
    """A line with markers and a shaded confidence band between ``low`` and ``high``."""
    x, mean, low, high = (np.asarray(v, dtype=float) for v in (x, mean, low, high))
    idx = np.argsort(x)
    x, mean, low, high = x[idx], mean[idx], low[idx], high[idx]
    (line,) = ax.plot(
        x, mean, color=color, label=label, marker=marker, linestyle=linestyle, **kwargs
    )
    ax.fill_between(x, low, high, color=line.get_color(), alpha=alpha, linewidth=0)
    return line


def algorithm_band(
    ax, df: pd.DataFrame, x: str, algorithm: str, y="mean", low="ci_low", high="ci_high", **kwargs
):
    """One algorithm's rows of an aggregated table, in its standard style: exact values
    (``runs`` 0, :mod:`privdtol.engine.exact`) as a line, since their interval is numerical
    and invisible; Monte Carlo values as points with their confidence intervals."""
    rows = df[df["algorithm"] == algorithm].sort_values(x)
    kw = {**style(algorithm), **kwargs}
    if "runs" in rows and len(rows) and (rows["runs"] == 0).all():
        kw.pop("marker", None)
        (line,) = ax.plot(rows[x], rows[y], **kw)
        return line
    mean = rows[y].to_numpy(dtype=float)
    lo = np.maximum(rows[low].to_numpy(dtype=float), np.finfo(float).tiny)  # log axes
    yerr = np.vstack([mean - lo, rows[high].to_numpy(dtype=float) - mean])
    kw["linestyle"] = "none"
    return ax.errorbar(rows[x], mean, yerr=np.maximum(yerr, 0), capsize=2, elinewidth=0.8, **kw)


#: legend label of the cells the C4 exponent fits leave out (plateau rule, analysis.cells)
RISING_LABEL = "RPS still rising at $T_{\\max}$ (left out of the fits)"


def mark_rising(ax, df: pd.DataFrame, x: str, ratio_max: float, y: str = "mean"):
    """Ring the cells of ``df`` (rows of :func:`privdtol.analysis.cells.plateau_ratio`) whose
    regret is still rising at their largest horizon (``plateau_ratio`` > ``ratio_max``): the
    C4a-C4c exponent fits leave them out. Returns the artist, or None if there is none."""
    rising = df[df["plateau_ratio"] > ratio_max]
    if rising.empty:
        return None
    return ax.plot(
        rising[x],
        rising[y],
        linestyle="none",
        marker="o",
        markersize=8,
        markerfacecolor="none",
        markeredgecolor="0.35",
        markeredgewidth=0.8,
        zorder=6,
        label=RISING_LABEL,
    )[0]


#: legend label of the values a log axis draws on its floor (:func:`on_floor`)
FLOOR_LABEL = "0 or below $10^{{{k}}}$, drawn at $10^{{{k}}}$"


def on_floor(values, floor: float) -> tuple[np.ndarray, np.ndarray]:
    """``(values clipped below at floor, mask of the values below it)``: a log axis cannot
    draw 0 (an exact left side of 0) or values far below the others, so they are drawn on the
    floor, and the mask lets the figure mark them as such (a hollow marker, ``FLOOR_LABEL``)
    instead of passing them off as values equal to the floor.  NaN is neither."""
    v = np.asarray(values, dtype=float)
    below = v < floor
    return np.where(below, floor, v), below


def floor_label(floor: float) -> str:
    """:data:`FLOOR_LABEL` of a power of ten ``floor`` (``1e-4`` -> ``$10^{-4}$``)."""
    k = round(float(np.log10(floor)))
    if not np.isclose(10.0**k, floor):
        raise ValueError(f"floor {floor!r} is not a power of ten")
    return FLOOR_LABEL.format(k=k)


def plain_log_ticks(ax, axis: str = "y") -> None:
    """Log-axis ticks at 1, 2, 5 × 10^k labelled as plain numbers (readable on short ranges)."""
    import matplotlib.ticker as mticker

    target = ax.yaxis if axis == "y" else ax.xaxis
    target.set_major_locator(mticker.LogLocator(base=10, subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(mticker.FormatStrFormatter("%g"))
    target.set_minor_formatter(mticker.NullFormatter())


def save_figure(fig, out_dir: str | Path, name: str) -> list[Path]:
    """Write ``<out_dir>/figures/<name>.pdf`` and ``.png`` deterministically; return paths.
    A text smaller than :data:`MIN_FONT_PT` at the printed size is an error, and then nothing
    is written.  The PNG is rendered first, in memory: that drawing also places the tick labels
    the size check reads, so the figure is laid out twice (PNG, PDF) instead of three times."""
    import io

    png = io.BytesIO()
    fig.savefig(png, format="png", metadata={"Software": None})
    small = small_texts(fig, drawn=True)
    if small:
        raise ValueError(
            f"figure {name}: text below {MIN_FONT_PT:g} pt at the printed size: {small[:5]}"
        )
    folder = Path(out_dir) / "figures"
    folder.mkdir(parents=True, exist_ok=True)
    pdf_path, png_path = folder / f"{name}.pdf", folder / f"{name}.png"
    with atomic_path(pdf_path) as tmp:
        meta = {"CreationDate": None, "Producer": None, "Creator": None}
        fig.savefig(tmp, format="pdf", metadata=meta)
    with atomic_path(png_path) as tmp:
        tmp.write_bytes(png.getvalue())
    return [pdf_path, png_path]


def show(fig, out_dir: str | Path, name: str) -> None:
    """Display the saved ``<out_dir>/figures/<name>.png`` in the notebook (the very image the
    report includes) and close ``fig``, instead of ``plt.show()`` drawing it a third time."""
    import matplotlib.pyplot as plt
    from IPython.display import Image, display

    display(Image(filename=str(Path(out_dir) / "figures" / f"{name}.png")))
    plt.close(fig)


#: most labelled ticks on a dyadic axis (more values: every k-th power of two is labelled)
MAX_TICK_LABELS = 12


def dyadic_ticks(ax, values, axis: str = "x") -> None:
    """Ticks at the given powers of two, labelled exactly (``1/32`` -> ``$2^{-5}$``,
    ``32`` -> ``$2^{5}$``; 1, 2, 4, 8 as themselves), never rotated; beyond
    :data:`MAX_TICK_LABELS` values only the exponents divisible by k are labelled (labels
    would collide)."""
    import matplotlib.ticker as mticker

    vals = sorted({float(v) for v in values if np.isfinite(v) and v > 0})
    step = max(1, -(-len(vals) // MAX_TICK_LABELS))
    target = ax.xaxis if axis == "x" else ax.yaxis
    target.set_major_locator(mticker.FixedLocator(vals))
    target.set_minor_locator(mticker.NullLocator())
    target.set_major_formatter(
        mticker.FuncFormatter(
            lambda v, _: pow2_label(v) if round(float(np.log2(v))) % step == 0 else ""
        )
    )


def pow2_label(v: float) -> str:
    """An exact power of two as mathtext (``2^{-5}``), small integers plainly; others ``%g``."""
    k = np.log2(v) if v > 0 else np.nan
    if np.isfinite(k) and float(k).is_integer():
        k = int(k)
        return f"{int(v)}" if 0 <= k <= 4 else f"$2^{{{k}}}$"
    return f"{v:g}"


def legend_below(fig, axes, ncol: int = 4) -> None:
    """One legend for the figure, below the panels (it never covers data): the union of the
    panels' entries, in order."""
    handles, labels = [], []
    for ax in np.ravel(axes):
        for h, lab in zip(*ax.get_legend_handles_labels(), strict=True):
            if lab not in labels:
                handles.append(h)
                labels.append(lab)
    for n in range(ncol, 0, -1):  # the most columns that fit the figure's width
        legend = fig.legend(handles, labels, loc="outside lower center", ncol=n, frameon=False)
        fig.canvas.draw()
        if legend.get_window_extent().width <= 0.98 * fig.bbox.width or n == 1:
            return
        legend.remove()
