"""Breitenfeld 1631 (Thirty Years War QuadriGame system): ``breitenfeld_v0``.

The rules engine is :class:`wargame_envs.breitenfeld.rules.BreitenfeldEngine`; the PettingZoo AEC
environment is ``wargame_envs.breitenfeld.env`` (``env()`` / ``raw_env()``). Documentation:
``docs/breitenfeld.md`` and the docstring of ``env.py``.
"""
