"""Play in the browser: ``wargames serve`` (optional extra ``[web]``: Starlette and uvicorn).

:mod:`wargames_web.games` holds the played, watched and replayed games (no web framework);
:mod:`wargames_web.svg` draws a battle's ``Scene`` as an SVG hex map; :mod:`wargames_web.app` is the
ASGI app and its JSON routes; ``static/`` is the page. Like ``wargames_cli`` this package sits on top:
it imports ``wargame_envs`` and ``agents``, and neither imports it.
"""
