"""Tests of :mod:`privdtol.plotting.style`: every text of a figure at least 7 pt as printed at
the report's text width, figures saved as PNG then PDF (nothing for a too-small text), shown from
the saved PNG, and dyadic axes labelled without collisions."""

from __future__ import annotations

import matplotlib
import matplotlib.pyplot as plt
import pytest

from privdtol.plotting import style

matplotlib.use("Agg")


def _titled_figure(fontsize: float):
    """A small figure whose title is ``fontsize`` points (no style set up)."""
    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot([1, 2, 3], [1, 4, 9])
    ax.set_title("title", fontsize=fontsize)
    return fig


def test_save_figure_draws_twice_and_writes_nothing_for_a_too_small_text(tmp_path, monkeypatch):
    from matplotlib.backend_bases import FigureCanvasBase

    fig = _titled_figure(10)
    draws = []
    original = FigureCanvasBase.print_figure
    monkeypatch.setattr(
        FigureCanvasBase,
        "print_figure",
        lambda self, *a, **k: (draws.append(k.get("format")), original(self, *a, **k))[1],
    )
    pdf, png = style.save_figure(fig, tmp_path, "ok")
    assert draws == ["png", "pdf"]
    assert png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and pdf.read_bytes()[:5] == b"%PDF-"
    with pytest.raises(ValueError, match="below"):
        style.save_figure(_titled_figure(2), tmp_path, "tiny")
    assert not list((tmp_path / "figures").glob("tiny.*"))


def test_show_displays_the_saved_png_and_closes_the_figure(tmp_path, monkeypatch):
    import IPython.display

    fig = _titled_figure(10)
    _, png = style.save_figure(fig, tmp_path, "shown")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    style.show(fig, tmp_path, "shown")
    assert len(shown) == 1 and shown[0].data == png.read_bytes()
    assert not plt.fignum_exists(fig.number)


def _styled_figure(fontsize=None):
    """A figure in the report's style at its width, with a ``tiny`` text of ``fontsize``."""
    style.setup()
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3))
    ax.plot([1, 2], [1, 2], label="rps")
    ax.set(xlabel="horizon $T$", ylabel="regret", title="$K = 8$")
    ax.legend(fontsize="small")
    if fontsize is not None:
        ax.text(1, 1, "tiny", fontsize=fontsize)
    return fig


def test_style_text_is_at_least_7pt_printed(tmp_path):
    fig = _styled_figure()
    assert style.small_texts(fig) == []
    assert pytest.approx(style.TEXT_WIDTH) == style.WIDTH
    paths = style.save_figure(fig, tmp_path, "ok")
    assert all(p.stat().st_size > 0 for p in paths)
    plt.close(fig)


def test_small_text_is_refused(tmp_path):
    fig = _styled_figure(fontsize=5)
    assert [t for t, _ in style.small_texts(fig)] == ["tiny"]
    with pytest.raises(ValueError, match="tiny"):
        style.save_figure(fig, tmp_path, "bad")
    plt.close(fig)


def test_narrow_figures_scale_up_wide_ones_down():
    style.setup()
    fig, ax = plt.subplots(figsize=(2 * style.TEXT_WIDTH, 3))
    ax.plot([1, 2], [1, 2])
    assert style.printed_scale(fig) < 0.7  # its white margins are cropped: not exactly 1/2
    assert style.small_texts(fig)  # 8-pt tick labels printed at about 4 pt
    plt.close(fig)
    fig, ax = plt.subplots(figsize=(style.TEXT_WIDTH / 2, 2))
    ax.plot([1, 2], [1, 2])
    assert style.printed_scale(fig) > 1.5 and style.small_texts(fig) == []
    plt.close(fig)


def test_content_sticking_out_shrinks_the_print():
    """A label outside the figure widens the saved (tight) PDF, which the report shrinks to
    the text width: the check measures the saved width, not the figure's."""
    style.setup()
    fig, ax = plt.subplots(figsize=(style.WIDTH, 2), layout="constrained")
    ax.text(1.5, 0.5, "a label far to the right of the axes", transform=ax.transAxes)
    assert style.saved_width(fig) > style.WIDTH
    assert style.printed_scale(fig) < 1
    assert style.small_texts(fig)  # 8-pt ticks printed below 7 pt
    plt.close(fig)


def test_long_dyadic_axes_label_every_other_power():
    """16 powers of two (the paper's 1/gap axis, 2 .. 2^16) collide when all are labelled:
    beyond MAX_TICK_LABELS every k-th exponent is; 10 values are all labelled."""
    style.setup()
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3))
    ax.set_xscale("log", base=2)
    for n, labelled in ((10, 10), (16, 8)):
        vals = [2.0**e for e in range(1, n + 1)]
        ax.set_xlim(1, 2.0 ** (n + 1))
        style.dyadic_ticks(ax, vals)
        fig.canvas.draw()
        texts = [t.get_text() for t in ax.get_xticklabels()]
        assert len(texts) == n and sum(bool(t) for t in texts) == labelled
    plt.close(fig)


def test_a_pale_colour_is_darkened_to_a_legible_one_and_the_built_in_ones_kept():
    from privdtol.plotting.style import contrast_with_white, legible

    # WCAG: white on white 1:1, black on white 21:1
    assert contrast_with_white((1.0, 1.0, 1.0)) == pytest.approx(1.0)
    assert contrast_with_white((0.0, 0.0, 0.0)) == pytest.approx(21.0)
    # seaborn colorblind's 9th colour (#ece133, a plugin's), about 1.37:1 on white
    yellow = (236 / 255, 225 / 255, 51 / 255)
    assert contrast_with_white(yellow) == pytest.approx(1.37, abs=0.01)
    darker = legible(yellow)
    assert 3.0 <= contrast_with_white(darker) < 3.2
    assert darker[0] / darker[2] == pytest.approx(yellow[0] / yellow[2])  # the same hue
    orange = (222 / 255, 143 / 255, 5 / 255)  # rnm_ftnl's, 2.6:1: kept as it is
    assert legible(orange) == orange


def test_a_long_display_name_is_shortened_for_figures():
    """A plugin's ~130-character display name widened the privacy figure past the text width,
    and its texts fell below the size floor: figures show at most MAX_LABEL characters, never
    cutting mathematics open."""
    from privdtol.plotting.style import MAX_LABEL, display_label

    assert MAX_LABEL == 32
    assert display_label("RPS (Section 4)") == "RPS (Section 4)"
    assert display_label("x" * 130) == "x" * 31 + "…"
    assert display_label("a long name with math $\\eta = \\varepsilon/2$ inside it") == (
        "a long name with math…"
    )
    assert display_label("name\n  with   breaks") == "name with breaks"


def test_values_below_a_log_axis_floor_are_drawn_on_it_and_marked():
    """The proof figure's right panel: an exact left side of 0 cannot sit on a log axis; it
    is drawn on the floor 1e-4, with the values below it, and the mask marks them (NaN is
    neither drawn there nor marked)."""
    import numpy as np

    y, low = style.on_floor([0.0, 5e-5, 1e-4, 0.5, 2.0, float("nan")], 1e-4)
    assert low.tolist() == [True, True, False, False, False, False]
    assert y[:5].tolist() == [1e-4, 1e-4, 1e-4, 0.5, 2.0] and np.isnan(y[5])
    assert style.floor_label(1e-4) == "0 or below $10^{-4}$, drawn at $10^{-4}$"
    with pytest.raises(ValueError, match="power of ten"):
        style.floor_label(3e-4)


def test_the_proof_figure_and_its_caption_mark_the_floor():
    """The notebook draws the floored values apart, labelled, and the report's caption says
    what the triangles on the dotted line at 10^-4 are."""
    from support.paths import ROOT

    from privdtol.analysis.registry import NOTEBOOKS

    notebook = (ROOT / "notebooks" / "proof.py").read_text()
    assert "style.on_floor(" in notebook and "label=style.floor_label(FLOOR)" in notebook
    assert ".clip(lower=" not in notebook  # no value passed off as the floor unmarked
    caption = NOTEBOOKS["proof"].caption
    assert "dotted line at $10^{-4}$: a left side of 0" in caption
