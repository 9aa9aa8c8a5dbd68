"""What a typo on the command line is told: every spelling a seat can have, and the bundled scenarios a
name that is no file was close to (bundled names work wherever a file does)."""

from __future__ import annotations

import pytest


@pytest.mark.parametrize("command", [("autoplay",), ("play",), ("table", "open")])
def test_a_misspelt_seat_lists_every_kind_of_seat(cli, tmp_path, command):
    res = cli(*command, "coalition-trap", "--seat", "A=humna", *(("--data-dir", tmp_path) if command != ("autoplay",)
                                                                  else ()))
    assert res.exit_code == 2 and "Traceback" not in res.output
    for spelling in ("human", "myopic", "upper", "lower", "exact", "PROPOSE/RESPOND", "utilitarian", "maximin",
                     "cmd:COMMAND", "llm:MODEL"):
        assert spelling in res.stderr, (spelling, res.stderr)
    assert "seat 'A=humna'" in res.stderr and "did you mean human?" in res.stderr


def test_a_misspelt_seat_of_a_known_kind_is_told_what_is_wrong_with_it(cli, tmp_path):
    res = cli("autoplay", "coalition-trap", "--seat", "A=maximin:foo")
    assert res.exit_code == 2 and "maximin judges with" in res.stderr and "not 'foo'" in res.stderr
    res = cli("autoplay", "coalition-trap", "--seat", "A=uper/lower")
    assert res.exit_code == 2 and "unknown lens 'uper'" in res.stderr


@pytest.mark.parametrize("command", [("autoplay",), ("welfare",), ("describe",)])
def test_a_near_miss_of_a_bundled_name_names_the_bundled_ones_close_to_it(cli, command):
    res = cli(*command, "poison-pil")
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "poison-pil: file not found" in res.stderr and "poison-pill" in res.stderr
    assert "bundled names work wherever a file does" in res.stderr and "negtui scenarios" in res.stderr


def test_a_name_near_nothing_bundled_still_says_that_bundled_names_work(cli):
    res = cli("autoplay", "zzzz-not-a-game")
    assert res.exit_code == 2 and "close to that name" not in res.stderr
    assert "no bundled scenario has that name" in res.stderr and "negtui scenarios" in res.stderr


def test_a_missing_file_in_a_folder_is_only_missing(cli, tmp_path):
    res = cli("autoplay", tmp_path / "missing.json")
    assert res.exit_code == 2 and "file not found" in res.stderr and "bundled" not in res.stderr


@pytest.mark.parametrize("args", [("autoplay", "poison-pill", "--lens", "uper"),
                                  ("welfare", "poison-pill", "--lens", "uper"),
                                  ("autoplay", "poison-pill", "--seat", "A=uper/lower")])
def test_a_misspelt_lens_is_told_the_lens_it_was_close_to(cli, args):
    res = cli(*args)
    assert res.exit_code == 2 and "Traceback" not in res.output
    assert "unknown lens 'uper'; did you mean upper?" in res.stderr


def test_the_rules_help_names_the_variants(cli):
    """Variants such as paper+simultaneous are rule sets too; the help of every command that takes --rules says so."""
    for command in ("autoplay", "play", "welfare", "solve"):
        res = cli(command, "--help", env={"COLUMNS": "200"})
        assert res.exit_code == 0
        words = " ".join(res.stdout.replace("│", " ").split())
        assert "paper+simultaneous" in words and "(+) or off (-)" in words, (command, words)
