"""The page of ``wargames serve`` in a real headless Chromium (issue 16): Debian's ``chromium`` driven
by Playwright for Python (``playwright install`` is never run: the browser is the system one).

A few decisions of each battle by clicking the map, one Berestechko game to the end against
``random`` (clicking the side list), its record saved; a replay scrubbed; a watched game paused and
stepped. Skipped, with the reason, where Chromium or Playwright is missing."""

from __future__ import annotations

import os
import random
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

CHROMIUM = Path(os.environ.get("WARGAMES_CHROMIUM", "/usr/bin/chromium"))
if not CHROMIUM.exists():
    pytest.skip(f"browser tests need Chromium at {CHROMIUM} (Debian: apt-get install chromium)",
                allow_module_level=True)
pytest.importorskip("starlette", reason="browser tests need the [web] extra")
sync_api = pytest.importorskip("playwright.sync_api", reason="browser tests need playwright (pip install playwright)")

from wargame_envs import make  # noqa: E402
from wargame_envs.core.records import GameRecord, replay_final  # noqa: E402

CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync", "--no-first-run"]
ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    """``wargames serve`` on a free port, for the module's tests."""
    port = free_port()
    proc = subprocess.Popen([sys.executable, "-m", "wargames_cli.cli", "serve", "--port", str(port)], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            urllib.request.urlopen(url + "/api/battles", timeout=5).read()
            break
        except OSError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"wargames serve did not start: {proc.stdout.read()}")
            time.sleep(0.2)
    yield url
    proc.terminate()
    proc.wait(timeout=10)


@pytest.fixture(scope="module")
def browser():
    with sync_api.sync_playwright() as p:
        b = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser, server):
    context = browser.new_context(viewport={"width": 1400, "height": 900}, accept_downloads=True)
    pg = context.new_page()
    pg.set_default_timeout(30_000)
    errors = []
    pg.on("pageerror", lambda exc: errors.append(str(exc)))
    pg.goto(server + "/")
    pg.wait_for_selector(".battle img")
    yield pg
    context.close()
    assert not errors, errors


# ---------------------------------------------------------------------------- helpers
def decision(page) -> int:
    return int(page.get_attribute("#status", "data-decision"))


def wait_past(page, old: int) -> None:
    """Until the page shows a decision other than ``old`` (the server answered)."""
    page.wait_for_function("d => document.querySelector('#status').dataset.decision !== d "
                           "&& document.body.dataset.busy === '0'", arg=str(old))


def options(page) -> list[tuple[int, list[str]]]:
    return page.eval_on_selector_all("#options button.option",
                                     "els => els.map(e => [Number(e.dataset.action), e.dataset.hexes])")


def start(page, battle: str, seats: str = "play", opponent: str = "random", seed: int = 1) -> None:
    page.select_option("#battle", battle)
    page.fill("#seed", str(seed))
    if seats == "play":
        page.select_option("#opponent", opponent)
        page.click("#play")
    else:
        page.click("#watch")
    page.wait_for_selector("#game:not([hidden]) #map svg")


def click_hex(page, hex_id: str) -> None:
    """Click hex ``hex_id`` on the map: its counter where one stands there, else the hex."""
    counter = page.locator(f'#map g.counter[data-hex="{hex_id}"]')
    (counter.first if counter.count() else page.locator(f'#map polygon.hex[data-hex="{hex_id}"]')).click()


# ---------------------------------------------------------------------------- tests
def test_the_first_page_lists_the_three_battles_with_a_picture(page):
    cards = page.locator(".battle")
    assert cards.count() == 3
    page.wait_for_function("() => [...document.querySelectorAll('.battle img')]"
                           ".every(i => i.complete && i.naturalWidth > 0)")   # each picture loads
    assert sorted(page.eval_on_selector_all(".battle", "els => els.map(e => e.dataset.battle)")) == \
        ["berestechko", "breitenfeld", "kulikovo"]


@pytest.mark.parametrize("battle", ["berestechko", "kulikovo", "breitenfeld"])
def test_a_few_decisions_of_each_battle_by_clicking_the_map(page, battle):
    start(page, battle, seed=2)
    assert page.locator("#title").inner_text().endswith("you are " + page.locator("#side option").first.inner_text())
    page.click("#undo")
    page.wait_for_function("() => document.querySelector('#message').textContent.includes('nothing to undo')")
    map_clicks = list_picks = 0
    for _ in range(40):
        if map_clicks >= 2 and map_clicks + list_picks >= 3:
            break
        before, opts = decision(page), options(page)
        assert opts, "the person has options at each of his decisions"
        named: dict[str, list[int]] = {}
        for action, hexes in opts:
            for h in hexes.split():
                named.setdefault(h, []).append(action)
        assert page.locator("#map polygon.hex.legal").count() == len(named)   # highlighted = choosable
        unique = sorted(h for h, acts in named.items() if len(acts) == 1)
        shared = sorted(h for h, acts in named.items() if len(acts) > 1)
        if unique:
            click_hex(page, unique[0])
            map_clicks += 1
        elif shared:                       # several options name the hex: the list shows only those
            click_hex(page, shared[0])
            visible = page.locator("#options li:not(.filtered-out) button.option")
            assert visible.count() == len(named[shared[0]])
            visible.first.click()
            map_clicks += 1
        else:
            page.locator("#options button.option").first.click()
            list_picks += 1
        wait_past(page, before)
        assert decision(page) > before
    assert map_clicks >= 2


def test_one_berestechko_game_to_the_end_against_random_and_its_record(page, tmp_path):
    start(page, "berestechko", opponent="random", seed=7)
    rng = random.Random(7)
    for _ in range(600):
        if page.get_attribute("#status", "data-over") == "1":
            break
        before = decision(page)
        buttons = page.locator("#options button.option")
        buttons.nth(rng.randrange(buttons.count())).click()
        wait_past(page, before)
    assert page.inner_text("#status").startswith("Game over: ")
    assert page.locator("#options button.option").count() == 0
    with page.expect_download() as download:
        page.click("#save")
    path = tmp_path / "game.json"
    download.value.save_as(path)
    record = GameRecord.load(path)
    engine, state = replay_final(record)
    assert engine.is_terminal(state) and len(record.actions) == decision(page)
    assert record.players == {"polish_lithuanian": "human", "cossack_tatar": "random"}


def test_scrub_a_replay_back_and_forth(page, tmp_path):
    env = make("berestechko")
    env.reset(seed=3)
    raw, rng = env.unwrapped, random.Random(3)
    for _ in range(30):
        env.step(rng.choice(raw.legal_actions()))
    path = tmp_path / "partial.json"
    raw.record.save(path)
    n = len(raw.record.actions)
    page.set_input_files("#record-file", str(path))
    page.wait_for_selector("#replay-controls:not([hidden])")
    assert decision(page) == 0 and page.inner_text("#position") == f"0 / {n}"
    start_svg = page.inner_html("#map")
    page.locator("#timeline").evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('change')); }", n // 2)
    wait_past(page, 0)
    assert decision(page) == n // 2 and page.inner_text("#position") == f"{n // 2} / {n}"
    assert page.inner_html("#map") != start_svg and page.inner_text("#next-move").startswith("next: ")
    page.click("#prev")
    wait_past(page, n // 2)
    assert decision(page) == n // 2 - 1
    for expected in (n // 2, n // 2 + 1):
        page.click("#next")
        wait_past(page, expected - 1)
        assert decision(page) == expected
    page.locator("#timeline").evaluate("(el, v) => { el.value = v; el.dispatchEvent(new Event('change')); }", 0)
    wait_past(page, n // 2 + 1)
    assert page.inner_html("#map") == start_svg
    page.click("#replay-controls .new-game")
    page.wait_for_selector("#home:not([hidden])")
    page.set_input_files("#record-file", {"name": "bad.json", "mimeType": "application/json", "buffer": b"{oops"})
    page.wait_for_function("() => document.querySelector('#home-message').textContent !== ''")
    assert "not valid JSON" in page.inner_text("#home-message")


def test_watch_agent_against_agent_pause_and_step(page):
    page.select_option("#battle", "berestechko")
    page.select_option("#watch-p1", "random")
    page.select_option("#watch-p2", "random")
    page.locator("#speed").evaluate("el => { el.value = 20; el.dispatchEvent(new Event('input')); }")
    start(page, "berestechko", seats="watch")
    page.wait_for_function("() => Number(document.querySelector('#status').dataset.decision) >= 3")
    page.click("#run")                     # pause
    assert page.inner_text("#run") == "Run"
    page.wait_for_function("() => document.body.dataset.busy === '0'")
    paused = decision(page)
    page.wait_for_timeout(400)
    assert decision(page) == paused
    page.click("#step")
    wait_past(page, paused)
    assert decision(page) == paused + 1
