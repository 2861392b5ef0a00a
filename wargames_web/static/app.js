// The page of `wargames serve`: one game per tab, held by the server under a session id that only this
// tab knows (a variable, not storage); the tab frees it when it closes. Every choice is checked again
// by the server, which answers with the new view or a message.
"use strict";

const $ = (id) => document.getElementById(id);
let battles = [];
let session = null;    // this tab's game on the server
let view = null;       // the last view the server sent
let timer = null;      // a watched game's clock

// ------------------------------------------------------------------ server calls
async function call(method, url, body) {
  document.body.dataset.busy = "1";
  try {
    const opts = { method, headers: {} };
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = typeof body === "string" ? body : JSON.stringify(body);
    }
    const response = await fetch(url, opts);
    const data = await response.json().catch(() => ({ error: `server answered ${response.status}` }));
    if (!response.ok) {
      const error = new Error(data.error || `server answered ${response.status}`);
      error.view = data.view;
      throw error;
    }
    return data;
  } finally {
    document.body.dataset.busy = "0";
  }
}

function say(text, info = false, where = "message") {
  const el = $(where);
  el.textContent = text || "";
  el.classList.toggle("info", info);
}

function closeSession() {
  if (session) navigator.sendBeacon(`/api/games/${session}/close`);
  session = null;
}
window.addEventListener("pagehide", closeSession);

// ------------------------------------------------------------------ home page
function option(select, value, text) {
  const el = document.createElement("option");
  el.value = value;
  el.textContent = text || value;
  select.appendChild(el);
}

function selectBattle(name) {
  const battle = battles.find((b) => b.name === name);
  $("battle").value = name;
  for (const card of document.querySelectorAll(".battle")) card.classList.toggle("selected", card.dataset.battle === name);
  for (const id of ["side", "opponent", "watch-p1", "watch-p2"]) $(id).innerHTML = "";
  battle.agents.forEach((agent, i) => option($("side"), String(i), agent));
  for (const id of ["opponent", "watch-p1", "watch-p2"]) battle.opponents.forEach((spec) => option($(id), spec));
  $("opponent").value = "scripted";
  $("watch-p1").value = "scripted";
  $("watch-p2").value = "random";
  $("watch-p1-name").textContent = battle.agents[0];
  $("watch-p2-name").textContent = battle.agents[1];
}

async function showHome() {
  clearInterval(timer);
  closeSession();
  $("game").hidden = true;
  $("home").hidden = false;
  if (!battles.length) {
    battles = await call("GET", "/api/battles");
    for (const b of battles) {
      option($("battle"), b.name);
      const card = document.createElement("div");
      card.className = "battle";
      card.dataset.battle = b.name;
      card.innerHTML = `<img alt="opening position of ${b.name}" src="${b.picture}"><h3></h3><p></p>`;
      card.querySelector("h3").textContent = b.name[0].toUpperCase() + b.name.slice(1);
      card.querySelector("p").textContent = b.agents.join(" against ");
      card.addEventListener("click", () => selectBattle(b.name));
      $("battles").appendChild(card);
    }
    selectBattle(battles[0].name);
  }
}

function seed() {
  const value = Number($("seed").value);
  return Number.isInteger(value) && value >= 0 ? value : $("seed").value;  // the server says what is wrong
}

function scenarioOptions() {
  const text = $("options-json").value.trim();
  if (!text) return undefined;
  try {
    return JSON.parse(text);
  } catch (err) {
    return text;  // the server says what is wrong with it
  }
}

async function startGame(seats) {
  say("", false, "home-message");
  try {
    const data = await call("POST", "/api/games", { battle: $("battle").value, seats, seed: seed(), options: scenarioOptions() });
    enterGame(data);
  } catch (err) {
    say(err.message, false, "home-message");
  }
}

$("battle").addEventListener("change", () => selectBattle($("battle").value));
$("setup-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const seats = ["", ""];
  const me = Number($("side").value);
  seats[me] = "human";
  seats[1 - me] = $("opponent").value;
  startGame(seats);
});
$("watch-form").addEventListener("submit", (e) => {
  e.preventDefault();
  startGame([$("watch-p1").value, $("watch-p2").value]);
});
$("record-file").addEventListener("change", async () => {
  const file = $("record-file").files[0];
  if (!file) return;
  say("", false, "home-message");
  try {
    const data = await call("POST", "/api/replays", await file.text());
    enterGame(data);
  } catch (err) {
    say(err.message, false, "home-message");
  }
  $("record-file").value = "";
});
$("home-link").addEventListener("click", (e) => { e.preventDefault(); showHome(); });
for (const el of document.querySelectorAll(".new-game")) el.addEventListener("click", showHome);

// ------------------------------------------------------------------ the game
function enterGame(data) {
  closeSession();
  session = data.session;
  $("home").hidden = true;
  $("game").hidden = false;
  say("");
  $("play-controls").hidden = data.kind !== "play";
  $("watch-controls").hidden = data.kind !== "watch";
  $("replay-controls").hidden = data.kind !== "replay";
  $("options-head").hidden = data.kind !== "play";
  for (const id of ["save", "watch-save"]) $(id).href = `/api/games/${session}/record`;
  if (data.kind === "replay") {
    $("timeline").max = data.length;
    $("timeline").value = 0;
    $("timeline").dataset.moves = JSON.stringify(data.moves);
  }
  show(data);
  if (data.kind === "watch") runWatch(true);
}

// Rule cases like [6.2.1] or [7] in an event line, set off in colour.
function withCases(el, text) {
  const parts = text.split(/(\[[0-9]+(?:\.[0-9]+)*[^\]\[]*\])/);
  parts.forEach((part, i) => {
    if (i % 2) {
      const span = document.createElement("span");
      span.className = "case";
      span.textContent = part;
      el.appendChild(span);
    } else el.appendChild(document.createTextNode(part));
  });
}

function show(data) {
  view = data;
  $("map").innerHTML = data.svg;
  $("title").textContent = data.title + (data.you ? `: you are ${data.you}` : data.kind === "watch" ? ": watching" : ": replay");
  $("sides").innerHTML = "";
  data.sides.forEach((side) => {
    const li = document.createElement("li");
    li.innerHTML = `<span class="swatch" style="background:${side.color}"></span>`;
    li.appendChild(document.createTextNode(`${side.name} (${side.agent}): ${data.seats[side.agent] || "?"}`));
    $("sides").appendChild(li);
  });
  const status = $("status");
  status.dataset.decision = data.kind === "replay" ? data.index : data.decision;
  status.dataset.over = data.over ? "1" : "0";
  if (data.over) status.textContent = `Game over: ${data.result}`;
  else if (data.kind === "play" && data.options.length) status.textContent = `Your decision: ${data.decision_name}`;
  else status.textContent = `${data.to_move} to decide: ${data.decision_name}`;
  if (data.message && data.kind === "play") say(data.message, true);
  $("options").innerHTML = "";
  for (const opt of data.options) {
    const li = document.createElement("li");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "option";
    button.dataset.action = opt.action;
    button.dataset.hexes = opt.hexes.join(" ");
    button.textContent = opt.label;
    button.addEventListener("click", () => act(opt.action));
    li.appendChild(button);
    $("options").appendChild(li);
  }
  $("tracks").innerHTML = "";
  for (const line of data.tracks) {
    const div = document.createElement("div");
    div.textContent = line;  // "[5]" here is a spent die, not a rule case
    $("tracks").appendChild(div);
  }
  $("events").innerHTML = "";
  for (const line of data.events.slice().reverse()) {  // newest first
    const li = document.createElement("li");
    withCases(li, line);
    $("events").appendChild(li);
  }
  if (data.kind === "replay") {
    $("timeline").value = data.index;
    $("position").textContent = `${data.index} / ${data.length}`;
    $("next-move").textContent = data.next_move ? `next: ${data.next_move}` : "end of the record";
  }
  if (data.kind === "watch" && data.over) runWatch(false);
}

async function act(action) {
  try {
    show(await call("POST", `/api/games/${session}/act`, { action, decision: view.decision }));
  } catch (err) {
    if (err.view) show({ ...err.view, session });
    say(err.message);
  }
}

// A click on the map picks the legal option that names that hex; when several do, the list shows them.
$("map").addEventListener("click", (e) => {
  if (!view || view.kind !== "play") return;
  const target = e.target.closest("[data-hex]");
  if (!target) return;
  const hex = target.dataset.hex;
  const items = [...document.querySelectorAll("#options li")];
  const naming = items.filter((li) => li.firstChild.dataset.hexes.split(" ").includes(hex));
  if (naming.length === 1) return act(Number(naming[0].firstChild.dataset.action));
  if (!naming.length) return say(`no legal option names hex ${hex}; choose from the list`);
  items.forEach((li) => li.classList.toggle("filtered-out", !naming.includes(li)));
  say(`hex ${hex} is named by ${naming.length} options: choose one in the list (click the map elsewhere to see all)`, true);
});
$("map").addEventListener("click", (e) => {
  if (!e.target.closest("[data-hex]")) for (const li of document.querySelectorAll("#options li")) li.classList.remove("filtered-out");
}, true);

$("undo").addEventListener("click", async () => {
  try {
    show(await call("POST", `/api/games/${session}/undo`));
  } catch (err) {
    say(err.message);
  }
});

// ------------------------------------------------------------------ watching
async function stepWatch() {
  if (document.body.dataset.busy === "1") return;
  try {
    show(await call("POST", `/api/games/${session}/step`, { count: 1 }));
  } catch (err) {
    runWatch(false);
    say(err.message);
  }
}

function runWatch(on) {
  clearInterval(timer);
  timer = null;
  if (on && !(view && view.over)) timer = setInterval(stepWatch, 1000 / Number($("speed").value));
  $("run").textContent = timer ? "Pause" : "Run";
}

$("run").addEventListener("click", () => runWatch(!timer));
$("step").addEventListener("click", () => { runWatch(false); stepWatch(); });
$("speed").addEventListener("input", () => {
  $("speed-text").textContent = $("speed").value;
  if (timer) runWatch(true);
});

// ------------------------------------------------------------------ replays
async function seek(index) {
  index = Math.max(0, Math.min(Number($("timeline").max), index));
  try {
    show(await call("GET", `/api/replays/${session}?index=${index}`));
  } catch (err) {
    say(err.message);
  }
}
$("timeline").addEventListener("change", () => seek(Number($("timeline").value)));
$("prev").addEventListener("click", () => seek(view.index - 1));
$("next").addEventListener("click", () => seek(view.index + 1));

showHome().catch((err) => say(err.message, false, "home-message"));
