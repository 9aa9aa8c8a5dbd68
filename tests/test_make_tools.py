"""`make tools` (run by `make test`) installs system packages when run as root: it says what and why before
apt-get runs, and as another user it only names them."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

from tests.paths import ROOT

MAKE = shutil.which("make")
pytestmark = pytest.mark.skipif(MAKE is None, reason="no make")


def stubs(tmp_path: Path, uid: str) -> Path:
    """A PATH with no tmux, ssh or chromium, an `id` saying `uid` and an apt-get that only notes, in
    apt.log, its arguments and what make had said by then."""
    bin_ = tmp_path / "bin"
    bin_.mkdir()
    log, out = tmp_path / "apt.log", tmp_path / "out.txt"
    tr = shutil.which("tr")  # by its path: the PATH below has only the stubs
    said = f'$({tr} "\\n" " " < {out})'
    for name, body in (("id", f"echo {uid}"), ("apt-get", f'echo "APT-GET $* after: {said}" >> {log}')):
        (bin_ / name).write_text(f"#!/bin/sh\n{body}\n")
        (bin_ / name).chmod(0o755)
    return bin_


def make_tools(tmp_path: Path, uid: str) -> tuple[str, list[str]]:
    """What make said, and each apt-get call with what make had said before it."""
    path = stubs(tmp_path, uid)
    with (tmp_path / "out.txt").open("w") as out:
        res = subprocess.run([str(MAKE), "-s", "-C", str(ROOT), "tools"], stdout=out, stderr=subprocess.PIPE,
                             text=True, timeout=30, env={"PATH": str(path)})
    assert res.returncode == 0, res.stderr
    log = tmp_path / "apt.log"
    return (tmp_path / "out.txt").read_text(), log.read_text().splitlines() if log.exists() else []


def test_as_root_it_says_what_it_installs_before_apt_get_runs(tmp_path):
    _, calls = make_tools(tmp_path, "0")
    tmux = next(c for c in calls if c.startswith("APT-GET install") and "tmux openssh-client" in c.split(" after:")[0])
    assert "running as root, so installing tmux openssh-client with apt-get" in tmux.split(" after:")[1]
    chromium = next(c for c in calls if c.startswith("APT-GET install") and "chromium" in c.split(" after:")[0])
    assert "running as root, so installing chromium with apt-get" in chromium.split(" after:")[1]


def test_as_another_user_it_installs_nothing(tmp_path):
    said, calls = make_tools(tmp_path, "1000")
    assert not calls
    assert "please install tmux openssh-client" in said and "please install chromium" in said
