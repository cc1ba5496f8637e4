"""The live page `WebSignals` serves: one self-contained HTML document, nothing fetched.

The script opens an `EventSource` on ``events`` and redraws from each state it receives (the
JSON of `WebSignals.state`): the verdict's colour, label and text, the board with the lights
marked, and the recent log. Text from the referee is set with `textContent`, never parsed as
HTML. The board is White's view from the LED strip's side (`referee.signals.indication`): points
13..24 along the far edge from left to right, 12..1 along the near edge, the bar between the
halves and the bear-off tray on the right.
"""

from __future__ import annotations

PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Nardy referee</title>
<style>
:root { --green: #2e9d4a; --red: #d0342c; --amber: #f2a51a; --off: #4a4d52; }
body { margin: 0; font: 16px/1.4 system-ui, sans-serif; background: #1d1f21; color: #eee; }
#verdict { padding: 1rem 1.25rem; background: var(--off); color: #111; }
#verdict.green { background: var(--green); }
#verdict.red { background: var(--red); }
#verdict.amber { background: var(--amber); }
#verdict.off { color: #ddd; }
.stale #verdict { opacity: 0.45; }
#label { font-size: 2.4rem; font-weight: 800; letter-spacing: 0.05em; }
#message { font-size: 1.3rem; white-space: pre-wrap; }
#where { font-weight: 600; }
main { padding: 1rem 1.25rem; max-width: 60rem; }
svg { display: block; width: 100%; height: auto; }
svg text { fill: #bbb; font-size: 13px; text-anchor: middle; }
.felt { fill: #2f5d3a; }
.light { fill: #d9c7a0; }
.dark { fill: #8a5a3c; }
.bar, .tray { fill: #5a3a26; }
[data-mark] { stroke: #fff; stroke-width: 3; }
[data-mark="red"] { fill: var(--red); }
[data-mark="amber"] { fill: var(--amber); }
[data-mark="green"], [data-mark="dest"] { fill: var(--green); }
[data-mark="dest"] { stroke-dasharray: 5 3; }
.swatch { display: inline-block; width: 0.9em; height: 0.9em; vertical-align: middle;
  border: 2px solid #fff; margin: 0 0.3em 0 1em; }
#legend .dest { background: var(--green); border-style: dashed; }
#legend .mark { background: var(--red); }
#log { list-style: none; padding: 0; font-family: ui-monospace, monospace; font-size: 0.9rem; }
#log li { padding: 0.2rem 0.5rem; margin: 0.15rem 0; border-left: 6px solid var(--off); }
#log li.green { border-color: var(--green); }
#log li.red { border-color: var(--red); }
#log li.amber { border-color: var(--amber); }
#link { color: #999; font-size: 0.85rem; }
</style>
</head>
<body class="stale">
<header id="verdict" class="off">
<div id="label">&hellip;</div>
<div id="message"></div>
<div id="where"></div>
</header>
<main>
<svg id="board" viewBox="0 0 562 296" role="img" aria-label="the board"></svg>
<p id="legend"><span class="swatch mark"></span>the point at issue<span id="teaching"><span
class="swatch dest"></span>where the throw can go</span></p>
<h2>Recent</h2>
<ol id="log"></ol>
<p id="link">connecting&hellip;</p>
</main>
<script>
"use strict";
const W = 40, BAR = 30, TRAY = 44, TOP = 22, H = 250, TIP = 105;
const SVG = "http://www.w3.org/2000/svg";
const board = document.getElementById("board");
const lights = {};

function column(p) { return p >= 13 ? p - 13 : 12 - p; }
function left(p) { const c = column(p); return c * W + (c >= 6 ? BAR : 0); }
function name(light) { return light === 0 ? "off" : light === 25 ? "bar" : String(light); }
function draw(tag, attributes, text) {
  const element = document.createElementNS(SVG, tag);
  for (const key in attributes) element.setAttribute(key, attributes[key]);
  if (text !== undefined) element.textContent = text;
  board.appendChild(element);
  return element;
}

draw("rect", {x: 0, y: TOP, width: 12 * W + BAR, height: H, class: "felt"});
for (let p = 1; p <= 24; p++) {
  const x = left(p), far = p >= 13;
  const base = far ? TOP : TOP + H, tip = far ? TOP + TIP : TOP + H - TIP;
  lights[p] = draw("polygon", {
    points: `${x + 2},${base} ${x + W - 2},${base} ${x + W / 2},${tip}`,
    class: column(p) % 2 ? "dark" : "light",
  });
  draw("text", {x: x + W / 2, y: far ? TOP - 7 : TOP + H + 17}, p);
}
lights[25] = draw("rect", {x: 6 * W, y: TOP, width: BAR, height: H, class: "bar"});
draw("text", {x: 6 * W + BAR / 2, y: TOP + H + 17}, "bar");
lights[0] = draw("rect", {x: 12 * W + BAR + 8, y: TOP, width: TRAY, height: H, class: "tray"});
draw("text", {x: 12 * W + BAR + 8 + TRAY / 2, y: TOP + H + 17}, "off");

function render(state) {
  document.getElementById("verdict").className = state.colour;
  document.getElementById("label").textContent = state.label;
  document.getElementById("message").textContent = state.message;
  const where = [];
  if (state.points.length) {
    const noun = state.points.length === 1 ? "point " : "points ";
    where.push(noun + state.points.map(name).join(", "));
  }
  if (state.destinations.length) where.push("legal: " + state.destinations.map(name).join(", "));
  if (state.confidence !== null) where.push(Math.round(state.confidence * 100) + "% sure");
  document.getElementById("where").textContent = where.join(" \\u00b7 ");
  for (const light in lights) lights[light].removeAttribute("data-mark");
  // The point at issue is marked after the destinations: its colour wins on a shared light.
  for (const light of state.destinations) lights[light].setAttribute("data-mark", "dest");
  for (const light of state.points) lights[light].setAttribute("data-mark", state.colour);
  document.getElementById("teaching").hidden = !state.teaching;
  document.getElementById("log").replaceChildren(...state.log.map((entry) => {
    const item = document.createElement("li");
    item.className = entry.colour;
    item.textContent = entry.time + "  " + entry.text;
    return item;
  }));
  document.title = state.label + " \\u2013 nardy referee";
}

const link = document.getElementById("link");
const events = new EventSource("events");
events.onmessage = (event) => render(JSON.parse(event.data));
events.onopen = () => { document.body.classList.remove("stale"); link.textContent = "live"; };
events.onerror = () => {
  // The browser reconnects by itself; until then the verdict shown may be out of date.
  document.body.classList.add("stale");
  link.textContent = "connection lost: reconnecting\\u2026";
};
</script>
</body>
</html>
"""
"""The page at ``/``."""
