"""Tests of :mod:`privdtol.plotting.colours`: a plugin's colour is legible on white (WCAG 2
contrast at least 3:1) and chosen by its name, whatever other plugins are installed; the
built-in algorithms and loss models keep seaborn's colorblind colours, fixed by name."""

from __future__ import annotations

import matplotlib.colors as mcolors
import pytest

from privdtol.plotting import colours


def test_every_plugin_colour_has_a_contrast_of_3_on_white():
    # WCAG 2 relative luminance, computed by hand for two of them: indigo #332288 12.2:1,
    # olive #999933 (the palest kept) 3.0:1
    contrast = {h: colours.contrast_with_white(mcolors.to_rgb(h)) for h in colours.PLUGIN_COLOURS}
    assert contrast["#332288"] == pytest.approx(12.17, abs=0.01)
    assert contrast["#999933"] == pytest.approx(3.02, abs=0.01)
    assert min(contrast.values()) >= colours.TARGET_CONTRAST == 3.0
    assert len(set(colours.PLUGIN_COLOURS)) == len(colours.PLUGIN_COLOURS) == 8
    # the pale yellow a ninth algorithm got from the colorblind palette is not among them
    assert "#ece133" not in colours.PLUGIN_COLOURS


def test_a_plugin_colour_is_chosen_by_its_name():
    """sha256 of the name modulo 8, worked out once with hashlib: rps_pf (the example
    plugin) -> 6, my_plugin -> 3, zeta -> 1."""
    for name, k in (("rps_pf", 6), ("my_plugin", 3), ("zeta", 1)):
        assert colours.plugin_colour(name) == mcolors.to_rgb(colours.PLUGIN_COLOURS[k]), name


def test_a_plugin_s_colour_does_not_depend_on_the_other_plugins(monkeypatch):
    """The palette with one plugin, then with another installed before it: the first keeps
    its colour, and the built-in algorithms keep theirs (seaborn colorblind, by name)."""
    built_in = colours.palette()
    assert built_in["rps"] == pytest.approx(mcolors.to_rgb("#0173b2"), abs=1 / 255)
    for installed in (("rps_pf",), ("zeta", "rps_pf")):
        monkeypatch.setattr(colours, "ALGORITHM_ORDER", (*built_in, *installed))
        out = colours.palette(controls=True)
        assert out["rps_pf"] == mcolors.to_rgb("#8c510a")
        assert {a: out[a] for a in built_in} == built_in
        assert all(colours.contrast_with_white(out[a]) >= 3.0 for a in installed)
        assert list(out)[: len(built_in) + len(installed)] == [*built_in, *installed]


def test_a_new_algorithm_recolours_no_other(monkeypatch):
    """A built-in algorithm added between rps and rnm_ftnl in the registry's order takes the
    colour of its name (sha256: zeta -> #117733); rnm_ftnl keeps the colorblind palette's
    orange #de8f05 and hedge its grey #949494."""
    order = colours.ALGORITHM_ORDER
    monkeypatch.setattr(colours, "ALGORITHM_ORDER", (order[0], "zeta", *order[1:]))
    out = colours.palette()
    assert out["zeta"] == mcolors.to_rgb("#117733")
    assert out["rnm_ftnl"] == pytest.approx(mcolors.to_rgb("#de8f05"), abs=1 / 255)
    assert out["hedge"] == pytest.approx(mcolors.to_rgb("#949494"), abs=1 / 255)


def test_a_loss_model_s_colour_is_fixed_by_its_name(monkeypatch):
    """The built-in models at their colorblind places (independent blue #0173b2, the blocked
    control grey #949494); a plugin model by the sha256 of its name (zeta -> #117733),
    whatever else is installed."""
    out = colours.model_palette()
    assert list(out)[:2] == ["bernoulli", "correlated"]
    assert out["bernoulli"] == pytest.approx(mcolors.to_rgb("#0173b2"), abs=1 / 255)
    assert out["blocked"] == pytest.approx(mcolors.to_rgb("#949494"), abs=1 / 255)
    monkeypatch.setattr(colours, "MODELS", {"zeta": None, **colours.MODELS})
    again = colours.model_palette()
    assert again["zeta"] == mcolors.to_rgb("#117733")
    assert {m: again[m] for m in out} == out
