# Notebooks: each notebooks/<name>.py (jupytext percent format) is converted to .ipynb, executed
# with papermill (thresholds from config["checks"]), stripped of timing metadata so reruns diff
# clean, and exported to HTML.  The executed notebook is written under logs/notebooks/ first and
# copied to results/notebooks/ only on success: a notebook that raises fails its rule and leaves
# the partially executed copy in logs/notebooks/<name>.ipynb for debugging.
#
#   snakemake fig_horizon            # one figure, its table(s) and its checks
#   snakemake notebooks_all          # every notebook
#   snakemake --report results/report.html

import os

from privdtol.pipeline.notebooks import papermill_parameters

NB_AGG = config.get("agg_dir", "results/agg")
NB_OUT = "results"
NB_CHECKS = config.get("checks", {})

# name -> agg experiments read, tables written, checks written, check thresholds passed
NOTEBOOKS = {
    "horizon": dict(agg=["horizon", "grid"], tables=["horizon"], checks=["C3"],
                    params=["confidence", "horizon_free_ratio_max", "horizon_free_pair"]),
    "rates": dict(agg=["gap", "epsilon"], tables=["rates"], checks=["C4a", "C4b"],
                  params=["confidence", "slope_range"]),
    "actions": dict(agg=["actions"], tables=["actions"], checks=["C4d"],
                    params=["confidence"]),
    "heatmap": dict(agg=["grid"], tables=["heatmap"], checks=["C4c"],
                    params=["confidence", "ratio_slope_range"]),
    "bounds": dict(agg=["horizon", "gap", "epsilon", "actions", "grid"],
                   tables=["bounds", "constants"], checks=["C2", "constants"],
                   params=["confidence"]),
    "dependent": dict(agg=["dependent"], tables=["dependent"], checks=["C5"],
                      params=["confidence", "slope_range"]),
    "ablations": dict(agg=["ablations"], tables=["ablations"], checks=[],
                      params=["confidence"]),
}
if config.get("privacy"):
    NOTEBOOKS["privacy"] = dict(agg=["privacy"], tables=["privacy"], checks=["C1"], params=[])


for _nb, _spec in NOTEBOOKS.items():

    rule:
        name:
            f"notebook_{_nb}"
        input:
            notebook=f"notebooks/{_nb}.py",
            agg=[f"{NB_AGG}/{e}.parquet" for e in _spec["agg"]],
        output:
            ipynb=f"{NB_OUT}/notebooks/{_nb}.ipynb",
            html=report(f"{NB_OUT}/notebooks/{_nb}.html", caption="../report/notebook.rst",
                        category="Notebooks", labels={"notebook": _nb}),
            pdf=f"{NB_OUT}/figures/{_nb}.pdf",
            png=report(f"{NB_OUT}/figures/{_nb}.png", caption=f"../report/{_nb}.rst",
                       category="Figures", labels={"figure": _nb}),
            tables=[f"{NB_OUT}/tables/{t}.tex" for t in _spec["tables"]],
            checks=[report(f"{NB_OUT}/checks/{c}.json", caption="../report/checks.rst",
                           category="Checks", labels={"claim": c}) for c in _spec["checks"]],
        log:
            txt=f"logs/notebooks/{_nb}.log",
            source=f"logs/notebooks/{_nb}.input.ipynb",
            executed=f"logs/notebooks/{_nb}.ipynb",
        params:
            parameters=papermill_parameters(
                {"agg_dir": NB_AGG, "out_dir": NB_OUT},
                {k: NB_CHECKS[k] for k in _spec["params"] if k in NB_CHECKS},
            ),
            html_dir=lambda wildcards, output: os.path.dirname(output.html),
            name=_nb,
        conda:
            "../envs/privdtol.yaml"
        shell:
            "jupytext --to ipynb --output {log.source:q} {input.notebook:q} > {log.txt:q} 2>&1"
            " && papermill {log.source:q} {log.executed:q} --kernel python3 --no-progress-bar"
            " -y {params.parameters:q} >> {log.txt:q} 2>&1"
            " && python -m privdtol.pipeline.notebooks strip {log.executed:q} >> {log.txt:q} 2>&1"
            " && cp {log.executed:q} {output.ipynb:q}"
            " && jupyter nbconvert --to html --output {params.name:q}"
            " --output-dir {params.html_dir:q} {output.ipynb:q} >> {log.txt:q} 2>&1"

    rule:
        name:
            f"fig_{_nb}"
        localrule: True
        input:
            getattr(rules, f"notebook_{_nb}").output,


rule notebooks_all:
    localrule: True
    input:
        [f"{NB_OUT}/notebooks/{nb}.ipynb" for nb in NOTEBOOKS],
