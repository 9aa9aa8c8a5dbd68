"""A sweep over scenario files in words: per scenario, each method's improvement and efficiency (Markdown and
terminal tables that keep names and numbers whole), and the games' sign structure."""

from __future__ import annotations

from rich.table import Table
from rich.text import Text

from negtui.sweep.markdown import BEST, md
from negtui.sweep.markdown import markdown_table as _markdown_table
from negtui.sweep.report import ScenarioTable


def _improvement(st: ScenarioTable, f: str, m: str) -> str:
    c = st.cells.get((f, m))
    if c is None:
        return ""
    # one seed has no spread to show, nor have seeds that all gave the same (a deterministic game and method)
    return f"{c.mean:+z.2f}" + (f" ± {c.sd:z.2f}" if c.n > 1 and c.sd > 0 else "")


def _efficiency(st: ScenarioTable, f: str, m: str) -> str:
    e = st.efficiency.get((f, m))
    return "" if e is None else f"{e.median:z.0%}"


def scenario_markdown(st: ScenarioTable) -> str:
    rows = []
    for f, name, players in st.scenarios:
        best = st.best(f)
        cells = []
        for m in st.methods:
            text = _improvement(st, f, m) + (f" ({e})" if (e := _efficiency(st, f, m)) else "")
            cells.append(f"**{text}**" if m in best else text)
        rows.append([md(name), str(players), f"{st.baseline[f]:z.2f}", *cells])
    if st.split:  # the hand-written games stand apart: the mean is over the generated ones alone
        made = st.files(generated=True)
        rows = [r for _, r in sorted(zip(st.scenarios, rows), key=lambda x: x[0][0] in made)]
        if len(made) > 1:
            rows.append([f"**mean ± sd over the {len(made)} generated games**", "", "",
                         *("" if (c := st.over_scenarios(m, made)) is None else f"{c.mean:+z.2f} ± {c.sd:z.2f}"
                           for m in st.methods)])
    elif len(st.scenarios) > 1:
        rows.append([f"**mean ± sd over the {len(st.scenarios)} games**", "", "",
                     *("" if (c := st.over_scenarios(m)) is None else f"{c.mean:+z.2f} ± {c.sd:z.2f}"
                       for m in st.methods)])
    lines = _markdown_table(["scenario", "players", "baseline", *map(md, st.methods)], rows)
    n = sorted({c.n for c in st.cells.values()})
    seeds = "/".join(map(str, n))
    if n == [1]:
        over = "one seed of the partner search (one play each: the best is the highest, alone in bold)"
    elif all(c.sd == 0 for c in st.cells.values()):
        over = (f"the same on each of {seeds} seeds (these games and methods are deterministic: no seed changes "
                "them)")
    else:
        over = (f"mean ± sd over {seeds} seeds of the partner search (no ± where every seed gave the same)")
    lines += ["", f"Improvement of the sum of payoffs over the No-Negotiation baseline (the baseline column), {over}"
                  "; in brackets the median welfare efficiency (negotiated ÷ the utilitarian "
                  "optimum). The best method per scenario in bold, with every method tied with it (their paired "
                  "difference over the scenario's plays not clear of zero)."
              + _apart(st)]
    return "\n".join(lines)


def _apart(st: ScenarioTable) -> str:
    """What the table says of its hand-written games where it holds generated ones too."""
    if not st.split:
        return ""
    hand = [md(n) for f, n, _ in st.scenarios if f in st.files(generated=False)]
    one = len(hand) == 1
    return (f" The hand-written game{'' if one else 's'} ({', '.join(hand)}) stand{'s' if one else ''} apart from "
            "the games the generator made to stand in for it: the mean is over the generated games alone, and the "
            "claims below are judged on them.")


def structure_markdown(st: ScenarioTable) -> str:
    """Each scenario's sign structure, measured as `negtui describe` measures it; "" for results without it."""
    made = set(st.files(generated=True)) if st.split else set()
    rows = [[md(name), str(players), f"{s[0]:.0%}", f"{s[1]:.0%}", f"{s[2]:.2f}"]
            for f, name, players in sorted(st.scenarios, key=lambda x: x[0] in made)  # as the scenario table
            if (s := st.structure.get(f)) is not None]
    if not rows:
        return ""
    return "\n".join([*_markdown_table(["scenario", "players", "negative value mass", "mixed-sign goals",
                                        "sign agreement"], rows), "",
                      "The games' sign structure (`negtui describe`): the share of the value at stake that is "
                      "negative, of goals some players want and others fear, and how often two players who both "
                      "value a goal value it the same way. Games that stand in for another should come close to "
                      "it on all three."])


def scenario_rich(st: ScenarioTable, width: int = 80) -> list[Table]:
    """Improvement, then efficiency, with as many methods per table as fit `width` columns (more tables
    where they do not): numbers and scenario names whole, never cut to fit."""
    names = [f"{name} ({players})" for _, name, players in st.scenarios]
    first = min(max(map(len, names), default=10), 28) + 3  # the scenario column and its borders

    def chunks(cells: dict[str, list[str]], fixed: int) -> list[list[str]]:
        out: list[list[str]] = [[]]
        used = first + fixed
        for m in st.methods:
            w = max(len(m), *(len(c) for c in cells[m])) + 3
            if out[-1] and used + w > width:
                out.append([])
                used = first + fixed
            out[-1].append(m)
            used += w
        return out

    best = [st.best(f) for f, _, _ in st.scenarios]  # paired comparisons: once per scenario
    gains = {m: [_improvement(st, f, m) + (f" {BEST}" if m in best[k] else "")
                 for k, (f, _, _) in enumerate(st.scenarios)] for m in st.methods}
    effs = {m: [_efficiency(st, f, m) for f, _, _ in st.scenarios] for m in st.methods}
    tables = []
    for part in chunks(gains, max(len("baseline"), *(len(f"{st.baseline[f]:z.2f}") for f, _, _ in st.scenarios)) + 3):
        title = f"{st.sweep} · {st.rules} rules: improvement over No-Negotiation ({BEST} best)"
        t = Table(title=title, title_justify="left", min_width=min(width, len(title)))  # the title on one line
        t.add_column("scenario (players)", overflow="fold", min_width=first - 3)
        t.add_column("baseline", justify="right", no_wrap=True)
        for m in part:
            t.add_column(m, justify="right", no_wrap=True)
        for k, (f, _, _) in enumerate(st.scenarios):
            t.add_row(Text(names[k]), f"{st.baseline[f]:z.2f}",
                      *[Text(gains[m][k], style="bold" if m in best[k] else "") for m in part])
        tables.append(t)
    if st.efficiency:
        for part in chunks(effs, 0):
            title = f"{st.sweep} · {st.rules} rules: median welfare efficiency (negotiated ÷ optimum)"
            t = Table(title=title, title_justify="left", min_width=min(width, len(title)))
            t.add_column("scenario (players)", overflow="fold", min_width=first - 3)
            for m in part:
                t.add_column(m, justify="right", no_wrap=True)
            for k in range(len(st.scenarios)):
                t.add_row(Text(names[k]), *[effs[m][k] for m in part])
            tables.append(t)
    return tables
