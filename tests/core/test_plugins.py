"""Tests of :mod:`privdtol.core.plugins` through the two registries that use it: a plugin
installed beside privdtol (a fake distribution on the path, :mod:`support.plugins`) is
registered and accepted by the config schema; one that breaks the contract (wrong shapes, a
law that does not sum to one, a clashing name, an import error) is refused at load time in one
line naming it."""

from __future__ import annotations

import pytest
from support.cli import run_cli
from support.plugins import fake_plugin

ALG = "privdtol.algorithms"
ENV = "privdtol.environments"

#: a well-behaved block algorithm; BAD_* lines replace parts of it
GOOD = """
import numpy as np
from privdtol.algorithms import BlockAlgorithm, Privacy
from privdtol.algorithms.declarations import twice_eta

class Toy(BlockAlgorithm):
    name = "toy"
    display_name = "toy"
    role = "competitor"
    source = "a test plugin"
    privacy = Privacy("exponential mechanism", twice_eta)
    symmetric = True
    eta = 0.125
    def law(self, sums, r):
        w = np.exp(-self.eta * (sums - sums.min(axis=1, keepdims=True)))
        return SCALE * w / w.sum(axis=1, keepdims=True)
    def select(self, rng, sums, r):
        p = self.law(sums, r) / SCALE
        u = rng.random(len(p))[:, None]
        return SHAPE((p.cumsum(axis=1) < u).sum(axis=1)), self.law(sums, r)
"""


#: a declared BibTeX entry with an @preamble that would run an input command in pdflatex
HOSTILE_BIB = (
    'reference = "x1"\n    bibtex = r"@preamble{\\input{/etc/hostname}} @misc{x1, title={t}}"\n    '
)


def toy(scale="1.0", shape="lambda a: a", name="toy"):
    src = GOOD.replace("SCALE", scale).replace("SHAPE", f"({shape})")
    return src.replace('name = "toy"', f'name = "{name}"')


def test_a_plugin_algorithm_is_listed_and_named_by_a_config(tmp_path):
    where = fake_plugin(
        tmp_path / "p", "toy-dist", "toy_plugin", toy(), {ALG: {"toy": "toy_plugin:Toy"}}
    )
    out = run_cli("list", plugins=[where])
    assert out.returncode == 0, out.stderr
    assert any(line.split()[:1] == ["toy"] for line in out.stdout.splitlines())
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "experiments:\n  - {name: horizon, algorithms: [rps, toy], K: [3], gap: [0.25],"
        " epsilon: [1.0], horizon: [63]}\n"
    )
    out = run_cli("check-config", str(cfg), plugins=[where])
    assert out.returncode == 0, out.stderr
    line = next(ln for ln in out.stdout.splitlines() if ln.split()[:1] == ["toy"])
    assert "monte carlo" in line and "declares no exact selection law" in line
    # without the plugin, the same config names an unknown algorithm
    out = run_cli("check-config", str(cfg))
    assert out.returncode == 2 and "toy" in out.stderr and out.stderr.count("\n") == 1


@pytest.mark.parametrize(
    "source,ep,problem",
    [
        (toy(scale="0.5"), "toy", "do not sum to one"),
        (toy(shape="lambda a: a[:2]"), "toy", "select returned"),
        (toy(name="rps"), "rps", "already registered"),
        (toy(name="other"), "toy", "is not the entry point's"),
        ("raise RuntimeError('boom')\n", "toy", "cannot be loaded (RuntimeError: boom)"),
        # an exception of the plugin's own code while the probe runs it: one line too
        (toy(scale="(1 // 0)"), "toy", "raised ZeroDivisionError in the contract's probe"),
        # a BibTeX entry that would run TeX is refused by the parse (an @preamble beside it)
        (toy().replace("source = ", HOSTILE_BIB + "source = "), "toy", "and nothing else"),
    ],
    ids=["law-not-one", "wrong-shape", "clash", "misnamed", "import-error", "probe-raises", "bib"],
)
def test_a_contract_breaking_algorithm_is_refused_in_one_line_naming_it(
    tmp_path, source, ep, problem
):
    where = fake_plugin(
        tmp_path / "p", "bad-dist", "bad_plugin", source, {ALG: {ep: "bad_plugin:Toy"}}
    )
    out = run_cli("list", plugins=[where])
    assert out.returncode == 2, out.stdout
    assert out.stderr.count("\n") == 1, out.stderr
    assert f"plugin privdtol.algorithms '{ep}' (bad_plugin:Toy, from bad-dist)" in out.stderr
    assert problem in out.stderr, out.stderr


MODEL = """
import numpy as np
from privdtol.environments import LossModel

class Flip(LossModel):
    name = "flip"
    def sample_rounds(self, rng, n_runs, start, n_rounds):
        return SCALE * (rng.random((n_runs, n_rounds, self.K)) < self.means).astype(float)
"""


def test_a_plugin_loss_model_is_registered_and_a_broken_one_refused(tmp_path):
    good = fake_plugin(
        tmp_path / "g",
        "flip-dist",
        "flip_model",
        MODEL.replace("SCALE", "1.0"),
        {ENV: {"flip": "flip_model:Flip"}},
    )
    out = run_cli("list", plugins=[good])
    assert out.returncode == 0 and "  flip " in out.stdout, out.stderr
    bad = fake_plugin(
        tmp_path / "b",
        "flip-dist",
        "flip_model",
        MODEL.replace("SCALE", "2.0"),
        {ENV: {"flip": "flip_model:Flip"}},
    )
    out = run_cli("list", plugins=[bad])
    assert out.returncode == 2 and out.stderr.count("\n") == 1, out.stderr
    assert "plugin privdtol.environments 'flip'" in out.stderr and "in [0, 1]" in out.stderr
