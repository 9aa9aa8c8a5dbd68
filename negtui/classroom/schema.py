"""The results database's schema: `MIGRATIONS[k]` brings a file from version k to k+1 (the version is
kept in `PRAGMA user_version`); a new version is a new script at the end, never an edit of an old one."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE trainees (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, created TEXT NOT NULL);
    CREATE TABLE keys (
        id INTEGER PRIMARY KEY, trainee_id INTEGER NOT NULL REFERENCES trainees(id) ON DELETE CASCADE,
        fingerprint TEXT NOT NULL UNIQUE, key TEXT NOT NULL, comment TEXT NOT NULL DEFAULT '', added TEXT NOT NULL);
    CREATE INDEX keys_trainee ON keys(trainee_id);
    CREATE TABLE invites (
        id INTEGER PRIMARY KEY, trainee_id INTEGER NOT NULL REFERENCES trainees(id) ON DELETE CASCADE,
        code_hash BLOB NOT NULL, salt BLOB NOT NULL, expires TEXT NOT NULL, used TEXT);
    CREATE INDEX invites_trainee ON invites(trainee_id);
    CREATE TABLE sessions (
        id INTEGER PRIMARY KEY, trainee_id INTEGER NOT NULL REFERENCES trainees(id) ON DELETE CASCADE,
        peer TEXT NOT NULL, key_fingerprint TEXT NOT NULL, started TEXT NOT NULL, ended TEXT, end_reason TEXT);
    CREATE INDEX sessions_trainee ON sessions(trainee_id);
    CREATE TABLE games (
        id INTEGER PRIMARY KEY, trainee_id INTEGER NOT NULL REFERENCES trainees(id),
        session_id INTEGER REFERENCES sessions(id) ON DELETE SET NULL,
        course TEXT NOT NULL, exercise TEXT NOT NULL, scenario TEXT NOT NULL, scenario_digest TEXT NOT NULL,
        seat TEXT NOT NULL, record_path TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'playing' CHECK (status IN ('playing', 'finished', 'abandoned')),
        started TEXT NOT NULL, finished TEXT, duration REAL, payoff REAL, payoffs TEXT, baseline REAL,
        counterfactuals TEXT, welfare_optimum REAL, efficiency REAL);
    CREATE INDEX games_trainee ON games(trainee_id, started);
    CREATE INDEX games_exercise ON games(course, exercise, status);
    CREATE INDEX games_session ON games(session_id);
    CREATE TABLE decisions (
        id INTEGER PRIMARY KEY, game_id INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,
        turn INTEGER NOT NULL, phase TEXT NOT NULL CHECK (phase IN ('propose', 'respond')),
        choice TEXT NOT NULL, cost REAL NOT NULL, numbers TEXT NOT NULL);
    CREATE INDEX decisions_game ON decisions(game_id, turn);
    """,
    """
    CREATE TABLE tables (
        id INTEGER PRIMARY KEY, course TEXT NOT NULL, exercise TEXT NOT NULL, socket TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'forming' CHECK (status IN ('forming', 'playing', 'over', 'closed')),
        opened TEXT NOT NULL, started TEXT, ended TEXT, end_reason TEXT, people TEXT NOT NULL DEFAULT '[]',
        turn INTEGER NOT NULL DEFAULT 0, record_path TEXT);
    CREATE INDEX tables_exercise ON tables(course, exercise, status);
    ALTER TABLE games ADD COLUMN table_id INTEGER REFERENCES tables(id);
    CREATE INDEX games_table ON games(table_id);
    """,
    """
    ALTER TABLE trainees ADD COLUMN trainer INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE sessions ADD COLUMN place TEXT;
    ALTER TABLE tables ADD COLUMN payoffs TEXT;
    ALTER TABLE tables ADD COLUMN baseline TEXT;
    ALTER TABLE tables ADD COLUMN turns INTEGER;
    ALTER TABLE tables ADD COLUMN paused INTEGER NOT NULL DEFAULT 0;
    CREATE TABLE notices (id INTEGER PRIMARY KEY, sent TEXT NOT NULL, text TEXT NOT NULL);
    """,
    """
    ALTER TABLE tables ADD COLUMN round_left REAL;
    ALTER TABLE tables ADD COLUMN round_ends TEXT;
    CREATE TABLE table_requests (
        id INTEGER PRIMARY KEY, course TEXT NOT NULL, exercise TEXT NOT NULL, reserved TEXT NOT NULL DEFAULT '{}',
        requested_by TEXT NOT NULL, requested TEXT NOT NULL,
        status TEXT NOT NULL DEFAULT 'waiting' CHECK (status IN ('waiting', 'opened', 'refused')),
        table_id INTEGER REFERENCES tables(id), why TEXT);
    CREATE INDEX table_requests_waiting ON table_requests(status);
    CREATE TABLE releases (course TEXT NOT NULL, exercise TEXT NOT NULL, released TEXT NOT NULL,
                           PRIMARY KEY (course, exercise));
    """,
    # a game's mode, the seat's payoff at the welfare optimum, the seat's own efficiency beside the table's
    # (`efficiency` held the table's until now: moved), turns a bot played for the person; time-outs
    """
    ALTER TABLE games ADD COLUMN mode TEXT CHECK (mode IN ('practice', 'assessment'));
    ALTER TABLE games ADD COLUMN seat_optimum REAL;
    ALTER TABLE games ADD COLUMN table_efficiency REAL;
    ALTER TABLE games ADD COLUMN bot_turns INTEGER;
    UPDATE games SET table_efficiency = efficiency, efficiency = NULL WHERE efficiency IS NOT NULL;
    ALTER TABLE decisions ADD COLUMN timed_out INTEGER NOT NULL DEFAULT 0;
    """,
    # the role (seat) each trainee has been shown of an exercise whose roles are confidential: the others' stay
    # closed to them
    """
    CREATE TABLE roles_shown (
        trainee_id INTEGER NOT NULL REFERENCES trainees(id) ON DELETE CASCADE, course TEXT NOT NULL,
        exercise TEXT NOT NULL, seat TEXT NOT NULL, table_id INTEGER REFERENCES tables(id), shown TEXT NOT NULL,
        PRIMARY KEY (trainee_id, course, exercise));
    CREATE INDEX games_trainee_exercise ON games(trainee_id, course, exercise, status);
    """,
    # each trainee's student id, the registrar's key for them in the gradebook (none until the trainer gives one;
    # two trainees never share one)
    """
    ALTER TABLE trainees ADD COLUMN student_id TEXT;
    CREATE UNIQUE INDEX trainees_student_id ON trainees(student_id) WHERE student_id IS NOT NULL;
    """,
    # how a table's game ended: played to its last turn, or as it stood when the round's clock ran out or the
    # trainer called time (NULL: not over, or filed before negtui kept it)
    """
    ALTER TABLE tables ADD COLUMN ending TEXT CHECK (ending IN ('turns', 'clock', 'trainer'));
    """,
    # a table's own name (a roster's: north, south), asked for with the table and kept with it
    """
    ALTER TABLE tables ADD COLUMN name TEXT;
    ALTER TABLE table_requests ADD COLUMN name TEXT;
    """,
    # whose decision a table's game waits for, and since when (the trainer's live view: who is to move, who has
    # been idle longest)
    """
    ALTER TABLE tables ADD COLUMN deciding TEXT;
    ALTER TABLE tables ADD COLUMN deciding_since TEXT;
    """,
)
SCHEMA_VERSION = len(MIGRATIONS)


def statements(script: str) -> Iterator[str]:
    """A migration script split into statements (executescript would commit the migration's transaction)."""
    buf = ""
    for piece in script.split(";"):
        buf += piece + ";"
        if sqlite3.complete_statement(buf):
            if buf.strip(" \n\t;"):
                yield buf
            buf = ""
