"""The figure specification: every figure is made at the report's text width with text of at
least 7 pt at its printed size; a figure with smaller text is refused."""

from __future__ import annotations

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import pytest

from privdtol.plotting import style


def _figure(fontsize=None):
    style.setup()
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3))
    ax.plot([1, 2], [1, 2], label="rps")
    ax.set(xlabel="horizon $T$", ylabel="regret", title="$K = 8$")
    ax.legend(fontsize="small")
    if fontsize is not None:
        ax.text(1, 1, "tiny", fontsize=fontsize)
    return fig


def test_style_text_is_at_least_7pt_printed(tmp_path):
    fig = _figure()
    assert style.small_texts(fig) == []
    assert pytest.approx(style.TEXT_WIDTH) == style.WIDTH
    paths = style.save_figure(fig, tmp_path, "ok")
    assert all(p.stat().st_size > 0 for p in paths)
    plt.close(fig)


def test_small_text_is_refused(tmp_path):
    fig = _figure(fontsize=5)
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
