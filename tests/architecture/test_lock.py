"""The lock (requirements.lock, `make lock`) is what a fresh machine installs, so it must be in step with
pyproject.toml: every package pyproject names, the extras' included, pinned at a version its range allows and
with the hashes pip checks; Textual and Rich, whose output the snapshots and FitTable are tested cell for cell
against, pinned exactly in pyproject itself; and `make` installing from the lock."""

from __future__ import annotations

import re
import subprocess
import tomllib

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from tests.paths import ROOT

PIN = re.compile(r"^([A-Za-z0-9][A-Za-z0-9._-]*)==([^\s;\\]+)")


def locked(text: str) -> dict[str, list[tuple[str, int]]]:
    """Package -> [(version, hashes)] of a requirements file as `make lock` writes it (a package may be pinned
    once per Python version, each line with its marker)."""
    out: dict[str, list[tuple[str, int]]] = {}
    name = None
    for line in text.splitlines():
        if m := PIN.match(line):
            name = canonicalize_name(m.group(1))
            out.setdefault(name, []).append((m.group(2), 0))
        elif name is not None and line.strip().startswith("--hash=sha256:"):
            version, hashes = out[name][-1]
            out[name][-1] = (version, hashes + 1)
    return out


def out_of_step(pyproject: dict, lock: dict[str, list[tuple[str, int]]]) -> list[str]:
    """What of pyproject's dependencies the lock lacks, pins outside their range or pins with no hash."""
    project = pyproject["project"]
    wanted = [Requirement(r) for r in project["dependencies"]]
    wanted += [Requirement(r) for extra in project.get("optional-dependencies", {}).values() for r in extra]
    problems = []
    for req in wanted:
        name = canonicalize_name(req.name)
        if name == canonicalize_name(project.get("name", "negtui")):
            continue  # an extra naming another of negtui's own (test takes negtui[docs]): its packages are listed
        if name not in lock:
            problems.append(f"{req.name}: not in the lock")
            continue
        for version, hashes in lock[name]:
            if not req.specifier.contains(version, prereleases=True):
                problems.append(f"{req.name}: the lock has {version}, pyproject asks {req.specifier}")
            if not hashes:
                problems.append(f"{req.name}: no hash in the lock")
    return problems


def test_the_lock_pins_every_dependency_pyproject_names_within_its_range() -> None:
    pyproject = tomllib.loads((ROOT / "pyproject.toml").read_text())
    lock = locked((ROOT / "requirements.lock").read_text())
    problems = out_of_step(pyproject, lock)
    assert not problems, "requirements.lock is out of step with pyproject.toml (run `make lock`):\n  " + "\n  ".join(
        problems)


def test_a_lock_out_of_step_is_caught() -> None:
    pyproject = {"project": {"dependencies": ["rich==15.0.0", "numpy>=1.26,<3"],
                             "optional-dependencies": {"test": ["pytest>=8"]}}}
    lock = locked("rich==14.1.0 \\\n    --hash=sha256:ab\n    # via negtui\n"
                  "numpy==2.3.0 ; python_full_version < '3.12' \\\n    --hash=sha256:cd\n"
                  "numpy==3.0.0 ; python_full_version >= '3.12' \\\n    --hash=sha256:ef\n")
    assert out_of_step(pyproject, lock) == ["rich: the lock has 14.1.0, pyproject asks ==15.0.0",
                                            "numpy: the lock has 3.0.0, pyproject asks <3,>=1.26",
                                            "pytest: not in the lock"]


@pytest.mark.parametrize("package", ["textual", "rich"])
def test_the_packages_drawn_cell_for_cell_are_pinned_exactly(package: str) -> None:
    dependencies = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    req = next(Requirement(r) for r in dependencies if canonicalize_name(Requirement(r).name) == package)
    assert [s.operator for s in req.specifier] == ["=="], f"{package} is pinned with == in pyproject.toml"


def test_make_installs_the_lock_then_negtui_without_resolving_again() -> None:
    dry = subprocess.run(["make", "-n", "-B", ".venv/.installed"], cwd=ROOT, capture_output=True, text=True,
                         timeout=30, check=True).stdout
    installs = [line for line in dry.splitlines() if "pip install" in line and "--upgrade pip" not in line]
    assert installs == [".venv/bin/python -m pip install --quiet -r requirements.lock",
                        ".venv/bin/python -m pip install --quiet --no-deps -e ."], dry
