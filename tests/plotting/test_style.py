"""Tests of :mod:`privdtol.plotting.style`."""

from __future__ import annotations

import json
from pathlib import Path

import matplotlib
import matplotlib.pyplot as plt
import pytest

from privdtol.cli import main
from privdtol.plotting import style

# --- from tests/test_notebook_command.py

pytest.importorskip("papermill")


pytest.importorskip("jupytext")


GOOD = """# %% tags=["parameters"]
value = 1

# %%
print("value is", value * 7)
"""


BAD = """# %% tags=["parameters"]
value = 1

# %%
raise RuntimeError("planted failure 5b1e")
"""


def _paths(tmp_path: Path, name: str) -> dict[str, Path]:
    return {
        "converted": tmp_path / "logs" / f"{name}.input.ipynb",
        "executed": tmp_path / "logs" / f"{name}.ipynb",
        "ipynb": tmp_path / "results" / f"{name}.ipynb",
        "html": tmp_path / "results" / f"{name}.html",
    }


def _run(source: Path, paths: dict[str, Path], parameters: str) -> int:
    args = [str(source), f"--parameters={parameters}"]
    for key, path in paths.items():
        args += [f"--{key}", str(path)]
    return main(["notebook", *args])


@pytest.mark.notebook
def test_a_notebook_that_runs_gives_its_stripped_copy_and_its_offline_page(tmp_path):
    source = tmp_path / "good.py"
    source.write_text(GOOD)
    paths = _paths(tmp_path, "good")
    assert _run(source, paths, "{value: 6}") == 0
    nb = json.loads(paths["ipynb"].read_text())
    text = "".join("".join(o.get("text", "")) for c in nb["cells"] for o in c.get("outputs", []))
    assert "value is 42" in text  # the parameter reached the kernel
    assert "start_time" not in paths["ipynb"].read_text()  # stripped
    assert [c["id"] for c in nb["cells"]][:2] == ["cell-0", "cell-1"]
    assert paths["ipynb"].read_text() == paths["executed"].read_text()
    page = paths["html"].read_text()
    assert "value is 42" in page and "cdn.jsdelivr" not in page and "<script src=" not in page


@pytest.mark.notebook
def test_a_notebook_that_raises_leaves_no_result_and_its_partial_copy(tmp_path):
    from papermill.exceptions import PapermillExecutionError

    source = tmp_path / "bad.py"
    source.write_text(BAD)
    paths = _paths(tmp_path, "bad")
    with pytest.raises(PapermillExecutionError, match="planted failure 5b1e"):
        _run(source, paths, "{}")
    assert not paths["ipynb"].exists() and not paths["html"].exists()
    assert "planted failure 5b1e" in paths["executed"].read_text()


@pytest.mark.parametrize(
    "source, parameters, field",
    [
        ("missing.py", "{}", "source"),
        ("notebook.ipynb", "{}", "source"),
        ("good.py", "[1, 2]", "parameters"),
        ("good.py", "{a: [1", "parameters"),
    ],
)
def test_bad_arguments_are_one_line_and_start_no_kernel(
    tmp_path, capsys, source, parameters, field
):
    (tmp_path / "good.py").write_text(GOOD)
    (tmp_path / "notebook.ipynb").write_text("{}")
    paths = _paths(tmp_path, "x")
    assert _run(tmp_path / source, paths, parameters) == 2
    err = capsys.readouterr().err.strip()
    assert "\n" not in err and err.startswith(f"privdtol notebook: error: --{field}:"), err
    assert not any(p.exists() for p in paths.values())


def _figure__notebook_command(fontsize: float):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(4, 3), layout="constrained")
    ax.plot([1, 2, 3], [1, 4, 9])
    ax.set_title("title", fontsize=fontsize)
    return fig


def test_save_figure_draws_twice_and_writes_nothing_for_a_too_small_text(tmp_path, monkeypatch):
    from matplotlib.backend_bases import FigureCanvasBase

    from privdtol.plotting import style

    fig = _figure__notebook_command(10)
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
        style.save_figure(_figure__notebook_command(2), tmp_path, "tiny")
    assert not list((tmp_path / "figures").glob("tiny.*"))


def test_show_displays_the_saved_png_and_closes_the_figure(tmp_path, monkeypatch):
    import IPython.display
    import matplotlib.pyplot as plt

    from privdtol.plotting import style

    fig = _figure__notebook_command(10)
    _, png = style.save_figure(fig, tmp_path, "shown")
    shown = []
    monkeypatch.setattr(IPython.display, "display", lambda obj: shown.append(obj))
    style.show(fig, tmp_path, "shown")
    assert len(shown) == 1 and shown[0].data == png.read_bytes()
    assert not plt.fignum_exists(fig.number)


# --- from tests/test_plotting.py

matplotlib.use("Agg")


def _figure__plotting(fontsize=None):
    style.setup()
    fig, ax = plt.subplots(figsize=(style.WIDTH, 3))
    ax.plot([1, 2], [1, 2], label="rps")
    ax.set(xlabel="horizon $T$", ylabel="regret", title="$K = 8$")
    ax.legend(fontsize="small")
    if fontsize is not None:
        ax.text(1, 1, "tiny", fontsize=fontsize)
    return fig


def test_style_text_is_at_least_7pt_printed(tmp_path):
    fig = _figure__plotting()
    assert style.small_texts(fig) == []
    assert pytest.approx(style.TEXT_WIDTH) == style.WIDTH
    paths = style.save_figure(fig, tmp_path, "ok")
    assert all(p.stat().st_size > 0 for p in paths)
    plt.close(fig)


def test_small_text_is_refused(tmp_path):
    fig = _figure__plotting(fontsize=5)
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
