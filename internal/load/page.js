// Draws the report's charts as SVG from the run's data (the JSON of
// mcpv load --format json, in #report-data). Every text from the run is
// set as text, never as markup.
"use strict";
(function () {
  const NS = "http://www.w3.org/2000/svg";
  const report = JSON.parse(document.getElementById("report-data").textContent);
  const $ = (id) => document.getElementById(id);
  const el = (name, attrs, parent) => {
    const e = document.createElementNS(NS, name);
    for (const k in attrs) e.setAttribute(k, attrs[k]);
    if (parent) parent.appendChild(e);
    return e;
  };
  const text = (parent, x, y, s, anchor, cls) => {
    const t = el("text", { x, y, "text-anchor": anchor || "start", class: cls || "axis" }, parent);
    t.textContent = s;
    return t;
  };
  const ms = (v) => v < 1 ? Math.round(v * 1000) + "µs" : v < 1000 ? (+v.toPrecision(3)) + "ms" : (+(v / 1000).toPrecision(3)) + "s";
  const num = (v) => v >= 100 ? Math.round(v).toLocaleString("en") : (+v.toPrecision(3)).toString();
  const pct = (v) => (+(v * 100).toPrecision(3)) + "%";
  function niceMax(v) {
    if (!(v > 0)) return 1;
    const p = Math.pow(10, Math.floor(Math.log10(v)));
    for (const m of [1, 2, 2.5, 5, 10]) if (m * p >= v) return m * p;
    return 10 * p;
  }
  // frame draws axes for x in [0, xmax] and y in [0, ymax]; it returns
  // the scales.
  function frame(svg, xmax, ymax, fy, xlabel) {
    const W = 760, H = 240, L = 64, R = 12, T = 12, B = 34;
    svg.setAttribute("viewBox", `0 0 ${W} ${H}`);
    const sx = (x) => L + (W - L - R) * (xmax > 0 ? x / xmax : 0);
    const sy = (y) => H - B - (H - T - B) * (ymax > 0 ? y / ymax : 0);
    for (let i = 0; i <= 4; i++) {
      const y = ymax * i / 4;
      el("line", { x1: L, x2: W - R, y1: sy(y), y2: sy(y), class: "grid" }, svg);
      text(svg, L - 6, sy(y) + 4, fy(y), "end");
    }
    for (let i = 0; i <= 5; i++) {
      const x = xmax * i / 5;
      text(svg, sx(x), H - B + 16, num(x) + (i === 5 ? xlabel : ""), "middle");
    }
    return { sx, sy };
  }
  function poly(points) { return points.map((p) => p[0].toFixed(1) + "," + p[1].toFixed(1)).join(" "); }
  function band(svg, s, tl, lo, hi, cls) {
    const pts = tl.filter((p) => p.ok > 0);
    if (pts.length === 0) return;
    const top = pts.map((p) => [s.sx(p.t_s), s.sy(p[hi])]);
    const bottom = pts.slice().reverse().map((p) => [s.sx(p.t_s), s.sy(lo ? p[lo] : 0)]);
    el("polygon", { points: poly(top.concat(bottom)), class: cls }, svg);
  }
  function line(svg, s, pts, key, cls, per) {
    const ps = pts.map((p) => [s.sx(p.t_s), s.sy(per ? p[key] / (p.span_s || 1) : p[key])]);
    el("polyline", { points: poly(ps), class: cls }, svg);
  }
  function legend(svg, items) {
    items.forEach(([cls, label], i) => {
      el("rect", { x: 80 + i * 120, y: 2, width: 12, height: 8, class: cls }, svg);
      text(svg, 96 + i * 120, 10, label, "start", "legend");
    });
  }
  function latencyChart() {
    const svg = $("latency"), tl = report.timeline || [];
    const tmax = tl.length ? tl[tl.length - 1].t_s : report.elapsed_s;
    const ymax = niceMax(Math.max(0, ...tl.map((p) => p.p99_ms)) * 1.05);
    const s = frame(svg, tmax, ymax, ms, "s");
    band(svg, s, tl, "p90_ms", "p99_ms", "band99");
    band(svg, s, tl, "p50_ms", "p90_ms", "band90");
    band(svg, s, tl, null, "p50_ms", "band50");
    const ok = tl.filter((p) => p.ok > 0);
    line(svg, s, ok, "p50_ms", "p50");
    for (const p of ok) if (p.max_ms > ymax) el("circle", { cx: s.sx(p.t_s), cy: s.sy(ymax), r: 2.5, class: "over" }, svg);
    legend(svg, [["band50", "≤ p50"], ["band90", "p50–p90"], ["band99", "p90–p99"]]);
    svg.dataset.points = ok.length;
  }
  function rateChart() {
    const svg = $("rate"), tl = report.timeline || [];
    const tmax = tl.length ? tl[tl.length - 1].t_s : report.elapsed_s;
    const per = (p, k) => p[k] / (p.span_s || 1);
    const ymax = niceMax(Math.max(0, ...tl.map((p) => per(p, "ok") + per(p, "errors"))) * 1.05);
    const s = frame(svg, tmax, ymax, num, "s");
    let bars = 0;
    for (const p of tl) {
      if (p.errors > 0) {
        const w = Math.max(2, s.sx(p.span_s) - s.sx(0));
        el("rect", { x: s.sx(p.t_s) - w, y: s.sy(per(p, "errors")), width: w, height: s.sy(0) - s.sy(per(p, "errors")), class: "errors" }, svg);
        bars++;
      }
    }
    line(svg, s, tl, "ok", "ok", true);
    legend(svg, [["okkey", "ok a second"], ["errors", "errors a second"]]);
    svg.dataset.points = tl.length;
    svg.dataset.errorBars = bars;
  }
  function histogramChart() {
    const svg = $("histogram"), hs = report.histogram || [];
    if (hs.length === 0) { svg.dataset.points = 0; return; }
    const lo = Math.max(hs[0].from_ms, 0.001), hi = hs[hs.length - 1].to_ms;
    const n = 40, f = Math.pow(hi / lo, 1 / n) > 1.0001 ? Math.pow(hi / lo, 1 / n) : 0;
    const bins = new Array(f ? n : 1).fill(0);
    for (const b of hs) {
      const mid = Math.max((b.from_ms + b.to_ms) / 2, lo);
      const i = f ? Math.min(n - 1, Math.max(0, Math.floor(Math.log(mid / lo) / Math.log(f)))) : 0;
      bins[i] += b.count;
    }
    const ymax = niceMax(Math.max(...bins) * 1.05);
    const s = frame(svg, bins.length, ymax, num, "");
    svg.querySelectorAll("text[text-anchor=middle]").forEach((t) => t.remove());
    bins.forEach((c, i) => {
      if (c === 0) return;
      el("rect", { x: s.sx(i) + 1, y: s.sy(c), width: Math.max(1, s.sx(1) - s.sx(0) - 2), height: s.sy(0) - s.sy(c), class: "bar" }, svg);
    });
    for (let i = 0; i <= bins.length; i += Math.max(1, Math.floor(bins.length / 5))) {
      text(svg, s.sx(i), 240 - 34 + 16, ms(f ? lo * Math.pow(f, i) : (i ? hi : lo)), "middle");
    }
    svg.dataset.points = bins.filter((c) => c > 0).length;
  }
  function table(id, head, rows) {
    const t = $(id);
    if (!rows.length) { t.closest("section").hidden = true; return; }
    const tr = t.createTHead().insertRow();
    for (const h of head) { const th = document.createElement("th"); th.textContent = h; tr.appendChild(th); }
    const body = t.createTBody();
    for (const r of rows) {
      const row = body.insertRow();
      for (const c of r) row.insertCell().textContent = c;
    }
  }
  const stats = (s) => s && s.count ? [ms(s.min), ms(s.p50), ms(s.p90), ms(s.p99), ms(s["p99.9"]), ms(s.max), ms(s.mean), s.count.toLocaleString("en")] : ["-", "-", "-", "-", "-", "-", "-", "0"];
  try {
    const what = report.scenario ? "scenario " + report.scenario : report.operations.map((o) => o.name).join(", ");
    $("title").textContent = "mcpv load: " + what;
    $("summary").textContent = `${report.iterations.toLocaleString("en")} iterations (${num(report.throughput)}/s) · ok ${report.ok.toLocaleString("en")} · errors ${report.errors.toLocaleString("en")} (${pct(report.error_rate)}) · ${num(report.elapsed_s)}s` + (report.interrupted ? " (interrupted)" : "");
    latencyChart();
    rateChart();
    histogramChart();
    const main = report.scenario ? "scenario (a whole pass)" : "operation";
    const rows = [[main, ...stats(report.latency_ms), "", ""]];
    if (report.operations.length > 1 || report.scenario) for (const o of report.operations) rows.push(["  " + o.name, ...stats(o.latency_ms), o.ok.toLocaleString("en"), o.errors.toLocaleString("en")]);
    rows.push(["session set-up", ...stats(report.setup_ms), "", ""], ["session close", ...stats(report.close_ms), "", ""]);
    table("steps", ["", "min", "p50", "p90", "p99", "p99.9", "max", "mean", "count", "ok", "errors"], rows);
    table("errors", ["count", "phase", "kind", "in", "first message"], (report.error_kinds || []).map((e) => [e.count.toLocaleString("en"), e.phase, e.kind, e.operation || "", e.example]));
    table("thresholds", ["", "threshold", "found"], (report.thresholds || []).map((c) => [c.ok ? "ok" : "FAILED", c.threshold, c.shown]));
    const b = report.baseline;
    table("baseline", ["figure", "now", "baseline", "change"], b ? b.figures.map((f) => {
      const show = (v) => f.unit === "ms" ? ms(v) : f.unit === "us" ? ms(v / 1000) : f.unit === "/s" ? num(v) + "/s" : pct(v);
      return [f.metric, show(f.value), show(f.baseline), f.change === undefined ? "-" : (f.change >= 0 ? "+" : "") + pct(f.change)];
    }) : []);
    const sr = report.search;
    table("search", ["rate asked", "achieved", "p50", "p99", "errors", ""], sr ? sr.curve.map((p) => [num(p.rate) + "/s", num(p.achieved) + "/s", ms(p.p50_ms), ms(p.p99_ms), pct(p.error_rate), p.held ? "held" : "crossed: " + (p.crossed || []).join("; ")]) : []);
    if (sr) $("search-max").textContent = sr.max_rate > 0 ? `The highest rate that held: ${num(sr.max_rate)}/s (${sr.limits.join(", ")}).` : "No rate held.";
    const lg = report.logs;
    table("logs", ["level", "messages"], lg ? Object.keys(lg.levels).map((k) => [k, lg.levels[k].toLocaleString("en")]) : []);
    const settings = [["started", report.started], ["schedule", report.schedule], ["sessions", `${report.concurrency} at most, ${report.sessions}`], ["elapsed", num(report.elapsed_s) + "s"], ["seed", String(report.seed)]];
    if (report.data) settings.push(["data", `${report.data.file} (${report.data.rows} rows, ${report.data.order})`]);
    if (report.cpu && report.cpu.known) settings.push(["mcpv's CPU", `${num(report.cpu.cores)} of ${report.cpu.machine_cores} cores, ${ms(report.cpu.per_iteration_us / 1000)} an iteration` + (report.cpu.saturated ? " (saturated)" : "")]);
    for (const [k, v] of Object.entries(JSON.parse(document.getElementById("settings-data").textContent))) settings.push([k, v]);
    table("settings", ["", ""], settings);
    document.body.dataset.rendered = "yes";
  } catch (e) {
    document.body.dataset.errors = String(e);
    throw e;
  }
})();
