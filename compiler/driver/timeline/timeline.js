// timeline.js: draws the run of one seed (the JSON in #oxl-run) as an SVG:
// a lane per node, tasks as spans, messages as arrows, partitions shaded,
// crashes and restarts marked, notes, and the failure at the end. Embedded
// in the page `oxl test --timeline` writes (docs/testing.md, Timeline);
// it loads nothing.
(function () {
  "use strict";
  var tStart = performance.now();
  var run = JSON.parse(document.getElementById("oxl-run").textContent);
  var SVGNS = "http://www.w3.org/2000/svg";
  var LABEL_W = 120, ROW_H = 14, LANE_PAD = 10, MARK_ROW = 18, TOP = 28, MAX_ROWS = 6;
  var zoom = 1, mode = "time", focusEvent = null, openTrace = false;
  var tip = document.getElementById("tip");
  // the view in the address: run.html#zoom=8&mode=steps opens as it was
  (location.hash || "").replace(/^#/, "").split("&").forEach(function (kv) {
    var p = kv.split("="), v = decodeURIComponent(p[1] || "");
    if (p[0] === "zoom" && +v >= 1) zoom = Math.min(2000, +v);
    if (p[0] === "mode" && (v === "time" || v === "steps")) mode = v;
    if (p[0] === "event" && /^[0-9]+$/.test(v)) focusEvent = v;
    if (p[0] === "trace") openTrace = true;
  });
  document.getElementById("mode").value = mode;
  function keepView() {
    try {
      history.replaceState(null, "", "#zoom=" + zoom + "&mode=" + mode + (focusEvent !== null ? "&event=" + focusEvent : ""));
    } catch (e) { /* a sandboxed file */ }
  }

  function fmtTime(ns) {
    var neg = ns < 0;
    if (neg) ns = -ns;
    var s = Math.floor(ns / 1e9), rest = ns % 1e9;
    var frac = String(rest).padStart(9, "0").replace(/0+$/, "");
    return (neg ? "-" : "") + s + (frac ? "." + frac : "") + "s";
  }

  // ---- the model: lanes, spans, messages, shaded intervals, marks ----
  var E = run.events.map(function (e) {
    return {index: e[0], time: e[1], seq: e[2], kind: e[3], node: e[4], peer: e[5], arg: e[6], label: e[7], site: e[8]};
  });
  var nodes = run.nodes;
  var WORLD = nodes.length; // the lane of the process and the test itself
  function lane(n) { return n < 0 ? WORLD : n; }
  var t0 = E.length ? E[0].time : 0, tEnd = Math.max(run.end_time, E.length ? E[E.length - 1].time : 0);
  if (tEnd <= t0) tEnd = t0 + 1;
  var lastIndex = E.length ? E[E.length - 1].index : 0, firstIndex = E.length ? E[0].index : 0;

  var TASK_MASK = Math.pow(2, 40);
  var spans = [], openTask = {};
  var msgs = [], sendBySeq = {};
  var shades = [], marks = [], downSince = {};
  var openCuts = [];
  E.forEach(function (e) {
    if (e.kind === "task") {
      var id = e.arg % TASK_MASK, key = e.node + "/" + id;
      if (e.label === "spawn") {
        var sp = {node: e.node, id: id, start: e, end: null, site: e.site, how: "alive at the end"};
        spans.push(sp);
        openTask[key] = sp;
      } else if (e.label === "done" || e.label === "cancel") {
        var o = openTask[key];
        if (o) { o.end = e; o.how = e.label === "done" ? "ended" : "cancelled"; delete openTask[key]; }
      }
    } else if (e.kind === "send" || e.kind === "duplicate") {
      var m = {from: e.node, to: e.peer, send: e, end: null, fate: "in flight at the end", dup: e.kind === "duplicate", bytes: e.arg};
      msgs.push(m);
      sendBySeq[e.seq] = m;
    } else if (e.kind === "deliver") {
      var d = sendBySeq[e.seq];
      if (d) { d.end = e; d.fate = "delivered"; delete sendBySeq[e.seq]; }
    } else if (e.kind === "drop") {
      var x = sendBySeq[e.seq];
      if (x) { x.end = e; x.fate = "dropped (" + ({1: "link cut", 2: "random drop", 3: "node down"}[e.arg] || "?") + ")"; x.dropped = true; delete sendBySeq[e.seq]; }
    } else if (e.kind === "partition" || e.kind === "block") {
      var sides = e.label.split(e.kind === "block" ? ">" : "|");
      var names = [];
      if (e.kind === "block" && !e.label) names = [nodes[e.node]];
      else sides.forEach(function (s) { s.split(",").forEach(function (n) { if (n) names.push(n); }); });
      var cut = {kind: e.kind, label: e.label || (nodes[e.node] + ">" + nodes[e.peer]), start: e.time,
                 end: e.arg > 0 ? e.time + e.arg : null, names: names, ev: e};
      shades.push(cut);
      if (cut.end === null) openCuts.push(cut);
    } else if (e.kind === "heal") {
      openCuts = openCuts.filter(function (c) {
        if (!e.label || e.label === c.label) { c.end = e.time; return false; }
        return true;
      });
      // a heal of every link also ends the timed cuts still in force
      shades.forEach(function (c) {
        if (c.kind !== "down" && !e.label && c.end !== null && c.end > e.time && c.start <= e.time) c.end = e.time;
      });
      marks.push({cls: "heal", ev: e, lane: WORLD, text: "heal " + (e.label || "all links")});
    } else if (e.kind === "kill") {
      downSince[e.node] = e.time;
      marks.push({cls: "crash", ev: e, lane: e.node, text: nodes[e.node] + " killed (incarnation " + e.arg + ")"});
      for (var k in openTask) {
        var t = openTask[k];
        if (t.node === e.node) { t.end = e; t.how = "killed with its node"; delete openTask[k]; }
      }
    } else if (e.kind === "start" || e.kind === "restart") {
      if (downSince[e.node] !== undefined) {
        shades.push({kind: "down", start: downSince[e.node], end: e.time, names: [nodes[e.node]], label: nodes[e.node] + " down"});
        delete downSince[e.node];
      }
      marks.push({cls: e.kind === "restart" ? "restart" : "boot", ev: e, lane: e.node,
                  text: nodes[e.node] + " " + (e.kind === "restart" ? "restarted" : "booted") + " (incarnation " + e.arg + ")"});
    } else if (e.kind === "note") {
      marks.push({cls: "note", ev: e, lane: lane(e.node), text: e.label});
    } else if (e.kind === "fail") {
      marks.push({cls: "fail", ev: e, lane: lane(e.node), text: "failed: " + e.label});
    } else if (e.kind === "rpc") {
      marks.push({cls: "rpc", ev: e, lane: lane(e.node), text: e.label + (e.peer >= 0 ? " with " + nodes[e.peer] : "")});
    } else if (e.kind === "disk" || e.kind === "skew" || e.kind === "net" || e.kind === "call") {
      marks.push({cls: "fault", ev: e, lane: lane(e.node),
                  text: e.kind + " " + (e.kind === "skew" ? (e.arg >= 0 ? "+" : "") + e.arg + "ns" : e.label) + (e.kind === "net" ? " = " + e.arg : "")});
    }
  });
  for (var n in downSince) shades.push({kind: "down", start: downSince[n], end: null, names: [nodes[n]], label: nodes[n] + " down"});

  // task rows inside a lane: greedy, first row free at the span's start
  var laneRows = [];
  for (var i = 0; i <= WORLD; i++) laneRows.push([]);
  spans.forEach(function (s) {
    var rows = laneRows[lane(s.node)], endIdx = s.end ? s.end.index : Infinity, r = 0;
    while (r < rows.length && rows[r] >= s.start.index) r++;
    if (r >= MAX_ROWS) r = MAX_ROWS - 1;
    rows[r] = endIdx;
    s.row = r;
  });
  var laneY = [], y = TOP;
  for (i = 0; i <= WORLD; i++) {
    var nrows = Math.max(1, Math.min(MAX_ROWS, laneRows[i].length));
    laneY.push({top: y, h: LANE_PAD * 2 + MARK_ROW + nrows * ROW_H});
    y += laneY[i].h;
  }
  var height = y + 24;
  function midY(l) { return laneY[l].top + LANE_PAD + MARK_ROW / 2; }

  // ---- drawing ----
  function el(name, attrs, parent, text) {
    var x = document.createElementNS(SVGNS, name);
    for (var a in attrs) x.setAttribute(a, attrs[a]);
    if (text !== undefined) x.textContent = text;
    if (parent) parent.appendChild(x);
    return x;
  }
  // the details shown on hover (#tip); no <title> as well: a second copy
  // of every text would double a large page's DOM
  function info(x, text) {
    x.setAttribute("data-info", text);
    return x;
  }

  function draw() {
    var wrap = document.getElementById("chart");
    var width = Math.max(600, (wrap.clientWidth || 1200) - 4) * zoom;
    var plotW = width - LABEL_W - 20;
    function X(e) {
      if (mode === "steps") return LABEL_W + plotW * ((e.index - firstIndex) / Math.max(1, lastIndex - firstIndex));
      return LABEL_W + plotW * ((e.time - t0) / (tEnd - t0));
    }
    function XT(t) { // a time without an event: between the events around it
      if (mode === "time") return LABEL_W + plotW * ((t - t0) / (tEnd - t0));
      var lo = 0, hi = E.length;
      while (lo < hi) { var mid = (lo + hi) >> 1; if (E[mid].time < t) lo = mid + 1; else hi = mid; }
      return lo >= E.length ? LABEL_W + plotW : X(E[lo]);
    }
    wrap.textContent = "";
    var svg = el("svg", {id: "timeline", width: width, height: height, viewBox: "0 0 " + width + " " + height}, wrap);
    var gl = el("g", {"class": "lanes"}, svg);
    for (var l = 0; l <= WORLD; l++) {
      var L = laneY[l], name = l === WORLD ? "(test)" : nodes[l];
      var g = el("g", {"class": l === WORLD ? "lane world" : "lane", "data-node": name}, gl);
      el("rect", {"class": "lane-bg", x: 0, y: L.top, width: width, height: L.h}, g);
      el("text", {"class": "lane-name", x: 6, y: L.top + L.h / 2 + 4}, g, name);
      el("line", {"class": "lane-axis", x1: LABEL_W, x2: width - 10, y1: midY(l), y2: midY(l)}, g);
    }
    var gs = el("g", {"class": "shades"}, svg);
    shades.forEach(function (c) {
      var x1 = XT(c.start), x2 = c.end === null ? XT(tEnd) : XT(c.end);
      c.names.forEach(function (nm) {
        var li = nodes.indexOf(nm);
        if (li < 0) return;
        var L = laneY[li];
        info(el("rect", {"class": c.kind === "down" ? "down" : c.kind, x: x1, y: L.top + 1, width: Math.max(2, x2 - x1), height: L.h - 2}, gs),
             (c.kind === "down" ? c.label : c.kind + " " + c.label) + " from " + fmtTime(c.start) + " to " + (c.end === null ? "the end" : fmtTime(c.end)));
      });
    });
    var gt = el("g", {"class": "tasks"}, svg);
    spans.forEach(function (s) {
      var L = laneY[lane(s.node)], x1 = X(s.start), x2 = s.end ? X(s.end) : LABEL_W + plotW;
      var yy = L.top + LANE_PAD + MARK_ROW + s.row * ROW_H;
      info(el("rect", {"class": "task" + (s.end ? "" : " alive"), "data-event": s.start.index, "data-end": s.end ? s.end.index : "", x: x1, y: yy + 1, width: Math.max(2, x2 - x1), height: ROW_H - 3, rx: 2}, gt),
           "task " + s.id + " on " + (s.node < 0 ? "the process" : nodes[s.node]) + (s.site && s.site !== "-" ? ", spawned at " + s.site : "") +
           "\nfrom " + fmtTime(s.start.time) + " to " + (s.end ? fmtTime(s.end.time) : "the end") + ": " + s.how);
    });
    var gm = el("g", {"class": "messages"}, svg);
    msgs.forEach(function (m) {
      var x1 = X(m.send), y1 = midY(lane(m.from)), y2 = midY(lane(m.to));
      var x2 = m.end ? X(m.end) : LABEL_W + plotW;
      if (m.dropped && m.end && m.end.time === m.send.time) { // dropped at the send: half way, then a cross
        x2 = x1 + 24; y2 = y1 + (y2 - y1) / 2;
      }
      var cls = "msg" + (m.dropped ? " dropped" : "") + (m.dup ? " duplicate" : "") + (m.end ? "" : " inflight");
      var g = info(el("g", {"class": cls, "data-event": m.send.index, "data-end": m.end ? m.end.index : ""}, gm),
                   (m.dup ? "duplicate of a message " : "message ") + nodes[m.from] + " -> " + nodes[m.to] + " (" + m.bytes + " bytes), sent at " +
                   fmtTime(m.send.time) + ": " + m.fate + (m.end ? " at " + fmtTime(m.end.time) : ""));
      el("line", {x1: x1, y1: y1, x2: x2, y2: y2, "marker-end": m.dropped ? "" : "url(#arrow)"}, g);
      if (m.dropped) {
        el("path", {"class": "drop-x", d: "M" + (x2 - 4) + " " + (y2 - 4) + " l8 8 m0 -8 l-8 8"}, g);
      }
    });
    var defs = el("defs", {}, svg);
    var mk = el("marker", {id: "arrow", viewBox: "0 0 10 10", refX: 10, refY: 5, markerWidth: 6, markerHeight: 6, orient: "auto-start-reverse"}, defs);
    el("path", {d: "M0 0 L10 5 L0 10 z", "class": "arrow-head"}, mk);
    var gk = el("g", {"class": "marks"}, svg);
    marks.forEach(function (k) {
      var x = X(k.ev), yy = midY(k.lane), g = info(el("g", {"class": "mark " + k.cls, "data-event": k.ev.index}, gk), fmtTime(k.ev.time) + " " + k.text);
      if (k.cls === "crash") el("path", {d: "M" + (x - 6) + " " + (yy - 6) + " l12 12 m0 -12 l-12 12"}, g);
      else if (k.cls === "restart" || k.cls === "boot") el("path", {d: "M" + x + " " + (yy - 7) + " l6 10 l-12 0 z"}, g);
      else if (k.cls === "note") { el("path", {d: "M" + x + " " + (yy + 6) + " l0 -14 l8 3 l-8 3"}, g); }
      else if (k.cls === "rpc") el("circle", {cx: x, cy: yy, r: 2.5}, g);
      else el("rect", {x: x - 3, y: yy - 3, width: 6, height: 6}, g);
    });
    // the end: the failure (or a pass), across every lane
    var xe = LABEL_W + plotW, failed = run.status !== "finished";
    var ge = info(el("g", {id: failed ? "failure" : "end", "class": failed ? "failure" : "end-ok"}, svg),
                  (failed ? "the run failed (" + run.status + ") at " : "the run finished at ") + fmtTime(run.end_time) +
                  (run.headline ? "\n" + run.headline : ""));
    el("line", {x1: xe, x2: xe, y1: TOP - 6, y2: height - 20}, ge);
    el("text", {x: xe - 4, y: TOP - 10, "text-anchor": "end"}, ge, failed ? "\u2716 " + (run.headline || run.status) : "\u2714 finished");
    // the time axis
    var ga = el("g", {"class": "axis"}, svg), ticks = 8;
    for (i = 0; i <= ticks; i++) {
      var xx = LABEL_W + plotW * i / ticks, label;
      if (mode === "time") label = fmtTime(Math.round(t0 + (tEnd - t0) * i / ticks));
      else { var ev = E[Math.min(E.length - 1, Math.round((E.length - 1) * i / ticks))]; label = ev ? "#" + ev.index + " " + fmtTime(ev.time) : ""; }
      el("line", {x1: xx, x2: xx, y1: height - 22, y2: height - 16}, ga);
      el("text", {x: xx, y: height - 4, "text-anchor": i === 0 ? "start" : i === ticks ? "end" : "middle"}, ga, label);
    }
    document.getElementById("zoom-level").textContent = Math.round(zoom * 100) + "%";
  }

  // ---- hover, zoom, the axis mode ----
  document.addEventListener("mouseover", function (ev) {
    var t = ev.target.closest ? ev.target.closest("[data-info]") : null;
    if (!t) { tip.style.display = "none"; return; }
    tip.textContent = t.getAttribute("data-info");
    tip.style.display = "block";
  });
  document.addEventListener("mousemove", function (ev) {
    tip.style.left = (ev.pageX + 14) + "px";
    tip.style.top = (ev.pageY + 14) + "px";
  });
  function setZoom(z, anchorFrac) {
    var wrap = document.getElementById("chart");
    var before = (wrap.scrollLeft + (anchorFrac || 0.5) * wrap.clientWidth) / Math.max(1, wrap.scrollWidth);
    zoom = Math.max(1, Math.min(2000, z));
    draw();
    keepView();
    wrap.scrollLeft = before * wrap.scrollWidth - (anchorFrac || 0.5) * wrap.clientWidth;
  }
  document.getElementById("zoom-in").onclick = function () { setZoom(zoom * 2); };
  document.getElementById("zoom-out").onclick = function () { setZoom(zoom / 2); };
  document.getElementById("zoom-fit").onclick = function () { setZoom(1); };
  document.getElementById("mode").onchange = function (ev) { mode = ev.target.value; draw(); keepView(); };
  document.getElementById("chart").addEventListener("wheel", function (ev) {
    if (!ev.ctrlKey && !ev.altKey) return;
    ev.preventDefault();
    var wrap = document.getElementById("chart"), r = wrap.getBoundingClientRect();
    setZoom(zoom * (ev.deltaY < 0 ? 1.25 : 0.8), (ev.clientX - r.left) / Math.max(1, r.width));
  }, {passive: false});
  window.addEventListener("resize", draw);
  var t1 = performance.now();
  document.body.setAttribute("data-model-ms", String(Math.round(t1 - tStart)));
  draw();
  document.body.setAttribute("data-draw-ms", String(Math.round(performance.now() - t1)));
  // #event=N: the mark, arrow or span of trace event N, scrolled to,
  // outlined and its details shown (a link to one moment of the run)
  function focus() {
    if (focusEvent === null) return;
    var x = document.querySelector('[data-event="' + focusEvent + '"]') || document.querySelector('[data-end="' + focusEvent + '"]');
    if (!x) return;
    x.classList.add("focus");
    var box = x.getBoundingClientRect(), wrap = document.getElementById("chart");
    wrap.scrollLeft += box.left - wrap.getBoundingClientRect().left - wrap.clientWidth / 2;
    box = x.getBoundingClientRect();
    tip.textContent = "#" + focusEvent + ": " + x.getAttribute("data-info");
    tip.style.display = "block";
    tip.style.left = (box.right + window.scrollX + 8) + "px";
    tip.style.top = (box.bottom + window.scrollY + 8) + "px";
  }
  focus();

  // the trace as text, one event a line as the trace tail prints it,
  // written when its section is first opened
  function nodeName(n) { return n < 0 ? "-" : nodes[n]; }
  function describe(e) {
    var who = nodeName(e.node), peer = nodeName(e.peer);
    switch (e.kind) {
    case "send": case "duplicate": return who + " -> " + peer + " (" + e.arg + " bytes)";
    case "deliver": return peer + " -> " + who + " (" + e.arg + " bytes)";
    case "drop": return who + " -> " + peer + " (" + ({1: "link cut", 2: "random drop", 3: "node down"}[e.arg] || "?") + ")";
    case "kill": case "start": case "restart": return who + " (incarnation " + e.arg + ")";
    case "task": return e.label + " task " + (e.arg % TASK_MASK) + " on " + (e.node < 0 ? "process" : who) +
                        (e.site && e.site !== "-" ? " (" + e.site + ")" : "");
    case "net": return e.label + " = " + e.arg;
    case "rpc": return who + ": " + e.label + (e.peer >= 0 ? " with " + peer : "");
    case "partition": case "heal": return e.label || "all links";
    default: return (e.node < 0 ? "" : who + ": ") + e.label;
    }
  }
  var list = document.getElementById("events");
  if (list) list.addEventListener("toggle", function () {
    var pre = document.getElementById("event-list");
    if (!list.open || pre.textContent) return;
    pre.textContent = E.map(function (e) {
      return "#" + e.index + " @" + fmtTime(e.time) + " " + (e.kind + "         ").slice(0, 9) + " " + describe(e);
    }).join("\n");
  });
  if (list && openTrace) list.open = true; // #trace: the list open (its toggle fills it)
  document.body.setAttribute("data-rendered", "yes");
})();
