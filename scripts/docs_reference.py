"""The site's reference pages, generated as the site is built (an mkdocs hook, named in mkdocs.yml).

The command line's reference is walked from the Typer app and the file formats' from their pydantic models,
so neither can drift from the code: nothing generated is committed, and `mkdocs build --strict` (a test)
fails on a page that no longer builds.  `python scripts/docs_reference.py PAGE` prints one page."""

from __future__ import annotations

import json
import sys
from collections.abc import Callable
from typing import Any

GENERATED = "reference"  # the folder of docs/ the generated pages appear in (never written to the disk)


def _cell(text: str) -> str:
    """A table cell: one line, pipes escaped, so a help text cannot break the table."""
    return " ".join(str(text).split()).replace("|", "\\|")


# --------------------------------------------------------------------------- the command line


# Typer carries its own copy of click, so its commands are read through click's public attributes alone
# (`context_class`, `params`, `param_type_name`, `list_commands`) without importing either's classes.


def _command_tree() -> Any:
    import typer

    from negtui.cli import app

    return typer.main.get_command(app)


def _context(cmd: Any, name: str, parent: Any = None) -> Any:
    return cmd.context_class(cmd, info_name=name, parent=parent)


def _is_group(cmd: Any) -> bool:
    return hasattr(cmd, "list_commands")


def _param_row(param: Any, ctx: Any) -> str:
    if param.param_type_name == "option":
        names = ", ".join(f"`{n}`" for n in [*param.opts, *param.secondary_opts])
        kind = "flag" if param.is_flag else _cell(param.type.get_metavar(param, ctx) or param.type.name.upper())
        default = param.default if param.show_default is not False else None
        shown = "" if default in (None, False, (), []) or callable(default) else f"`{default}`"
        return f"| {names} | {kind} | {'yes' if param.required else shown} | {_cell(param.help or '')} |"
    helptext = getattr(param, "help", None) or ""
    return f"| `{param.human_readable_name}` | argument | {'yes' if param.required else ''} | {_cell(helptext)} |"


def _params_table(cmd: Any, ctx: Any) -> list[str]:
    params = [p for p in cmd.get_params(ctx) if not getattr(p, "hidden", False) and p.name != "help"]
    if not params:
        return []
    return ["| argument or option | value | required / default | what it does |", "|---|---|---|---|",
            *(_param_row(p, ctx) for p in params), ""]


def _command_section(cmd: Any, path: list[str], parent: Any, out: list[str]) -> None:
    ctx = _context(cmd, path[-1], parent)
    level = "#" * min(len(path) + 1, 4)
    out += [f"{level} {' '.join(path)}", ""]
    usage = " ".join(cmd.collect_usage_pieces(ctx))
    out += ["```", f"{ctx.command_path} {usage}".rstrip(), "```", ""]
    if cmd.help:
        out += [cmd.help.replace("\b\n", "").strip(), ""]
    out += _params_table(cmd, ctx)
    if _is_group(cmd):
        for name in cmd.list_commands(ctx):
            sub = cmd.get_command(ctx, name)
            if sub is not None and not sub.hidden:
                _command_section(sub, [*path, name], ctx, out)


def cli_page() -> str:
    """Every command, argument and option of `negtui`, with its help, as Markdown."""
    root = _command_tree()
    out = ["# Command line", "",
           "Generated from the `negtui` command itself as this site was built; `negtui COMMAND --help` says the "
           "same in the terminal. Bad input exits with status 2 and a message naming what is wrong and where; "
           "Ctrl-C stops any command with status 130.", ""]
    ctx = _context(root, "negtui")
    out += ["## negtui", "", "```", f"negtui {' '.join(root.collect_usage_pieces(ctx))}", "```", ""]
    out += [(root.help or "").strip(), ""]
    out += _params_table(root, ctx)
    out += ["| command | what it does |", "|---|---|"]
    names = root.list_commands(ctx)
    for name in names:
        sub = root.get_command(ctx, name)
        if sub is not None:
            out.append(f"| [`{name}`](#{_anchor('negtui ' + name)}) | {_cell(sub.get_short_help_str(200))} |")
    out.append("")
    for name in names:
        sub = root.get_command(ctx, name)
        if sub is not None and not sub.hidden:
            _command_section(sub, ["negtui", name], ctx, out)
    return "\n".join(out)


def _anchor(heading: str) -> str:
    """The id Python-Markdown's toc extension gives a heading (lower case, words joined by -)."""
    import re

    slug = re.sub(r"[^\w\s-]", "", heading).strip().lower()
    return re.sub(r"[-\s]+", "-", slug)


# --------------------------------------------------------------------------- the file formats


def _type_of(spec: dict[str, Any]) -> str:
    if "$ref" in spec:
        name = spec["$ref"].rsplit("/", 1)[-1]
        return f"[{name}](#{_anchor(name)})"
    if "const" in spec:
        return f"`{json.dumps(spec['const'])}`"
    if "enum" in spec:
        return " or ".join(f"`{json.dumps(v)}`" for v in spec["enum"])
    for key in ("anyOf", "oneOf"):
        if key in spec:
            return " or ".join(_type_of(s) for s in spec[key])
    kind = spec.get("type")
    if kind == "array":
        items = spec.get("items")
        if isinstance(items, dict) and items:
            return f"list of {_type_of(items)}"
        if "prefixItems" in spec:
            return "[" + ", ".join(_type_of(s) for s in spec["prefixItems"]) + "]"
        return "list"
    if kind == "object":
        extra = spec.get("additionalProperties")
        return f"table of {_type_of(extra)}" if isinstance(extra, dict) and extra else "object"
    if isinstance(kind, list):
        return " or ".join(kind)
    return str(kind or "any")


_BOUNDS = (("minimum", "≥ {}"), ("exclusiveMinimum", "> {}"), ("maximum", "≤ {}"), ("exclusiveMaximum", "< {}"),
           ("minLength", "at least {} characters"), ("maxLength", "at most {} characters"),
           ("minItems", "at least {} items"), ("maxItems", "at most {} items"), ("pattern", "matches `{}`"))


def _bounds(spec: dict[str, Any]) -> str:
    found = [(key, text, spec[key]) for key, text in _BOUNDS if key in spec]
    for key in ("anyOf", "oneOf"):
        for alt in spec.get(key, []):
            found += [(k, text, alt[k]) for k, text in _BOUNDS if k in alt]
    parts = ["not empty" if key in ("minLength", "minItems") and value == 1 else text.format(value)
             for key, text, value in found]
    return ("(" + "; ".join(parts) + ")") if parts else ""


def _object_table(name: str, spec: dict[str, Any], level: str) -> list[str]:
    out = [f"{level} {name}", ""]
    if spec.get("description"):
        out += [" ".join(spec["description"].split()), ""]
    props = spec.get("properties", {})
    if not props:
        out += [f"Type: {_type_of(spec)}.", ""]
        return out
    required = set(spec.get("required", []))
    out += ["| field | type | required / default | meaning |", "|---|---|---|---|"]
    for field, sub in props.items():
        need = "yes" if field in required else (f"`{json.dumps(sub['default'])}`" if "default" in sub else "optional")
        meaning = " ".join(x for x in (sub.get("description", ""), _bounds(sub)) if x)
        out.append(f"| `{field}` | {_cell(_type_of(sub))} | {_cell(need)} | {_cell(meaning)} |")
    return [*out, ""]


def schema_page(title: str, intro: str, schema: dict[str, Any]) -> str:
    """A JSON Schema as Markdown: the root's fields, then each definition's, each a table."""
    out = [f"# {title}", "", intro, ""]
    root = dict(schema)
    defs = root.pop("$defs", {})
    if root.get("properties"):
        out += _object_table(str(root.get("title", title)), root, "##")
    elif root.get("anyOf"):
        out += ["One of: " + ", ".join(_type_of(s) for s in root["anyOf"]) + ".", ""]
    for name in sorted(defs):
        out += _object_table(name, defs[name], "##")
    return "\n".join(out)


def scenario_page() -> str:
    from negtui.scenario.schema import scenario_schema

    return schema_page(
        "Scenario file", "Every field of a scenario file (JSON), generated from the pydantic models that read it "
        "(`negtui schema` prints the JSON Schema itself; it is committed as `negtui/scenario/scenario.schema.json`). "
        "Unknown fields are refused; every id a field names must exist. See [Scenarios](../scenarios.md) for what "
        "the fields mean in play.", scenario_schema())


def scoresheet_page() -> str:
    from negtui.scenario.scoresheets.model import Scoresheet

    return schema_page(
        "Scoresheet file", "Every field of a scoresheet (TOML or JSON, `format = \"negtui-scoresheet/1\"`), generated "
        "from the pydantic model that reads it; negtui compiles it into a scenario wherever it reads one. See "
        "[Cases from scoresheets](../cases.md#cases-from-scoresheets) for what the fields mean in play.",
        Scoresheet.model_json_schema())


def course_page() -> str:
    from negtui.classroom.course import Course

    return schema_page(
        "Course file", "Every field of a course file (TOML, or JSON with `exercises`), generated from the pydantic "
        "model that reads it. `negtui validate COURSE` checks one and names every problem with its path. See "
        "[Training over SSH](../training.md) and [Running a class](../running-a-class.md).",
        Course.model_json_schema())


def agent_protocol_page() -> str:
    from negtui.agents.wire import protocol_schema

    return schema_page(
        "Agent protocol", "Every line of the `negtui-agent/1` protocol, generated from the pydantic models negtui "
        "reads and writes it with (`negtui schema agent-protocol` prints the JSON Schema; it is committed as "
        "`negtui/agents/agent-protocol.schema.json`). See [Writing an agent](../agents.md) for an exchange.",
        protocol_schema())


PAGES: dict[str, Callable[[], str]] = {
    f"{GENERATED}/cli.md": cli_page,
    f"{GENERATED}/scenario.md": scenario_page,
    f"{GENERATED}/scoresheet.md": scoresheet_page,
    f"{GENERATED}/course.md": course_page,
    f"{GENERATED}/agent-protocol.md": agent_protocol_page,
}


# --------------------------------------------------------------------------- the mkdocs hook


def on_files(files: Any, config: Any) -> Any:
    """Adds the generated pages to the site before its navigation is built."""
    from mkdocs.structure.files import File

    for uri, make in PAGES.items():
        files.append(File.generated(config, uri, content=make()))
    return files


if __name__ == "__main__":
    if len(sys.argv) != 2 or sys.argv[1] not in PAGES:
        sys.exit(f"usage: python scripts/docs_reference.py {{{','.join(PAGES)}}}")
    sys.stdout.write(PAGES[sys.argv[1]]() + "\n")
