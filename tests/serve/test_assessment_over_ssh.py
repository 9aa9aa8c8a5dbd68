"""A graded attempt over a real SSH connection: the network dropping mid-game and the trainee coming back keep
one attempt, the game resumed where it stopped and its result filed once; while the first session is still open,
a second one cannot play the same game on; and a trainer's account is reached with a trainer's bound key only."""

from __future__ import annotations

import asyncio
from pathlib import Path

import asyncssh
import pytest
import pytest_asyncio

from negtui.classroom.db import ResultsDB
from negtui.classroom.gradebook import gradebook
from negtui.serve.doors import ServeOptions
from negtui.serve.server import Hub
from negtui.serve.ssh_door import host_key
from tests.serve.test_server import connect, open_terminal
from tests.waiting import wait_for_async

pytestmark = pytest.mark.asyncio

COURSE = """\
name = "graded"
title = "Graded over SSH"

[[exercises]]
id = "exam"
title = "The poison pill, graded"
scenario = "poison-pill"
seat = "B"
bots = "myopic"
mode = "assessment"
attempts = 1
"""


@pytest_asyncio.fixture
async def graded(tmp_path):
    """A server of the graded course with alice's key (apps forked from the fork server); yields (hub, port,
    alice's key)."""
    data, course = tmp_path / "data", tmp_path / "graded.toml"
    course.write_text(COURSE)
    alice = asyncssh.generate_private_key("ssh-ed25519")
    with ResultsDB.open(data) as db:
        db.add_keys("alice", [alice.export_public_key().decode()], create=True)
    db = ResultsDB.open(data)
    hub = Hub(ServeOptions(data, course, port=0, max_sessions=4, idle_timeout=600), db)
    acceptor = await hub.listen(host_key(data))
    yield hub, acceptor.sockets[0].getsockname()[1], alice
    acceptor.close()
    await hub.stop()
    db.close()


def _open_sessions(db: ResultsDB) -> int:
    return int(db.rows("SELECT COUNT(*) FROM sessions WHERE ended IS NULL")[0][0])


async def test_a_drop_mid_assessment_keeps_one_attempt_and_files_the_result_once(graded):
    hub, port, alice = graded
    conn = await connect(port, alice)
    chan, term = await open_terminal(conn, 120, 36)
    await term.wait_for("The poison pill, graded")
    chan.write("\r")
    await term.wait_for("Start (ctrl+s)")
    chan.write("\x13")
    await term.wait_for("Start a graded attempt?")
    chan.write("y")
    await term.wait_for("A offers B a deal")
    chan.write("x")  # reject the bundle: turn 1 is played and recorded
    await term.wait_for("B, choose a partner")
    (game,) = hub.db.unfinished_games("alice")
    conn2 = await connect(port, alice)  # the same trainee, a second terminal, while the first plays on:
    chan2, term2 = await open_terminal(conn2, 120, 36)  # the first session ends, its game kept
    await asyncio.wait_for(term.closed.wait(), 20)
    assert "you opened negtui again elsewhere" in term.shown()
    await term2.wait_for("resume")
    chan2.write("\r")  # the game the first session held resumes at once, where it stopped
    await term2.wait_for("B, choose a partner")
    conn.close()
    conn2.abort()  # the network goes away mid-game
    await wait_for_async(lambda: _open_sessions(hub.db) == 0, "both sessions to end",
                         seen=lambda: _open_sessions(hub.db))
    assert [g.id for g in hub.db.unfinished_games("alice")] == [game.id]
    assert hub.db.grades.attempts("alice", "graded", "exam", every_start=True) == 1
    async with connect(port, alice) as conn:
        chan, term = await open_terminal(conn, 120, 36)
        await term.wait_for("resume")
        chan.write("\r")  # the game to resume is listed first
        await term.wait_for("B, choose a partner")  # where it stopped
        term.output = ""
        chan.write("x")  # B passes: the game is over
        await term.wait_for("score:", timeout=60)
        chan.write("\x1b")  # the debrief closes: back to the lobby
        await term.wait_for("1 play of 1", words=True)
        term.output = ""
        chan.write("\r")  # the exercise itself: no attempt left
        await term.wait_for("no plays of", words=True)
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
    (row,) = hub.db.games("graded", "exam")
    assert row.id == game.id and row.status == "finished"
    assert hub.db.grades.attempts("alice", "graded", "exam", every_start=True) == 1
    (results,) = hub.db.results("graded")
    assert results["attempt"] == 1 and results["decisions"] > 0
    from negtui.classroom.course_loading import load_course

    (grades,) = gradebook(hub.db, load_course(Path(hub.options.course)).course)
    assert grades["attempts_used"] == 1 and grades["finished"] == 1 and grades["abandoned"] == 0


async def test_a_trainers_console_opens_for_a_trainers_bound_key_only(graded, tmp_path):
    """A trainer's account with an invite pending lets an unknown key in to enrol it: that login must prove
    the code before anything, and never opens the console; a trainee's own key is no trainer's."""
    hub, port, alice = graded
    trainer = asyncssh.generate_private_key("ssh-ed25519")
    hub.db.add_keys("teacher", [trainer.export_public_key().decode()], create=True)
    hub.db.classroom.set_trainer("teacher")
    hub.db.invite("teacher")  # e.g. for the trainer's second machine
    with pytest.raises(asyncssh.PermissionDenied):  # alice's key is bound to alice: no invite lets it in
        await connect(port, alice, username="teacher")
    stranger = asyncssh.generate_private_key("ssh-ed25519")
    async with connect(port, stranger, username="teacher") as conn:
        chan, term = await open_terminal(conn, 120, 36)
        await term.wait_for("enrolment code", words=True)
        assert "the trainer's console" not in term.shown()
        chan.write("\x1b")  # no code: out
        await asyncio.wait_for(term.closed.wait(), 20)
    async with connect(port, trainer, username="teacher") as conn:
        chan, term = await open_terminal(conn, 120, 36)
        await term.wait_for("the trainer's console", words=True)
        assert "enrolment code" not in term.shown()
        chan.write("q")
        await asyncio.wait_for(term.closed.wait(), 20)
