"""An outside program in a seat, speaking the agent protocol (agents/wire.py) on its standard streams.

The program starts with the game (a missing command is refused at once); the hello and every request
wait at most the seat's timeout for an answer.  Whatever goes wrong (the program exits, answers late,
answers something that is not the protocol, names a partner or a commitment that does not exist)
raises `AgentFault`, which the turn driver plays as a pass or a rejection.  After the program has
exited, its remaining decisions fail at once.  A late answer to an earlier request is skipped by id.
Under simultaneous rules the program is told every turn's outcome (`observe`).
"""

from __future__ import annotations

import collections
import contextlib
import json
import os
import queue
import shlex
import signal
import subprocess
import sys
import threading
import time

from pydantic import ValidationError

from negtui.agents.reaper import spawn
from negtui.agents.wire import (
    PROTOCOL,
    ChoosePartner,
    GameOver,
    Hello,
    MakeOffer,
    Observe,
    OfferAnswer,
    OfferJson,
    OfferOutcome,
    PartnerAnswer,
    Ready,
    Respond,
    RespondAnswer,
)
from negtui.engine.knowledge import seat_negotiation
from negtui.engine.negotiation import Negotiation, State
from negtui.engine.observation import observation, offer_json, outcome_json
from negtui.engine.offers import Offer
from negtui.engine.portable import PortableGame
from negtui.engine.turns import AgentFault, TurnEvent
from negtui.scenario.io import first_problem
from negtui.scenario.untrusted import Untrusted, loads, one_line
from negtui.seats import Seat, SeatError

LEGAL_OFFERS_LISTED = 5_000  # above this many legal offers, a request gives only their number
MAX_LINE = 1 << 20  # an answer longer than this is not an answer
QUEUED = 16  # lines read ahead of the game; then the program's writes wait (at most ~16 * MAX_LINE held)
STDERR_CHUNK = 4096  # characters of stderr read (and kept, for messages) at a time
STDERR_SHOWN = 100_000  # characters of a program's stderr echoed on the command line, in all
_EOF = object()
_TOO_LONG = object()


class StdioAgent:
    def __init__(self, neg: Negotiation, player: int, seat: Seat, echo_stderr: bool = False,
                 information: str = "public"):
        self.neg, self.player, self.seat = neg, player, seat
        self.information = information
        self.label = seat.label
        self.timeout = seat.decision_timeout
        self.echo_stderr = echo_stderr
        self.name = ""
        self._lines: queue.Queue = queue.Queue(maxsize=QUEUED)
        self._stderr_tail: collections.deque[str] = collections.deque(maxlen=20)
        self._ids = 0
        self._ready = False
        self._dead: str | None = None
        self._lock = threading.Lock()
        g = neg.game
        try:
            self._proc = spawn(shlex.split(seat.command or ""), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace", bufsize=1)
        except (OSError, ValueError) as err:
            raise SeatError(f"seat {g.player_ids[player]}: cannot start {seat.command!r}: "
                            f"{err.strerror if isinstance(err, OSError) and err.strerror else err}") from None
        threading.Thread(target=self._read_stdout, daemon=True).start()
        threading.Thread(target=self._read_stderr, daemon=True).start()

    # --- the program's streams --------------------------------------------------------------------------
    def _read_stdout(self) -> None:
        """Owns the program's stdout: queues its lines, then the end of it."""
        stream = self._proc.stdout
        assert stream is not None
        try:
            while line := stream.readline(MAX_LINE + 1):  # a line without end is read a piece at a time
                if len(line) > MAX_LINE:
                    self._lines.put(_TOO_LONG)
                    while line and not line.endswith("\n"):  # the rest of it, dropped
                        line = stream.readline(MAX_LINE + 1)
                else:
                    self._lines.put(line)
        except (OSError, ValueError):
            pass
        stream.close()
        self._lines.put(_EOF)

    def _read_stderr(self) -> None:
        """Owns the program's stderr: keeps its last lines for error messages, and shows them on the
        command line (never in the app, whose screen is drawn on our stderr)."""
        pid, stream = self.neg.game.player_ids[self.player], self._proc.stderr
        assert stream is not None
        shown = 0
        try:
            while piece := stream.readline(STDERR_CHUNK):
                line = one_line(piece, STDERR_CHUNK)  # never the program's escape sequences on our terminal
                self._stderr_tail.append(line)
                if self.echo_stderr and shown <= STDERR_SHOWN:
                    shown += len(line)
                    more = "" if shown <= STDERR_SHOWN else f" … (more not shown: over {STDERR_SHOWN:,} characters)"
                    print(f"[{pid}] {line}{more}", file=sys.stderr, flush=True)
        except (OSError, ValueError):
            pass
        stream.close()

    def _exited(self) -> str:
        try:
            code = self._proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._stop()
            self._dead = "the program closed its output but did not exit: stopped"
            return self._dead
        last = next((x for x in reversed(self._stderr_tail) if x.strip()), "")
        why = f"killed by signal {-code}" if code < 0 else f"status {code}"
        self._dead = f"the program has exited ({why})" + (f": {last.strip()[:200]}" if last else "")
        return self._dead

    def _send(self, message: dict) -> None:
        try:
            stdin = self._proc.stdin
            assert stdin is not None
            stdin.write(json.dumps(message, separators=(",", ":")) + "\n")
            stdin.flush()
        except (BrokenPipeError, OSError, ValueError):
            raise AgentFault(self._exited()) from None

    def _receive(self, want_id: int | None, deadline: float) -> dict:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AgentFault(f"no answer within {self.timeout:g} s")
            try:
                line = self._lines.get(timeout=left)
            except queue.Empty:
                raise AgentFault(f"no answer within {self.timeout:g} s") from None
            if line is _EOF:
                self._lines.put(_EOF)  # every later read sees the end too
                raise AgentFault(self._exited())
            if line is _TOO_LONG:  # no answer can be told from the rest of its output: it decides nothing more
                self._stop()
                self._dead = f"answered a line of over {MAX_LINE:,} characters: stopped"
                raise AgentFault(f"answered a line of over {MAX_LINE:,} characters")
            if not line.strip():
                continue
            try:
                data = loads(line)
            except Untrusted as err:
                raise AgentFault(f"answered {one_line(line, 120)!r}: {one_line(str(err), 160)}") from None
            if not isinstance(data, dict):
                raise AgentFault(f"answered {line.strip()[:120]!r}, not a JSON object")
            if want_id is not None and data.get("id") != want_id:
                if isinstance(data.get("id"), int) and data["id"] < want_id:
                    continue  # the late answer to a request that already timed out
                raise AgentFault(f"answered with id {data.get('id')!r} where {want_id} was asked")
            return data

    def _ask(self, request, answer_model):
        with self._lock:
            if self._dead:
                raise AgentFault(self._dead)
            deadline = time.monotonic() + self.timeout
            if not self._ready:
                self._hello(deadline)
            self._send(request.model_dump(mode="json"))
            data = self._receive(request.id, deadline)
        try:
            return answer_model.model_validate(data)
        except ValidationError as err:
            raise AgentFault(f"answered {request.type} wrongly: {first_problem(err)}") from None

    def _hello(self, deadline: float) -> None:
        g = seat_negotiation(self.neg, self.player, self.information).game  # the values this seat knows
        game = PortableGame.of(g, self.neg.rules)
        self._send(Hello(seat=g.player_ids[self.player], player=self.player, scenario=game.scenario,
                         rules=game.rules, budget=g.budget, timeout=self.timeout,
                         information=self.information).model_dump(mode="json"))
        data = self._receive(None, deadline)
        try:
            self.name = Ready.model_validate(data).name
        except ValidationError:
            raise AgentFault(f"answered the hello with {json.dumps(data)[:120]}, not "
                             f'{{"type": "ready"}} ({PROTOCOL})') from None
        self._ready = True

    def _seen(self, s: State) -> dict:
        """The state as this seat may see it (engine.knowledge)."""
        return observation(self.neg, s, self.player, self.information)

    def _next_id(self) -> int:
        self._ids += 1
        return self._ids

    # --- the agent ------------------------------------------------------------------------------------
    def choose_partner(self, s: State) -> int:
        neg = self.neg
        ids = neg.game.player_ids
        legal = [ids[q] for q in neg.legal_partners(s)]
        ans = self._ask(ChoosePartner(id=self._next_id(), turn=s.t, observation=self._seen(s),
                                      legal_partners=legal), PartnerAnswer)
        if ans.partner not in legal:
            raise AgentFault(f"chose {ans.partner!r}, not one of the legal partners {', '.join(legal)}")
        return ids.index(ans.partner)

    def make_offer(self, s: State, partner: int) -> Offer:
        neg = self.neg
        offers = neg.legal_offers(s, partner)
        listed = [neg.game.pairs_of(o.bits) for o in offers] if len(offers) <= LEGAL_OFFERS_LISTED else None
        ans = self._ask(MakeOffer(id=self._next_id(), turn=s.t, partner=neg.game.player_ids[partner],
                                  observation=self._seen(s), legal_offers=listed,
                                  legal_offers_count=len(offers)), OfferAnswer)
        cells = []
        for pid, action in ans.offer:
            c = neg.game.cell_index.get((pid, action))
            if c is None:
                raise AgentFault(f"offered {pid}.{action}, a commitment the game does not have")
            cells.append(c)
        return neg.offer(s, partner, cells)  # the driver checks it: an illegal offer is played as a pass

    def respond(self, s: State) -> bool:
        neg = self.neg
        assert s.pending is not None
        ans = self._ask(Respond(id=self._next_id(), turn=s.t, offer=OfferJson(**offer_json(neg, s.pending)),
                                observation=self._seen(s)), RespondAnswer)
        return ans.accept

    def observe(self, ev: TurnEvent) -> None:
        """Under simultaneous rules, every offer of the turn just settled and what became of it (no answer; a
        program that cannot be told is found out at its next decision)."""
        if not self.neg.game.simultaneous or self._dead:
            return
        g = self.neg.game
        message = Observe(turn=ev.t, offers=[OfferOutcome(**outcome_json(g, out)) for out in ev.outcomes],
                          observation=self._seen(ev.after))
        with self._lock:
            try:
                if not self._ready:
                    self._hello(time.monotonic() + self.timeout)
                self._send(message.model_dump(mode="json", exclude_none=True))
            except AgentFault:
                pass

    def game_over(self, s: State) -> None:
        if self._dead or not self._ready:
            return
        neg = self.neg
        pay = neg.returns(s)
        try:
            self._send(GameOver(payoffs={pid: float(v) for pid, v in zip(neg.game.player_ids, pay)},
                                observation=observation(neg, s, self.player)).model_dump(mode="json"))  # all revealed
        except AgentFault:
            pass

    def close(self) -> None:
        """Close the program's stdin, give it a moment to finish, then stop it (and anything it started)."""
        proc = self._proc
        try:
            if proc.stdin is not None:
                proc.stdin.close()
        except (OSError, ValueError):
            pass
        try:
            proc.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self._stop()
        with contextlib.suppress(ProcessLookupError, PermissionError):
            os.killpg(proc.pid, signal.SIGKILL)  # what it started and left behind in its group
        with contextlib.suppress(queue.Empty):
            while True:  # a reader waiting for room in the queue sees the end of the stream
                self._lines.get_nowait()

    def _stop(self) -> None:
        """SIGTERM to the program's process group, SIGKILL if it is still there 2 s later."""
        proc = self._proc
        for sig in (signal.SIGTERM, signal.SIGKILL):
            try:
                os.killpg(proc.pid, sig)
            except (ProcessLookupError, PermissionError):
                return
            try:
                proc.wait(timeout=2)
                return
            except subprocess.TimeoutExpired:
                continue
