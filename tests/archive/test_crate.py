"""Tests of :mod:`privdtol.archive.crate`: the archive's Workflow Run RO-Crate reads back with
``rocrate`` and lists every output of the run with its sha256 and size."""

from __future__ import annotations

import hashlib
import tarfile

from support.cli import archive_run, committed_run


def test_ro_crate_reads_back_and_lists_every_output_with_its_sha256(tmp_path):
    run = committed_run(tmp_path)
    from rocrate.rocrate import ROCrate

    out = archive_run(run, tmp_path)
    with tarfile.open(out) as tar:
        tar.extractall(tmp_path / "x", filter="data")
    top = tmp_path / "x" / out.name.removesuffix(".tar.gz")
    crate = ROCrate(top)
    assert crate.mainEntity.id == "source/Snakefile"
    assert "ComputationalWorkflow" in crate.mainEntity.type
    assert crate.mainEntity["programmingLanguage"].id.endswith("#snakemake")
    profiles = {e.id for e in crate.root_dataset["conformsTo"]}
    assert {
        "https://w3id.org/ro/wfrun/process/0.5",
        "https://w3id.org/ro/wfrun/workflow/0.5",
    } <= profiles
    assert any(p.startswith("https://w3id.org/workflowhub/workflow-ro-crate/") for p in profiles)
    (action,) = crate.get_by_type("CreateAction")
    assert action["instrument"] is crate.mainEntity
    assert [e.id for e in action["object"]] == ["source/config/smoke.yaml"]
    assert action["startTime"] <= action["endTime"]
    outputs = sorted(p.relative_to(top).as_posix() for p in (top / "run").rglob("*") if p.is_file())
    outputs.remove("run/configfiles.txt")
    assert sorted(e.id for e in action["result"]) == outputs
    files = {e.id: e for e in crate.get_by_type("File")}
    for rel in [*outputs, "source/requirements.lock", "source/config/smoke.yaml"]:
        data = (top / rel).read_bytes()
        assert files[rel]["sha256"] == hashlib.sha256(data).hexdigest(), rel
        assert files[rel]["contentSize"] == str(len(data)), rel
    versions = {
        e["name"].lower(): e["softwareVersion"] for e in crate.mainEntity["softwareRequirements"]
    }
    assert versions["rocrate"] and versions["numpy"] == __import__("numpy").__version__
    assert "cores" in crate.get("#machine")["description"]
