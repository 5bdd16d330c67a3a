// privdtol explorer (privdtol.report.html.explorer): the view "regret against T", its controls and
// curves.  Reads the page's inline JSON (#explorer-data): cells (parameters, exact or not,
// Theorem 1's bound, horizons T, mean, interval lo..hi), algorithm styles.  Plotly draws.  The
// tabs, the other views and the claims table: explorer_views.js.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("explorer-data").textContent);
  const $ = (id) => document.getElementById(id);
  const NAMES = { env: "loss", instance: "instance", K: "K", gap: "Δmin", epsilon: "ε",
    eta: "η", rho: "ρ", kappa: "κ", mu_best: "μ*", estimator: "estimator" };
  const FILTERS = ["env", "K", "gap", "epsilon"];

  const fmt = (v) => (v === null ? "–" : typeof v === "number" ? String(+v.toPrecision(6)) : v);
  // a cell's Δmin, ε or η: an exact power of two below 1 or above 16 as a power ("2⁻⁶", not
  // "0.015625"), as the figures' axes label them (privdtol.plotting.style.pow2_label)
  const SUPERSCRIPTS = { "-": "⁻", 0: "⁰", 1: "¹", 2: "²", 3: "³", 4: "⁴", 5: "⁵", 6: "⁶",
    7: "⁷", 8: "⁸", 9: "⁹" };
  function param(v) {
    if (typeof v !== "number" || !(v > 0)) return fmt(v);
    const k = Math.round(Math.log2(v));
    if (2 ** k !== v || (k >= 0 && k <= 4)) return fmt(v);
    return "2" + [...String(k)].map((c) => SUPERSCRIPTS[c]).join("");
  }
  // shared with explorer_views.js (the searches' selector, the proof's hover)
  window.privdtolExplorer = { param };
  const PARAMS = new Set(["gap", "epsilon", "eta"]);
  const show = (p, v) => (PARAMS.has(p) ? param(v) : fmt(v));
  // Plotly's labels are its own small HTML: a string from a table is escaped before it goes
  // there (the page's own elements get text, never markup)
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  const unique = (xs) => [...new Set(xs)].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const experiment = () => JSON.parse($("experiment").value);
  const ofExperiment = () => DATA.cells.filter((c) => c.experiment === experiment());
  const algorithmOrder = DATA.order;  // the registry's order, controls last

  function fillSelect(el, values, keep) {
    const previous = keep ? el.value : null;
    el.replaceChildren();
    for (const v of values) {
      const o = document.createElement("option");
      o.value = JSON.stringify(v);
      o.textContent = show(el.id, v);
      el.appendChild(o);
    }
    const kept = values.map((v) => JSON.stringify(v)).indexOf(previous);
    el.selectedIndex = kept >= 0 ? kept : 0;
    el.disabled = values.length <= 1;
  }

  function fillAlgorithms(cells) {
    const box = $("algorithms");
    const checked = new Set([...box.querySelectorAll("input:checked")].map((i) => i.value));
    box.querySelectorAll("label").forEach((l) => l.remove());
    const present = unique(cells.map((c) => c.algorithm));
    const algs = algorithmOrder.filter((a) => present.includes(a));
    const keep = algs.some((a) => checked.has(a));
    for (const a of algs) {
      const label = document.createElement("label");
      const input = document.createElement("input");
      input.type = "checkbox";
      input.name = "algorithm";
      input.value = a;
      input.checked = keep ? checked.has(a) : true;
      input.addEventListener("change", () => refill(0));
      const sw = document.createElement("span");
      sw.className = "swatch";
      sw.style.background = DATA.algorithms[a].colour;
      label.append(input, sw, DATA.algorithms[a].name);
      box.appendChild(label);
    }
  }

  const chosen = (f) => ($(f).value ? JSON.parse($(f).value) : null);
  const matches = (c, filters) =>
    filters.every((f) => c[f] === null || chosen(f) === null || c[f] === chosen(f));
  const checkedAlgorithms = () =>
    new Set([...document.querySelectorAll("input[name=algorithm]:checked")].map((i) => i.value));

  // The filters cascade (loss model, K, Δmin, ε): each offers the values of the checked
  // algorithms' cells that match the filters before it, keeping its choice when still offered.
  function refill(from) {
    const algs = checkedAlgorithms();
    const cells = ofExperiment().filter((c) => algs.has(c.algorithm));
    for (let i = from; i < FILTERS.length; i++) {
      const f = FILTERS[i];
      const before = cells.filter((c) => matches(c, FILTERS.slice(0, i)));
      // a non-private algorithm has no ε: it is shown for every ε, and offers none
      fillSelect($(f), unique(before.map((c) => c[f]).filter((v) => v !== null)), true);
    }
    draw();
  }

  function onExperiment() {
    fillAlgorithms(ofExperiment());
    refill(0);
  }

  function selection() {
    const algs = checkedAlgorithms();
    const rank = (c) => algorithmOrder.indexOf(c.algorithm);
    return ofExperiment().filter((c) => algs.has(c.algorithm) && matches(c, FILTERS))
      .sort((a, b) => rank(a) - rank(b));  // stable: the cells' order within an algorithm
  }

  function describe(cell, varying) {
    const shown = ["env", "instance", "K", "gap", "epsilon", "eta", "rho", "kappa", "mu_best"]
      .filter((p) => cell[p] !== null)
      .map((p) => `${NAMES[p]} = ${show(p, cell[p])}`);
    const how = cell.exact ? "exact" : `Monte Carlo, ${cell.runs} runs (${cell.estimator})`;
    const extra = varying.filter((p) => cell[p] !== null).map((p) => `${NAMES[p]}=${show(p, cell[p])}`);
    const name = DATA.algorithms[cell.algorithm].name + (extra.length ? `, ${extra.join(", ")}` : "");
    return { name: esc(name),
      text: `${esc(cell.experiment)} · ${esc(shown.join(", "))}<br>${esc(how)} · cell ${esc(cell.id)}` };
  }

  function traces(cells) {
    // a legend names the parameters that tell apart two drawn cells of one algorithm
    const varying = ["instance", "rho", "kappa", "mu_best", "estimator"].filter((p) =>
      unique(cells.map((c) => c.algorithm)).some((a) =>
        unique(cells.filter((c) => c.algorithm === a).map((c) => JSON.stringify(c[p]))).length > 1));
    const out = [];
    const bounds = new Map();
    for (const cell of cells) {
      const { name, text } = describe(cell, varying);
      const colour = DATA.algorithms[cell.algorithm].colour;
      const errPlus = cell.hi.map((h, i) => h - cell.mean[i]);
      const errMinus = cell.lo.map((l, i) => cell.mean[i] - l);
      const value = cell.exact
        ? "exact: %{y:.6g} ± %{customdata[2]:.2g} (numerical error bound)"
        : "mean %{y:.6g}, 95% interval [%{customdata[0]:.6g}, %{customdata[1]:.6g}]";
      out.push({
        type: "scatter",
        mode: cell.exact ? "lines" : "lines+markers",
        name,
        x: cell.T,
        y: cell.mean,
        customdata: cell.T.map((_, i) => [cell.lo[i], cell.hi[i], errPlus[i]]),
        line: { color: colour, width: cell.exact ? 2 : 1, dash: cell.exact ? "solid" : "dot" },
        marker: { color: colour, size: 5 },
        error_y: cell.exact ? { visible: false }
          : { type: "data", symmetric: false, array: errPlus, arrayminus: errMinus,
            color: colour, thickness: 1, width: 2 },
        hovertemplate: `<b>${name}</b><br>${text}<br>T = %{x:,d}<br>${value}<extra></extra>`,
        meta: { kind: "cell", cell: cell.id },
      });
      if (cell.algorithm === "rps" && cell.bound_thm1 !== null) {
        const key = `${cell.K}|${cell.gap}|${cell.epsilon}`;
        const b = bounds.get(key) || { cell, T: [] };
        b.T.push(...cell.T);
        bounds.set(key, b);
      }
    }
    if ($("bound").checked) {
      for (const { cell, T } of bounds.values()) {
        const lo = Math.min(...T), hi = Math.max(...T);
        const label = `Theorem 1 bound (K = ${cell.K}, Δmin = ${param(cell.gap)}, ε = ${param(cell.epsilon)})`;
        out.push({
          type: "scatter", mode: "lines", name: label, x: [lo, hi],
          y: [cell.bound_thm1, cell.bound_thm1],
          line: { color: "#000", dash: "dash", width: 1.5 },
          hovertemplate: `<b>${label}</b><br>1 + 800 log K/Δmin + 16 log K/η = ` +
            `${fmt(cell.bound_thm1)}<br>for every T<extra></extra>`,
          meta: { kind: "bound", cell: cell.id },
        });
      }
    }
    return out;
  }

  function draw() {
    const cells = selection();
    const data = traces(cells);
    $("status").textContent = cells.length
      ? `${cells.length} cell(s): ${cells.filter((c) => c.exact).length} exact, ` +
        `${cells.filter((c) => !c.exact).length} Monte Carlo`
      : "No cell of this experiment matches the selection.";
    const layout = {
      margin: { t: 30, r: 20 },
      xaxis: { title: { text: "horizon T" }, type: $("logx").checked ? "log" : "linear",
        exponentformat: "power" },
      yaxis: { title: { text: "expected regret Reg_T" }, type: $("logy").checked ? "log" : "linear",
        exponentformat: "power" },
      legend: { orientation: "h", y: -0.15 },
      hovermode: "closest",
    };
    Plotly.react("plot", data, layout, { displaylogo: false, responsive: true });
  }

  // the experiments in the config's order (the order of the tables given to privdtol explorer)
  fillSelect($("experiment"), [...new Set(DATA.cells.map((c) => c.experiment))], false);
  $("experiment").addEventListener("change", onExperiment);
  FILTERS.forEach((f, i) => $(f).addEventListener("change", () => refill(i + 1)));
  for (const id of ["logx", "logy", "bound"]) $(id).addEventListener("change", draw);
  onExperiment();
})();
