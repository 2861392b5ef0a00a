"""The ``wargames`` command line (:mod:`wargames_cli.cli`).

It sits on top of everything else and is imported by nothing: it depends on ``wargame_envs`` (the
environments), ``agents`` and ``training``, none of which imports it (issue 12 item 14).
"""
