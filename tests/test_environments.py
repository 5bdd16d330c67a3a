"""Tests of :mod:`privdtol.environments` (the registry of loss models): the built-in models are
found by their folder and listed in their declared order; every list of loss models is derived
from the declarations; a model is built from its declared parameters; a plugin model gets its
label and colour from its own declarations (nothing in the tree names it), and a declaration
of the wrong type is refused at load time."""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest
from support.plugins import fake_plugin, plugin_env

from privdtol import environments
from privdtol.environments import (
    CONTROL_MODELS,
    EXACT_MODELS,
    MODELS,
    PIPELINE_MODELS,
    LossModel,
    check_declarations,
    make_env,
)


def test_the_built_in_models_are_found_in_their_declared_order():
    assert list(MODELS) == [
        "bernoulli",
        "correlated",
        "beta",
        "deterministic",
        "blocked",
        "replay",
    ]
    assert [c.name for c in environments.built_in()] == list(MODELS)
    assert PIPELINE_MODELS == ("bernoulli", "correlated", "beta", "deterministic", "blocked")
    assert CONTROL_MODELS == ("blocked",)
    assert EXACT_MODELS == ("bernoulli", "deterministic")
    assert {n: c.parameters for n, c in MODELS.items() if c.parameters} == {
        "correlated": {"rho": "ρ"},
        "beta": {"kappa": "κ"},
    }


def test_labels_fall_back_from_short_to_plain_to_the_name():
    bern, beta, det = MODELS["bernoulli"], MODELS["beta"], MODELS["deterministic"]
    assert (bern.display_label(), bern.header_label()) == ("independent Bernoulli", "indep.")
    assert (beta.display_label(), beta.header_label()) == ("Beta", "Beta")
    assert (det.display_label(), det.header_label()) == ("deterministic", "deterministic")


def test_a_model_is_built_from_the_parameters_it_declares():
    means = np.array([0.25, 0.5])
    # kappa is not correlated's: ignored; None keeps the model's default
    assert make_env("correlated", means, rho=-0.5, kappa=8.0).rho == -0.5
    assert make_env("correlated", means, rho=None).rho == 0.5
    assert make_env("beta", means, rho=0.9, kappa=8.0).kappa == 8.0
    assert type(make_env("bernoulli", means, rho=0.9)).__name__ == "BernoulliProduct"


def _model(**attrs):
    body = {"name": "toy", "sample_rounds": lambda self, rng, n, s, r: None, **attrs}
    return type("Toy", (LossModel,), body)


@pytest.mark.parametrize(
    ("attrs", "problem"),
    [
        ({"label": ""}, "label ''"),
        ({"label_tex": 3}, "label_tex 3"),
        ({"order": "first"}, "order 'first'"),
        ({"parameters": {"rho": "ρ"}}, "parameter 'rho'"),
        ({"exact_family": "gaussian"}, "exact_family 'gaussian'"),
        ({"exact_family": "bernoulli"}, "needs losses in {0, 1}"),
    ],
)
def test_a_declaration_of_the_wrong_type_is_refused(attrs, problem):
    with pytest.raises(ValueError) as err:
        check_declarations(_model(**attrs))
    assert problem in str(err.value)
    check_declarations(_model())  # the defaults are valid


PLUGIN = """
import numpy as np
from privdtol.environments import LossModel

class Flip(LossModel):
    name = "flip_losses"
    label = "flipped Bernoulli"
    def sample_rounds(self, rng, n_runs, start, n_rounds):
        return (rng.random((n_runs, n_rounds, self.K)) >= 1 - self.means).astype(float)
"""

SHOW = """
from privdtol.environments import MODELS
from privdtol.plotting.colours import model_palette
from privdtol.plotting.style import ENV_NAMES
from privdtol.report.latex.layout import VALUES
from privdtol.report.latex.tables import ENV_LABELS
print(list(MODELS)[-1], ENV_NAMES["flip_losses"], ENV_LABELS["flip_losses"], sep="|")
print(VALUES["env"]["flip_losses"], model_palette()["flip_losses"], sep="|")
"""


def test_a_plugin_model_gets_its_label_and_colour_without_editing_the_tree(tmp_path):
    """The plugin's label in figures and table headers, escaped in the report's tables; its
    colour the plugin palette's entry at the sha256 of its name (worked out with hashlib:
    flip_losses -> 1, #117733 = (17, 119, 51)/255)."""
    where = fake_plugin(
        tmp_path / "p",
        "flip-dist",
        "flip_model",
        PLUGIN,
        {"privdtol.environments": {"flip_losses": "flip_model:Flip"}},
    )
    out = subprocess.run(
        [sys.executable, "-c", SHOW],
        env=plugin_env(where),
        capture_output=True,
        text=True,
        check=False,
    )
    assert out.returncode == 0, out.stderr
    first, second = out.stdout.splitlines()
    assert first == "flip_losses|flipped Bernoulli|flipped Bernoulli"
    assert second == "flipped Bernoulli|(0.06666666666666667, 0.4666666666666667, 0.2)"
