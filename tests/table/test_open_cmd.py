"""`negtui table open` as a trainer runs it: a bad option exits 2 and names it; a private table sends a
person the game as their seat knows it."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from pathlib import Path

from negtui.table.client import TableClient
from negtui.table.source import TableSource
from negtui.table.views import TableView
from negtui.tui.widgets.table_pane import waiting_words
from tests.secrets import leaks, write_secret_scenario
from tests.table.conftest import listening


def test_table_open_refuses_an_unknown_information(cli, tmp_path: Path) -> None:
    scenario = write_secret_scenario(tmp_path / "secret.json")
    res = cli("table", "open", str(scenario), "--seat", "A=human", "--information", "secret",
              "--data-dir", str(tmp_path))
    assert res.exit_code == 2 and "--information is public or private, not 'secret'" in res.output


def test_a_private_table_opened_from_the_command_line_hides_the_others_values(tmp_path: Path) -> None:
    scenario = write_secret_scenario(tmp_path / "secret.json")
    sock = tmp_path / "t.sock"
    proc = subprocess.Popen([sys.executable, "-m", "negtui.cli", "table", "open", str(scenario), "--seat", "A=human",
                             "--seat", "B=human", "--information", "private", "--socket", str(sock),
                             "--data-dir", str(tmp_path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        deadline = time.monotonic() + 60
        while not listening(sock):
            if proc.poll() is not None:
                raise AssertionError(f"`negtui table open` exited ({proc.returncode}): {proc.communicate()[1]}")
            assert time.monotonic() < deadline, f"`negtui table open` never listened at {sock}"
            time.sleep(0.05)
        client = TableClient(sock)
        client.send({"type": "join", "name": "alice"})
        welcome = client.receive(30)
        assert welcome is not None and welcome["information"] == "private" and welcome["you"] == "A"
        assert leaks(json.dumps(welcome)) == []
        # no trainer at a table opened here: the pane says what it waits for without one
        source = TableSource(client, welcome)
        assert source.view.trainer is False and not source.view.starts_anyway
        assert waiting_words(source.view) == "waiting for every person's seat to be taken"
        source.close()
    finally:
        proc.send_signal(signal.SIGINT)
        proc.communicate(timeout=60)


def test_table_open_says_which_lens_its_bots_play_and_why(tmp_path: Path) -> None:
    """The bots of a table play the lens that suits the game's payoff regime, as in `play` and `autoplay`:
    the terminal that opens it says which (coalition-trap balances: myopic), unless every seat is given."""

    def opening(*seats: str) -> list[str]:
        sock = tmp_path / f"t{len(seats)}.sock"
        args = [sys.executable, "-m", "negtui.cli", "table", "open", "coalition-trap", "--socket", str(sock),
                "--data-dir", str(tmp_path), "--no-record", *(a for s in seats for a in ("--seat", s))]
        proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        lines: list[str] = []
        try:
            assert proc.stdout is not None
            for line in proc.stdout:  # the table prints how to join once its seats are settled
                lines.append(line)
                if line.startswith("join with:"):
                    break
            assert lines and lines[-1].startswith("join with:"), (lines, proc.stderr and proc.stderr.read())
        finally:
            proc.send_signal(signal.SIGINT)
            proc.communicate(timeout=60)
        return lines

    said = "".join(opening("A=human", "B=human"))
    assert "bots play myopic unless told otherwise: positive and negative goals balance" in said
    assert "bots play" not in "".join(opening("A=human", "B=human", "C=upper"))


def test_table_join_takes_data_dir_and_finds_a_table_there_by_its_file_name(cli, person, tmp_path: Path) -> None:
    """Every command takes --data-dir; `table join`'s is where a socket named by its file name alone is looked
    for (the data directory's tables/ folder, where `table open --data-dir` puts it): the table is reached
    there (and, its seats taken, says so), and a name found nowhere is an error naming the folder."""
    from negtui.table.host import TableHost
    from tests.table.conftest import Running, table_spec

    folder = tmp_path / "tables"
    folder.mkdir()
    table = Running(TableHost(table_spec(tmp_path), folder / "mine.sock"), folder / "mine.sock")
    try:
        for name in ("alice", "bob"):  # every person's seat taken: the table answers zoe and lets her go
            person(folder / "mine.sock", name).expect("welcome")
        res = cli("table", "join", "mine", "--name", "zoe", "--data-dir", tmp_path)
        assert res.exit_code == 2, res.output
        assert f"error: {folder / 'mine.sock'}: the table did not let you in" in res.output  # found, and it answered
    finally:
        table.stop()
    res = cli("table", "join", "other.sock", "--name", "zoe", "--data-dir", tmp_path)
    assert res.exit_code == 2 and f"error: other.sock: no table of this name here or in {folder}" in res.output


def test_the_table_pane_names_a_trainer_only_at_a_courses_table() -> None:
    """A course's table waits for its people or its trainer; one opened with `negtui table open` has no
    trainer: it waits for its people, or for the start time its host set, and says who can do what."""
    course, plain = TableView("t", "A"), TableView("t", "A", trainer=False)
    assert "the trainer to start" in waiting_words(course)
    assert "trainer" not in waiting_words(plain)
    timed = waiting_words(TableView("t", "A", trainer=False, starts_anyway=True))
    assert "trainer" not in timed and "whoever opened the table" in timed and "bots take the empty seats" in timed
