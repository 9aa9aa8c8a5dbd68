"""`negtui case`: a case's printed materials (`sheets`: a role sheet per seat and the teaching note)."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from negtui.cli.common import RulesOpt, information_of, locate, negotiation
from negtui.cli.errors import user_errors
from negtui.cli.root import app

case_app = typer.Typer(no_args_is_help=True, help="A case's printed materials: role sheets and the teaching note.")
app.add_typer(case_app, name="case")


@case_app.command()
def sheets(
    scenario: Annotated[Path, typer.Argument(help="Scenario file, scoresheet or bundled name.")],
    output: Annotated[Path, typer.Option("-o", "--output", help="Folder to write the pages into (made if missing).")],
    pdf: Annotated[bool, typer.Option("--pdf", help="Print each page to PDF too, with a headless chromium (where "
                                                    "none is installed, the HTML pages are written alone).")] = False,
    information: Annotated[str, typer.Option("--information", help=(
        "How the teaching note's lens bots play: private (each knows its own values and the published ranges, "
        "as a confidential role-play is played) or public (every value known). A role sheet always holds what "
        "its seat knows under private information."))] = "private",
    rules: RulesOpt = "paper",
    force: Annotated[bool, typer.Option("--force", help="Write into a folder that is not empty (files of the same "
                                                        "names are replaced).")] = False,
) -> None:
    """Role sheets to hand out, one page per role, and the teaching note.

    A role's page holds that role's confidential instructions and values (what its seat knows under private
    information, nothing of the others'); the teaching note holds every role, the welfare optimum, the
    No-Negotiation baseline, the exact solution where the game is small enough and the game each lens bot
    plays in every seat; index.html links them. A scoresheet's pages read in its own terms: issues, options,
    points and reservation values."""
    from negtui.cases.note import teaching_note
    from negtui.cases.pages import ready, write_pages
    from negtui.cases.roles import role_sheet
    from negtui.cases.terms import check_size
    from negtui.engine.knowledge import seat_sheet
    from negtui.scenario.io import load_case

    with user_errors():
        case = load_case(locate(scenario))
        check_size(case.scenario, case.sheet is not None)
        playing = information_of(information)
        neg = negotiation(case.scenario, rules)
        ready(output, force)  # before the work of the teaching note: a folder in the way is said at once
        ids = neg.game.player_ids
        roles = [role_sheet(neg, i, None if case.sheet is None or case.points is None
                            else seat_sheet(case.sheet, case.points, pid)) for i, pid in enumerate(ids)]
        note = teaching_note(neg, playing, case.sheet, case.points)
        done = write_pages(output, roles, note, pdf)
    typer.echo(f"wrote {done.index}: {len(done.roles)} role sheet{'s' * (len(done.roles) != 1)} and the teaching "
               f"note{', each with its PDF' if done.pdfs else ''}")
    if done.pdf_note:
        typer.echo(f"note: no PDF written: {done.pdf_note}", err=True)
