"""A case's printed materials written into a folder: `index.html` (for the trainer: what to hand to whom),
one page per role, `teaching-note.html`, and with `pdf` each page printed beside it where a headless chromium
can print it.  The pages are rendered by Jinja2 with autoescape on (the scenario's words are untrusted: a
name holding markup prints as text); they fetch nothing and run no script, and their style is for paper
(A4, page breaks between sections where a table would be cut)."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

from jinja2 import Environment

from negtui import pages
from negtui.cases.note import TeachingNote
from negtui.cases.roles import RoleSheet
from negtui.cases.terms import number, share
from negtui.names import cut
from negtui.scenario.io import WriteError, write_text

INDEX = "index.html"
NOTE = "teaching-note.html"


@dataclass
class Written:
    folder: Path
    index: Path
    roles: list[Path]
    note: Path
    pdfs: list[Path] = field(default_factory=list)
    pdf_note: str = ""  # why no PDF was printed, where one was asked for


def environment() -> Environment:
    return pages.environment("negtui.cases", {"num": number, "share": share, "cut": cut})


def role_file(k: int, name: str) -> str:
    """A role's page, named by its place and its name made safe for any file system ("role-1-buyer.html")."""
    slug = re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")[:40].strip("-")
    return f"role-{k + 1}" + (f"-{slug}" if slug else "") + ".html"


def ready(folder: Path, force: bool) -> None:
    """The folder to write into, made (with its parents) if missing; one that holds anything only with `force`
    (its files of the same names are then replaced, the others kept)."""
    try:
        if folder.exists() and not folder.is_dir():
            raise WriteError(f"cannot write into {folder}: it is a file, not a folder")
        if folder.is_dir() and any(folder.iterdir()) and not force:
            raise FileExistsError(f"{folder} is not empty; pass --force to write into it (files of the same names "
                                  "are replaced, others kept)")
        folder.mkdir(parents=True, exist_ok=True)
    except (WriteError, FileExistsError):
        raise
    except OSError as err:
        raise WriteError(f"cannot write into {folder}: {err.strerror or err}") from None


def write_pages(folder: Path, roles: list[RoleSheet], note: TeachingNote, pdf: bool = False) -> Written:
    """Every page rendered, then written into `folder` (made ready by `ready`); `pdf`: printed too."""
    env = environment()
    names = [role_file(k, r.role) for k, r in enumerate(roles)]
    pages = {name: env.get_template("role.html.j2").render(sheet=r) for name, r in zip(names, roles, strict=True)}
    pages[NOTE] = env.get_template("note.html.j2").render(note=note)
    pages[INDEX] = env.get_template("index.html.j2").render(note=note, roles=list(zip(names, roles, strict=True)),
                                                             note_file=NOTE, pdf=pdf)
    for name, text in pages.items():
        write_text(text, folder / name, force=True)
    done = Written(folder, folder / INDEX, [folder / n for n in names], folder / NOTE)
    if pdf:
        _print(done, [*names, NOTE])
    return done


def _print(done: Written, names: list[str]) -> None:
    from negtui.cases.pdf import NEEDS, browser, print_pdf

    program = browser()
    if program is None:
        done.pdf_note = NEEDS
        return
    for name in names:
        out = done.folder / Path(name).with_suffix(".pdf")
        print_pdf(program, done.folder / name, out)
        done.pdfs.append(out)
