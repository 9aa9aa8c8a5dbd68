"""Pages printed to PDF by a headless chromium (Debian's `chromium`), where one is installed: the same page a
trainer would print from a browser, A4 as its style asks, without the browser's header and footer.  Each
print is bounded in time, and the browser's processes end with it."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import tempfile
from pathlib import Path

from negtui.scenario.io import WriteError
from negtui.scenario.untrusted import one_line

BROWSER = "chromium"
SECONDS = 120.0  # one page's print, start-up included
NEEDS = (f"PDFs are printed by a headless {BROWSER}, and there is none on PATH (Debian: apt-get install "
         f"{BROWSER}); the HTML pages print from any browser")


def browser() -> str | None:
    return shutil.which(BROWSER)


def print_pdf(program: str, page: Path, out: Path) -> None:
    """`page` printed to `out`; WriteError where the browser writes nothing (in time)."""
    with tempfile.TemporaryDirectory(prefix="negtui-pdf-") as profile:
        args = [program, "--headless", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
                "--no-first-run", "--disable-sync", f"--user-data-dir={profile}", "--no-pdf-header-footer",
                f"--print-to-pdf={out}", page.resolve().as_uri()]
        if os.geteuid() == 0:  # chromium will not start as root in its sandbox; the page is our own, script-free
            args.insert(2, "--no-sandbox")
        child = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                                 text=True, errors="replace", start_new_session=True)
        try:
            _, said = child.communicate(timeout=SECONDS)
        except subprocess.TimeoutExpired:
            said = f"no PDF after {SECONDS:g} s"
        finally:
            _end(child)
    if not out.is_file() or out.stat().st_size == 0:
        raise WriteError(f"{BROWSER} wrote no PDF of {page.name} (exit {child.returncode}): "
                         f"{one_line(said[-600:], 600)}")


def _end(child: subprocess.Popen[str]) -> None:
    """The browser and whatever it started (a zygote, a GPU process) ended."""
    try:
        os.killpg(child.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass
    child.wait()
