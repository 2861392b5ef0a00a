"""core.options: every battle type-checks its reset options alike (issue 12 item 4); core.scenario: data files
that cannot be read give a ScenarioError naming the file, and ``data_dir`` is type-checked."""

import re
import shutil
from pathlib import Path

import numpy as np
import pytest

from wargame_envs import make
from wargame_envs.core.errors import ScenarioError
from wargame_envs.core.options import Option, check_options
from wargame_envs.core.scenario import load_toml
from wargame_envs.registry import make_engine

TABLE = {"flag": Option(bool, False), "count": Option(int, 3, low=0, high=9),
         "mode": Option(str, "a", choices=("a", "b")), "position": Option(object, None)}


def test_defaults_and_numpy_scalars():
    assert check_options("t", None, TABLE) == {"flag": False, "count": 3, "mode": "a", "position": None}
    got = check_options("t", {"flag": np.True_, "count": np.int64(4)}, TABLE)
    assert got["flag"] is True and got["count"] == 4 and type(got["count"]) is int


@pytest.mark.parametrize("name,value", [("flag", "false"), ("flag", 0), ("count", True), ("count", -1),
                                        ("count", 10), ("count", 2.0), ("mode", "c"), ("mode", 1)])
def test_wrong_values_name_the_option_and_the_value(name, value):
    with pytest.raises(ScenarioError, match=f"'{name}' = {value!r}"):
        check_options("t", {name: value}, TABLE)


def test_options_not_a_dict():
    with pytest.raises(ScenarioError, match="expected a dict"):
        check_options("t", ["flag"], TABLE)


@pytest.mark.parametrize("env_name", ["berestechko_v0", "kulikovo_v0", "breitenfeld_v0"])
def test_every_battle_warns_alike_about_unknown_options(env_name):
    env = make(env_name)
    with pytest.warns(UserWarning, match=r"ignoring unknown \w+ option\(s\) \['colour'\]"):
        env.reset(seed=1, options={"colour": "red"})


# ------------------------------------------------------------------ data files (audit finding 7)
@pytest.mark.parametrize("content, message", [
    (b"a = 1\n# \xff\xfe\n", "not UTF-8"),
    (b"x = " + b"[" * 100_000 + b"]" * 100_000 + b"\n", "nested too deeply"),
])
def test_unreadable_toml_names_the_file(tmp_path, content, message):
    path = tmp_path / "data.toml"
    path.write_bytes(content)
    with pytest.raises(ScenarioError, match=f"{re.escape(str(path))}: not valid TOML: {message}"):
        load_toml(path)


def test_a_folder_or_a_path_through_a_file_names_the_path(tmp_path):
    (tmp_path / "data.toml").mkdir()
    with pytest.raises(ScenarioError, match=f"{re.escape(str(tmp_path / 'data.toml'))}: cannot read the data file"):
        load_toml(tmp_path / "data.toml")
    (tmp_path / "file").write_text("a = 1\n", encoding="utf-8")
    through = tmp_path / "file" / "x.toml"
    with pytest.raises(ScenarioError, match=f"{re.escape(str(through))}: cannot read the data file"):
        load_toml(through)


@pytest.mark.parametrize("battle, file", [("berestechko", "scenario.toml"), ("kulikovo", "oob.toml"),
                                          ("breitenfeld", "oob.toml")])
def test_every_battle_refuses_a_bad_data_dir_with_a_clear_error(tmp_path, battle, file):
    data = Path(__file__).resolve().parents[1] / "wargame_envs" / battle / "data"
    for bad in (5, b"data", [str(data)]):
        with pytest.raises(TypeError, match="data_dir = .*: expected a str or os.PathLike"):
            make_engine(battle, data_dir=bad)
    with pytest.raises(ScenarioError, match=f"{re.escape(str(data / file))}.*cannot read the data file"):
        make_engine(battle, data_dir=data / file)  # a file, not a folder
    copy = tmp_path / "data"
    shutil.copytree(data, copy)
    (copy / file).write_bytes((copy / file).read_bytes() + b"\n# \xff\xfe\n")
    with pytest.raises(ScenarioError, match=f"{re.escape(str(copy / file))}: not valid TOML: not UTF-8"):
        make_engine(battle, data_dir=copy)
