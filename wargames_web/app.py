"""The ASGI app behind ``wargames serve``: Starlette routes over :mod:`wargames_web.games`, JSON over HTTP.

=======================================  =============================================================
``GET  /``                               the page (``static/index.html``); ``/static/...`` its files
``GET  /api/battles``                    the battles: title, sides, opponents offered, picture
``GET  /api/battles/{battle}/picture.svg`` the battle's opening position as SVG
``POST /api/games``                      ``{"battle", "seats": [spec, spec], "seed", "options"}``: a new game
                                         (one seat ``"human"`` to play, none to watch) -> its view
``GET  /api/games/{id}``                 the game's view (the person's side only)
``POST /api/games/{id}/act``             ``{"action", "decision"}``: the person's choice
``POST /api/games/{id}/step``            ``{"count"}``: a watched game moves on
``POST /api/games/{id}/undo``            take back the person's last decision (not across a die roll)
``GET  /api/games/{id}/record``          the game record so far (JSON download)
``POST /api/games/{id}/close``           free the game (also ``DELETE /api/games/{id}``; the page
                                         sends it when its tab closes)
``POST /api/replays``                    a game record (JSON body) -> a replay and its first view
``GET  /api/replays/{id}?index=N``       position N of the replay (0 = the start)
=======================================  =============================================================

Errors are JSON ``{"error": message}``: 400 bad input, 404 no such game, 409 a stale action (with
the current ``view``), 413 a body over the limit. No route reads a file named by the request except
``ckpt:`` agents, from the ``--checkpoints`` folder only (:func:`wargames_web.games.checkpoint_path`).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from wargame_envs.core.errors import WargameError
from wargames_web.games import (Config, NotFoundError, PlayGame, ReplayGame, Sessions, StaleActionError, WebInputError,
                                agent_choices, engine_for, position_view, short_names)

STATIC = Path(__file__).parent / "static"
MAX_BODY = 16 * 1024                 # a play request
MAX_RECORD_BODY = 4 * 1024 * 1024    # an uploaded game record


class BodyTooLarge(WebInputError):
    pass


async def _json_body(request: Request, limit: int = MAX_BODY) -> Any:
    """The request's JSON body, read up to ``limit`` bytes; anything else is a WebInputError."""
    data = bytearray()
    async for chunk in request.stream():
        data += chunk
        if len(data) > limit:
            raise BodyTooLarge(f"request body over {limit} bytes")
    if not data:
        return {}
    try:
        return json.loads(data.decode("utf-8"), parse_constant=_no_constant)
    except (UnicodeDecodeError, ValueError, RecursionError) as exc:
        raise WebInputError(f"request body: not valid JSON ({str(exc)[:120]})") from None


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _object(body: Any, what: str) -> dict:
    if not isinstance(body, dict):
        raise WebInputError(f"{what}: expected a JSON object, got {type(body).__name__}")
    return body


def _error(exc: Exception) -> JSONResponse:
    status = 404 if isinstance(exc, NotFoundError) else 413 if isinstance(exc, BodyTooLarge) else \
        409 if isinstance(exc, StaleActionError) else 400
    return JSONResponse({"error": str(exc)}, status_code=status)


def create_app(config: Config | None = None) -> Starlette:
    config = config or Config()
    sessions = Sessions(config)

    def game_of(request: Request, kind: type):
        game, lock = sessions.get(request.path_params["sid"])
        if not isinstance(game, kind):
            raise WebInputError(f"game {request.path_params['sid']!r} is a {game.kind}, not a {kind.kind}")
        return game, lock

    def with_session(sid: str, view: dict) -> dict:
        view["session"] = sid
        return view

    async def index(request: Request):
        return FileResponse(STATIC / "index.html")

    async def battles(request: Request):
        out = []
        for name in short_names():
            engine = engine_for(name)
            out.append({"name": name, "env": engine.name, "agents": list(engine.agents),
                        "opponents": agent_choices(config, name), "picture": f"/api/battles/{name}/picture.svg"})
        return JSONResponse(out)

    async def picture(request: Request):
        engine = engine_for(request.path_params["battle"])

        def draw():
            from wargame_envs.core.dice import Dice

            return position_view(engine, engine.new_state({}, Dice(1)), None)

        view = await run_in_threadpool(draw)
        return Response(view["svg"], media_type="image/svg+xml")

    async def new_game(request: Request):
        body = _object(await _json_body(request), "new game")
        unknown = set(body) - {"battle", "seats", "seed", "options"}
        if unknown:
            raise WebInputError(f"new game: unknown fields {sorted(unknown)}; expected battle, seats, seed, options")
        game = await run_in_threadpool(PlayGame, config, body.get("battle"), body.get("seats"), body.get("seed", 1),
                                       body.get("options"))
        sid = sessions.add(game)
        return JSONResponse(with_session(sid, game.view()))

    async def show_game(request: Request):
        game, lock = game_of(request, PlayGame)
        with lock:
            return JSONResponse(with_session(request.path_params["sid"], game.view()))

    async def act(request: Request):
        body = _object(await _json_body(request), "action")
        game, lock = game_of(request, PlayGame)

        def run():
            with lock:
                try:
                    game.act(body.get("action"), body.get("decision"))
                except StaleActionError as exc:
                    return JSONResponse({"error": str(exc), "view": game.view()}, status_code=409)
                return JSONResponse(with_session(request.path_params["sid"], game.view()))

        return await run_in_threadpool(run)

    async def step(request: Request):
        body = _object(await _json_body(request), "step")
        game, lock = game_of(request, PlayGame)

        def run():
            with lock:
                game.step(body.get("count", 1))
                return JSONResponse(with_session(request.path_params["sid"], game.view()))

        return await run_in_threadpool(run)

    async def undo(request: Request):
        game, lock = game_of(request, PlayGame)

        def run():
            with lock:
                game.undo()
                return JSONResponse(with_session(request.path_params["sid"], game.view()))

        return await run_in_threadpool(run)

    async def record(request: Request):
        game, lock = game_of(request, PlayGame)
        with lock:
            text = game.record_json()
        name = f"{game.engine.name}_seed{game.seed}_{game.decisions}.json"
        return Response(text, media_type="application/json",
                        headers={"Content-Disposition": f'attachment; filename="{name}"'})

    async def close(request: Request):
        closed = sessions.close(request.path_params["sid"])
        return JSONResponse({"closed": closed})

    async def new_replay(request: Request):
        body = await _json_body(request, MAX_RECORD_BODY)
        game = await run_in_threadpool(ReplayGame, body)
        sid = sessions.add(game)
        return JSONResponse({**with_session(sid, game.view(0)), "moves": game.moves})

    async def show_replay(request: Request):
        game, lock = game_of(request, ReplayGame)
        raw = request.query_params.get("index", "0")
        if not (raw.isascii() and raw.isdigit()):
            raise WebInputError(f"index = {raw[:40]!r}: expected an integer 0..{len(game.states) - 1}")
        with lock:
            view = await run_in_threadpool(game.view, int(raw))
        return JSONResponse(with_session(request.path_params["sid"], view))

    async def on_error(request: Request, exc: Exception):
        return _error(exc)

    routes = [
        Route("/", index),
        Route("/api/battles", battles),
        Route("/api/battles/{battle}/picture.svg", picture),
        Route("/api/games", new_game, methods=["POST"]),
        Route("/api/games/{sid}", show_game),
        Route("/api/games/{sid}", close, methods=["DELETE"]),
        Route("/api/games/{sid}/act", act, methods=["POST"]),
        Route("/api/games/{sid}/step", step, methods=["POST"]),
        Route("/api/games/{sid}/undo", undo, methods=["POST"]),
        Route("/api/games/{sid}/record", record),
        Route("/api/games/{sid}/close", close, methods=["POST"]),
        Route("/api/replays", new_replay, methods=["POST"]),
        Route("/api/replays/{sid}", show_replay),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, exception_handlers={WargameError: on_error})
    app.state.sessions = sessions
    app.state.config = config
    return app


def serve(host: str = "127.0.0.1", port: int = 8000, config: Config | None = None) -> None:
    """Run the app with uvicorn until interrupted."""
    import uvicorn

    uvicorn.run(create_app(config), host=host, port=port, log_level="warning")
