"""The README and the documentation site: the README stays a front page (10 KB at most), every relative link
of it and of the pages resolves, the site builds under `mkdocs build --strict` with the reference pages
generated from the code, and the version the changelog releases last is the one installed."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
FENCE = re.compile(r"^(```|~~~).*?^\1", re.M | re.S)


def _reference_hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location("docs_reference", ROOT / "scripts" / "docs_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def broken_links(page: Path, generated: set[Path]) -> list[str]:
    """The relative links of a Markdown page (code blocks left out) whose target is neither a file nor a page
    the site generates."""
    text = FENCE.sub("", page.read_text(encoding="utf-8"))
    text = re.sub(r"`[^`\n]*`", "", text)  # a link written as code is not a link
    bad = []
    for target in LINK.findall(text):
        if re.match(r"[a-z][a-z0-9+.-]*:", target) or target.startswith("#"):
            continue  # another site, a mail address, or a place on the same page
        path = (page.parent / target.split("#", 1)[0]).resolve()
        if not path.exists() and path not in generated:
            bad.append(target)
    return bad


def test_the_readme_is_a_front_page() -> None:
    readme = ROOT / "README.md"
    assert readme.stat().st_size <= 10 * 1024, f"README.md is {readme.stat().st_size} bytes: move detail to docs/"
    text = readme.read_text(encoding="utf-8")
    for told in ("make play", "make test", "Python ≥ 3.11", "docs/images/negtui.svg", "docs/getting-started.md"):
        assert told in text


def test_every_relative_link_resolves() -> None:
    generated = {(DOCS / uri).resolve() for uri in _reference_hook().PAGES}
    pages = [ROOT / "README.md", ROOT / "CHANGELOG.md", *sorted(DOCS.rglob("*.md"))]
    bad = {str(p.relative_to(ROOT)): links for p in pages if (links := broken_links(p, generated))}
    assert not bad


def test_a_broken_link_is_found(tmp_path: Path) -> None:
    (tmp_path / "there.md").write_text("x")
    page = tmp_path / "page.md"
    page.write_text("[ok](there.md#a) [gone](missing.md) ![pic](img/none.svg) [web](https://example.org)\n"
                    "`[code](nowhere.md)`\n```\n[fenced](nowhere.md)\n```\n")
    assert broken_links(page, set()) == ["missing.md", "img/none.svg"]


def test_every_existing_page_is_in_the_navigation() -> None:
    nav = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    pages = {p.relative_to(DOCS).as_posix() for p in DOCS.glob("*.md")}
    assert not {p for p in pages if f": {p}" not in nav}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("site")
    done = subprocess.run([sys.executable, "-m", "mkdocs", "build", "--strict", "-q", "-d", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120, env={"NO_MKDOCS_2_WARNING": "1",
                                                                             "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr[-4000:]
    return out


def test_the_site_builds_strict_with_every_page(site: Path) -> None:
    for page in ("index", "getting-started/index", "training/index", "performance/index", "changelog/index"):
        assert (site / f"{page}.html").is_file(), page
    changelog = (site / "changelog" / "index.html").read_text(encoding="utf-8")
    assert "Unreleased" in changelog and "0.1.0" in changelog  # the CHANGELOG itself, included


def test_the_cli_reference_names_every_command_and_option(site: Path) -> None:
    from negtui.cli.commands import MODULES

    page = (site / "reference" / "cli" / "index.html").read_text(encoding="utf-8")
    for command in MODULES:
        assert f"negtui {command}" in page, command
    for option in ("--version", "--seat", "--decision-time", "--web-url", "--gradebook", "--seed-start"):
        assert option in page, option


def test_the_file_references_come_from_the_models(site: Path) -> None:
    from negtui.agents.wire import protocol_schema
    from negtui.classroom.course import Exercise
    from negtui.scenario.model import Scenario
    from negtui.scenario.scoresheets.model import Party

    reference = site / "reference"
    scenario = (reference / "scenario" / "index.html").read_text(encoding="utf-8")
    course = (reference / "course" / "index.html").read_text(encoding="utf-8")
    protocol = (reference / "agent-protocol" / "index.html").read_text(encoding="utf-8")
    sheet = (reference / "scoresheet" / "index.html").read_text(encoding="utf-8")
    assert all(f"<code>{field}</code>" in scenario for field in Scenario.model_fields)
    assert all(f"<code>{field}</code>" in course for field in Exercise.model_fields)
    assert Exercise.model_fields["decision_time"].description.split(";")[0] in course
    assert all(name in protocol for name in protocol_schema()["$defs"])
    assert all(f"<code>{field}</code>" in sheet for field in Party.model_fields)


def _released() -> list[tuple[str, str]]:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    return re.findall(r"^## \[(\d+\.\d+\.\d+)\] - (\d{4}-\d{2}-\d{2})$", text, re.M)


def test_the_changelog_is_versioned() -> None:
    text = (ROOT / "CHANGELOG.md").read_text(encoding="utf-8")
    headings = re.findall(r"^## .*$", text, re.M)
    assert headings[0] == "## Unreleased"
    released = _released()
    assert len(released) == len(headings) - 1, "every section after Unreleased is a version and its date"
    versions = [tuple(int(n) for n in v.split(".")) for v, _ in released]
    assert versions == sorted(versions, reverse=True) and len(set(versions)) == len(versions)
    assert [d for _, d in released] == sorted((d for _, d in released), reverse=True)


def test_the_version_is_the_newest_released_one(cli) -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["version"]
    assert project == _released()[0][0]
    result = cli("--version")
    assert result.exit_code == 0
    assert result.stdout.strip() == f"negtui {project}"
