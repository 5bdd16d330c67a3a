"""The methods section's battery and by-algorithm tables, from hand-made records."""

import json

from privdtol.report.latex.known_truths import battery_tex, by_algorithm_tex


def _write(tmp_path, name, data):
    (tmp_path / "checks").mkdir(exist_ok=True)
    (tmp_path / "checks" / f"{name}.json").write_text(json.dumps(data))


def _row(case, claim, truth, verdicts, required=True):
    fail = verdicts.get("FAIL", 0) / sum(verdicts.values())
    ok = fail == 0 if truth else (fail == 1 or not required)
    return {
        "case": case,
        "description": f"{case}: log K/gap",
        "claim": claim,
        "truth": truth,
        "fail_rate": fail,
        "verdicts": verdicts,
        "required": required,
        "as_expected": ok,
    }


def test_the_battery_table_names_cases_sizes_powers_and_misses(tmp_path):
    rows = [
        _row("bounded", "C7", True, {"PASS": 2}),
        _row("log_k", "C7", False, {"FAIL": 2}),
        _row("sqrt_log_k", "C7", False, {"INCONCLUSIVE": 2}, required=False),
        _row("linear_t", "C6", True, {"FAIL": 2}),
    ]
    claims = {"C7": {"size": 0.0, "power": 1.0}, "C6": {"size": 1.0}}
    _write(tmp_path, "battery", {"replicates": 2, "rows": rows, "claims": claims})
    tex = battery_tex(tmp_path)
    assert "1 (case, claim) pairs are not as expected" in tex
    assert r"\texttt{linear\_t}: 2 FAIL\,$\times$" in tex
    assert r"\emph{power only:} \texttt{sqrt\_log\_k}: 2 INCONCLUSIVE" in tex
    assert r"$\log K/\Delta_{\min}$" in tex or r"\log K" in tex  # descriptions typeset


def test_a_missing_battery_is_a_not_run_note(tmp_path):
    assert battery_tex(tmp_path).startswith(r"\NotRun{battery")
    assert by_algorithm_tex(tmp_path).startswith(r"\NotRun{rate claims")


def test_the_by_algorithm_table_has_a_column_per_algorithm(tmp_path):
    rows = [
        {"claim": "C7", "algorithm": "rps", "verdict": "PASS", "statistic": 94.3, "interval": []},
        {"claim": "C7", "algorithm": "rnm_ftnl", "verdict": "PASS", "statistic": 45.4},
        {"claim": "C3", "algorithm": "rps", "verdict": "INCONCLUSIVE", "statistic": None},
    ]
    _write(tmp_path, "by_algorithm", {"claims": ["C3", "C7"], "rows": rows})
    tex = by_algorithm_tex(tmp_path)
    assert r"\texttt{rnm\_ftnl}" in tex and r"PASS (\num{45.4})" in tex
    assert "INCONCLUSIVE &" in tex and "-{}-algorithm" in tex
