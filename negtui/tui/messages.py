"""Messages that slow work posts back to the screens: an agent's decision, a welfare solve.

Workers never touch widgets: they post one of these and the screen decides what to do with it."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from textual.message import Message

from negtui.coach.assess import Assessment
from negtui.engine.turns import Move
from negtui.welfare import WelfareJob, WelfareResult

if TYPE_CHECKING:
    from negtui.play.live import LiveGame


@dataclass
class AgentDecided(Message):
    """Agents decided (in a worker): a move, and the answer to it when an agent answers; the screen
    submits them if the game is still where they were decided."""

    moves: list[Move]


@dataclass
class AgentFailed(Message):
    """An agent could not decide because of an error on our side (a bot process that died, a bug)."""

    text: str


@dataclass
class Coached(Message):
    """A person's decisions assessed (or, `hint`, the decision to come), computed in a worker."""

    assessments: list[Assessment]
    hint: bool = False


@dataclass
class WelfareSolved(Message):
    """A welfare solve finished; `job` tells a late result of a cancelled solve from the current one."""

    job: WelfareJob | object  # an enumeration in a thread has a token of its own instead of a job
    result: WelfareResult
    seconds: float


@dataclass
class WelfareFailed(Message):
    job: WelfareJob | object
    text: str


@dataclass
class ExactProgress(Message):
    """The exact solution is being solved in the background: turns solved of all (backwards)."""

    done: int
    total: int


@dataclass
class ExactDone(Message):
    """The background exact solve ended: solved, or cancelled (nothing kept)."""

    cancelled: bool = False


@dataclass
class TableLine(Message, bubble=False):
    """A line from the table a game is played at (read in a worker).  Its screen alone reads it: some 70 a
    game per trainee, none of them passed on to the app."""

    line: dict


@dataclass
class Revealed(Message):
    """Everyone's values, sent by the table at the end of a game under private information: the game
    on them (play.LiveGame), its person's decisions assessed."""

    game: LiveGame


@dataclass
class TableLost(Message):
    """The table closed the connection (or could not be read)."""

    why: str
