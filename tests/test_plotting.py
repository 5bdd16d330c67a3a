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
    fig = plt.figure(figsize=(2 * style.TEXT_WIDTH, 3))
    fig.text(0.5, 0.5, "eight", fontsize=8)  # printed at 4 pt
    assert style.small_texts(fig) == [("eight", 4.0)]
    plt.close(fig)
