"""`python -I -m negtui.table SPEC SOCKET`: run one table (started by whoever opens tables)."""

from __future__ import annotations

import sys
from pathlib import Path

from negtui.scenario import untrusted
from negtui.scenario.limits import MAX_SCENARIO_BYTES
from negtui.table.host import serve
from negtui.table.spec import TableSpec


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print("usage: python -m negtui.table SPEC SOCKET", file=sys.stderr)
        return 2
    try:
        spec = TableSpec.model_validate(untrusted.load(Path(argv[0]), 2 * MAX_SCENARIO_BYTES))
    except (untrusted.Untrusted, ValueError) as err:
        print(f"{argv[0]}: not a table spec: {err}", file=sys.stderr)
        return 2
    why = serve(spec, Path(argv[1]))
    if why:
        print(f"table closed: {why}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
