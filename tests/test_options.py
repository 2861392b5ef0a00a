"""core.options: every battle type-checks its reset options alike (issue 12 item 4)."""

import numpy as np
import pytest

from wargame_envs import make
from wargame_envs.core.errors import ScenarioError
from wargame_envs.core.options import Option, check_options

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
