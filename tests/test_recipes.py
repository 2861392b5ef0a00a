"""``--recipe``: tuned training arguments kept as data (``training/recipes/*.json``), which explicit flags
override; a bad recipe is refused with a message that names what is wrong."""

from __future__ import annotations

import json

import pytest

from training.evaluate import UsageError
from training.train import RECIPES, check_args, load_recipe, parse_args
from wargames_cli.cli import main as cli_main


@pytest.mark.parametrize("path", sorted(RECIPES.glob("*.json")), ids=lambda p: p.stem)
def test_every_shipped_recipe_loads_and_passes_the_argument_checks(path):
    recipe = json.loads(path.read_text(encoding="utf-8"))
    assert recipe["about"] and recipe["battle"]
    args = parse_args([recipe["battle"], "--recipe", path.stem])
    check_args(args)
    for name, value in recipe["args"].items():
        assert getattr(args, name) == value, name


def test_flags_given_on_the_command_line_override_the_recipe():
    args = parse_args(["berestechko", "--recipe", "berestechko", "--n-envs", "64", "--hint", "ties", "--minutes", "3"])
    assert (args.n_envs, args.hint, args.minutes) == (64, "ties", 3.0)
    assert args.backend == "batched" and args.recipe == "berestechko"  # the rest from the recipe
    assert parse_args(["berestechko"]).backend == "default"  # no recipe: the built-in defaults


def write(tmp_path, content) -> str:
    path = tmp_path / "mine.json"
    path.write_text(content if isinstance(content, str) else json.dumps(content), encoding="utf-8")
    return str(path)


@pytest.mark.parametrize("content, message", [
    ("{not json", "not valid JSON"),
    ([1, 2], "'args' object"),
    ({"battle": "kulikovo", "args": {}}, "is for kulikovo, not berestechko"),
    ({"args": {"n_envz": 4}}, "unknown argument 'n_envz'"),
    ({"args": {"out": "elsewhere"}}, "unknown argument 'out'"),   # one run's choice, not a recipe's
    ({"args": {"n_envs": "many"}}, "n_envs = 'many'"),
    ({"args": {"n_envs": True}}, "expected int"),
    ({"args": {"learning_rate": "fast"}}, "expected float"),
])
def test_a_bad_recipe_is_refused_with_its_fault_named(tmp_path, content, message):
    with pytest.raises(UsageError, match=message):
        load_recipe(write(tmp_path, content), "berestechko")


def test_a_missing_recipe_lists_the_known_ones(capsys):
    assert cli_main(["train", "berestechko", "--recipe", "nosuch"]) == 2
    err = capsys.readouterr().err
    assert "no such file" in err and "berestechko" in err


def test_a_recipe_from_a_path_applies(tmp_path):
    path = write(tmp_path, {"battle": "berestechko_v0", "args": {"n_envs": 12, "learning_rate": 1}})
    args = parse_args(["berestechko", "--recipe", path])
    assert args.n_envs == 12 and args.learning_rate == 1
