"""The Snakemake profiles where users look for them: ``--profile profiles/<name>`` (relative to
the repository) finds each user profile of ``workflow/profiles/`` (the SLURM one included), the
same files, not a copy that could drift."""

from __future__ import annotations

from support.paths import ROOT

#: the profiles a user names (slurm-test is the CI cluster's override, not a user profile)
USER_PROFILES = ("default", "slurm")


def test_every_user_profile_is_found_under_profiles():
    for name in USER_PROFILES:
        link = ROOT / "profiles" / name
        assert (link / "config.yaml").is_file(), f"--profile profiles/{name} finds no config.yaml"
        target = (ROOT / "workflow" / "profiles" / name).resolve()
        assert link.resolve() == target, f"profiles/{name} is not workflow/profiles/{name}"
