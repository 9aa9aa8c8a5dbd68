"""Printed case materials (`negtui case sheets`): a role sheet per seat, to hand out, and the teaching note,
for the trainer.

A role sheet holds what its seat knows under private information and nothing else: it is built from the
engine's observation of the seat and its picture of the game (engine.knowledge), never from the game
itself, so another role's values cannot reach it.  A scoresheet's roles read in the sheet's own terms
(issues, options, points, the reservation value), from the party's own sheet (`knowledge.seat_sheet`).
The teaching note holds everything: every role, the welfare optimum, the No-Negotiation baseline, the
exact solution where the game is small enough, and what each lens bot does when it sits in every seat.

roles.py and note.py work out the contents (plain data, headless); pages.py writes them as HTML through
Jinja2 with autoescape (every word of a scenario is untrusted); pdf.py prints them with a headless chromium
where there is one."""
