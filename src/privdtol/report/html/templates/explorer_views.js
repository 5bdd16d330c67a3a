// privdtol explorer (privdtol.report.html.explorer_views): the tabs, the views "privacy audit",
// "proof slack", "worst-case searches" and the claims table.  Reads the page's inline JSON
// (#explorer-data): views.privacy, views.proof, views.searches (null: not run in this
// configuration), claims, algorithm styles.  A view is drawn when its tab is first shown.
"use strict";
(function () {
  const DATA = JSON.parse(document.getElementById("explorer-data").textContent);
  const $ = (id) => document.getElementById(id);
  const fmt = (v) => (v === null || v === undefined ? "–"
    : typeof v === "number" ? String(+v.toPrecision(4)) : String(v));
  // a cell's parameters (gap, eps) as explorer.js shows them: a power of two as a power
  // ("2⁻⁶"), never to the 4 digits of a ratio ("0.01563")
  const param = window.privdtolExplorer.param;
  const name = (a) => (DATA.algorithms[a] ? DATA.algorithms[a].name : a);
  const colour = (a) => (DATA.algorithms[a] ? DATA.algorithms[a].colour : "#777");
  const CONFIG = { displaylogo: false, responsive: true };
  // Plotly's labels are its own small HTML: a string from a file is escaped before it goes
  // there; the page's elements are built with h() (text nodes, never innerHTML), so that no
  // string of a record or a table becomes markup
  const esc = (s) => String(s).replace(/[&<>"]/g, (c) =>
    ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]);
  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) el.setAttribute(k, v);
    for (const c of children) el.append(c instanceof Node ? c : String(c));
    return el;
  }
  const VERDICT_CLASSES = ["PASS", "FAIL", "INCONCLUSIVE"];  // the stylesheet's classes

  function notRun(view, what) {
    const el = $(`view-${view}`);
    const p = document.createElement("p");
    p.className = "notrun";
    p.textContent = `Not run in this configuration: no ${what}.`;
    el.querySelectorAll(".plot, table, #search-controls").forEach((x) => x.remove());
    el.appendChild(p);
  }

  function rows(table, cells) {
    const body = document.querySelector(`#${table} tbody`);
    body.replaceChildren(...cells.map((r) => h("tr", {}, ...r.map((c) => h("td", {}, c)))));
  }

  // ------------------------------------------------------------------------ privacy audit
  // one column per algorithm (controls last), one marker per audit and ε within it; y is the
  // loss over ε, so that the bound ε (Proposition 1) is the line at 1 whatever ε
  const EPS_COLOURS = ["#0072b2", "#d55e00", "#009e73", "#cc79a7", "#e69f00", "#56b4e9"];
  const AUDITS = { exact_selection: ["per selection (exact)", "circle"],
    whole_sequence: ["whole sequence (exact)", "square-open"] };
  function drawPrivacy() {
    const v = DATA.views.privacy;
    if (!v) return notRun("privacy", "privacy audit (results/agg/privacy.parquet)");
    const algs = v.algorithms, traces = [], table = [];
    const label = (a) => esc(`${name(a.algorithm)}${a.role === "private" ? "" : " (control)"}`);
    const epsilons = [...new Set(algs.flatMap((a) => a.epsilon))].sort((x, y) => x - y);
    epsilons.forEach((e, k) => {
      const col = EPS_COLOURS[k % EPS_COLOURS.length];
      const at = algs.map((a) => a.epsilon.indexOf(e));
      const has = algs.map((_, i) => at[i] >= 0);
      const pick = (f) => algs.map((a, i) => (has[i] ? f(a, at[i]) : null));
      const x = algs.map(label);
      const hover = pick((a, j) => `loss ${fmt(a.loss[j])}, ε = ${param(e)}<br>per-selection bound ` +
        `${fmt(a.bound_selection[j])}<br>verdict: ${esc(a.verdict[j])}`);
      for (const [audit, [what, symbol]] of Object.entries(AUDITS)) {
        const y = pick((a, j) => (a[audit][j] === null ? null : a[audit][j] / e));
        if (!y.some((t) => t !== null)) continue;
        traces.push({ type: "scatter", mode: "markers", x, y, text: hover, offsetgroup: `e${k}`,
          name: `ε = ${param(e)}: ${what}`, legendgroup: `e${k}`,
          marker: { color: col, symbol, size: 10, line: { color: col, width: 2 } },
          hovertemplate: `<b>%{x}</b>, ${what}<br>loss / ε = %{y:.4g}<br>%{text}<extra></extra>`,
          meta: { kind: audit, epsilon: e } });
      }
      const bound = pick((a, j) => (a.bound_selection[j] === null ? null : a.bound_selection[j] / e));
      traces.push({ type: "scatter", mode: "markers", x, y: bound, offsetgroup: `e${k}`,
        name: `ε = ${param(e)}: per-selection bound (2η; ε for Laplace)`, legendgroup: `e${k}`,
        marker: { color: col, symbol: "line-ew-open", size: 22, line: { color: col, width: 2 } },
        hovertemplate: "<b>%{x}</b><br>per-selection bound / ε = %{y:.4g}<extra></extra>",
        meta: { kind: "bound_selection", epsilon: e } });
      const st = pick((a, j) => (a.stat_lower[j] !== null && a.stat_lower[j] > 0 ? j : null));
      if (st.some((j) => j !== null)) {
        const mid = algs.map((a, i) => (st[i] === null ? null
          : (a.stat_lower[st[i]] + a.stat_upper[st[i]]) / 2 / e));
        traces.push({ type: "scatter", mode: "markers", x, y: mid, offsetgroup: `e${k}`,
          name: `ε = ${param(e)}: statistical 95% (Clopper–Pearson)`, legendgroup: `e${k}`,
          marker: { color: col, symbol: "triangle-up", size: 6 },
          error_y: { type: "data", symmetric: false, color: col,
            array: algs.map((a, i) => (st[i] === null ? null : a.stat_upper[st[i]] / e - mid[i])),
            arrayminus: algs.map((a, i) => (st[i] === null ? null : mid[i] - a.stat_lower[st[i]] / e)) },
          hovertemplate: "<b>%{x}</b>, statistical audit (95% interval)<extra></extra>",
          meta: { kind: "statistical", epsilon: e } });
      }
    });
    for (const a of algs) {
      a.epsilon.forEach((e, j) => table.push([
        h("span", {}, `${name(a.algorithm)} `, h("code", {}, a.algorithm)),
        a.role === "private" ? "private" : "negative control", param(e), fmt(a.loss[j]),
        fmt(a.bound_selection[j]), fmt(a.loss[j] === null ? null : a.loss[j] / e),
        a.stat_lower[j] === null ? "–" : `[${fmt(a.stat_lower[j])}, ${fmt(a.stat_upper[j])}]`,
        h("span", { class: /PASS|^caught/.test(a.verdict[j]) ? "expected" : "unexpected" },
          a.verdict[j])]));
    }
    Plotly.react("privacy-plot", traces, {
      margin: { t: 20, r: 20, b: 120 }, hovermode: "closest", scattermode: "group",
      legend: { orientation: "h", yanchor: "top", y: -0.3 },
      xaxis: { tickangle: -25, categoryorder: "array", categoryarray: algs.map(label) },
      yaxis: { title: { text: "largest privacy loss found / ε" }, type: "log" },
      shapes: [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1,
        line: { color: "#000", width: 1.5 } }],
      annotations: [{ xref: "paper", x: 1, y: 0, yanchor: "bottom", xanchor: "right",
        text: "ε (Proposition 1)", showarrow: false }],
    }, CONFIG);
    rows("privacy-table", table);
  }

  // ------------------------------------------------------------------------ proof slack
  const REGIMES = { statistical: "#0072b2", privacy: "#d55e00", balanced: "#009e73" };
  function drawProof() {
    const v = DATA.views.proof;
    if (!v) return notRun("proof", "exact RPS cell with proof terms (results/agg/proof.parquet)");
    const label = (s) => esc((s.part_of ? "· " : "") + s.label);
    const steps = v.steps.filter((s) => v.cells.some((c) => c.factors[s.key] !== null));
    const traces = Object.entries(REGIMES).map(([regime, col]) => {
      const cells = v.cells.filter((c) => c.regime === regime);
      const x = [], y = [], text = [];
      for (const s of steps) for (const c of cells) {
        if (c.factors[s.key] === null) continue;
        x.push(label(s)); y.push(c.factors[s.key]);
        text.push(esc(`K = ${c.K}, Δmin = ${param(c.gap)}, ε = ${param(c.epsilon)}`) + `<br>cell ${esc(c.id)}`);
      }
      return { type: "box", boxpoints: "all", jitter: 0.5, pointpos: 0, name: `${regime} regime`,
        x, y, text, marker: { color: col, size: 5 }, line: { color: col, width: 1 },
        fillcolor: "rgba(0,0,0,0)", hovertemplate: "%{x}: factor %{y:.4g}<br>%{text}<extra></extra>",
        meta: { kind: "slack", regime } };
    }).filter((t) => t.y.length);
    Plotly.react("proof-plot", traces, {
      margin: { t: 20, r: 20, b: 140 }, boxmode: "group", hovermode: "closest",
      legend: { orientation: "h", y: 1.08 },
      xaxis: { categoryorder: "array", categoryarray: steps.map(label), tickangle: -40 },
      yaxis: { title: { text: "bound / exact value" }, type: "log", exponentformat: "power" },
      shapes: [{ type: "line", xref: "paper", x0: 0, x1: 1, y0: 1, y1: 1,
        line: { color: "#444", dash: "dash", width: 1 } }],
    }, CONFIG);
    rows("proof-table", steps.map((s) => {
      const f = v.cells.map((c) => c.factors[s.key]).filter((x) => x !== null)
        .sort((a, b) => a - b);
      const med = f.length % 2 ? f[(f.length - 1) / 2] : (f[f.length / 2 - 1] + f[f.length / 2]) / 2;
      return [s.part_of ? `\u00a0\u00a0· ${s.label}` : h("b", {}, s.label), f.length,
        fmt(f[0]), fmt(med), fmt(f[f.length - 1])];
    }));
  }

  // ------------------------------------------------------------------------ searches
  const OBJECTIVES = { theorem1: ["Reg / Theorem 1's bound (max)", "#0173b2"],
    lower_max: ["Reg / LB_T (max)", "#de8f05"], lower_min: ["Reg / LB_T (min)", "#029e73"],
    eq6: ["large-gap part / eq. (6)'s bound (max)", "#cc78bc"] };
  function drawSearch() {
    const s = DATA.views.searches.searches[JSON.parse($("search").value)];
    const trace = [], means = [], table = [];
    const k = s.standard_means.map((_, i) => i + 1);
    means.push({ type: "scatter", mode: "lines", name: "standard instance", x: k,
      y: s.standard_means, line: { color: "#888", dash: "dot" }, meta: { kind: "standard" } });
    for (const obj of DATA.views.searches.order) {
      const o = s.objectives[obj];
      if (!o) continue;
      const [label, col] = OBJECTIVES[obj] || [esc(obj), "#555"];
      const ev = o.trace.map((_, i) => i + 1);
      let best = null;
      const running = o.trace.map((y) =>
        (best = y === null ? best : best === null ? y : o.sign > 0 ? Math.max(best, y) : Math.min(best, y)));
      trace.push({ type: "scatter", mode: "markers", name: `${label}: evaluated`, legendgroup: obj,
        x: ev, y: o.trace, marker: { color: col, size: 4, opacity: 0.5 },
        hovertemplate: `${label}<br>evaluation %{x}: %{y:.4g}<extra></extra>`,
        meta: { kind: "trace", objective: obj } });
      trace.push({ type: "scatter", mode: "lines", name: `${label}: most extreme so far`,
        legendgroup: obj, x: ev, y: running, line: { color: col, width: 2, shape: "hv" },
        hoverinfo: "skip", meta: { kind: "running", objective: obj } });
      trace.push({ type: "scatter", mode: "lines", showlegend: false, legendgroup: obj,
        x: [1, Math.max(ev.length, 1)], y: [o.standard, o.standard],
        line: { color: col, dash: "dot", width: 1 }, hoverinfo: "skip" });
      means.push({ type: "scatter", mode: "lines+markers", name: label, x: o.means.map((_, i) => i + 1),
        y: o.means, marker: { color: col, size: 6 }, line: { color: col },
        hovertemplate: `${label}<br>action %{x}: mean %{y:.4g}<br>${esc(o.description)}<extra></extra>`,
        meta: { kind: "instance", objective: obj } });
      const ratio = o.value === null || o.standard === null ? null : o.value / o.standard;
      table.push([(OBJECTIVES[obj] || [obj])[0], fmt(o.value), fmt(o.standard), fmt(ratio),
        fmt(o.unseen), o.description]);
    }
    const base = { margin: { t: 40, r: 20 }, hovermode: "closest", legend: { orientation: "h", y: -0.2 } };
    Plotly.react("search-trace", trace, { ...base, title: { text: `the trace: ${s.evaluations} evaluations`, x: 0.02, font: { size: 13 } },
      xaxis: { title: { text: "evaluation" } },
      yaxis: { title: { text: "ratio" }, type: "log", exponentformat: "power" } }, CONFIG);
    Plotly.react("search-means", means, { ...base, title: { text: "the instances found", x: 0.02, font: { size: 13 } },
      xaxis: { title: { text: "action (best first)" }, dtick: 1 },
      yaxis: { title: { text: "mean loss" }, range: [-0.03, 1.03] } }, CONFIG);
    rows("search-table", table);
  }
  function drawSearches() {
    const v = DATA.views.searches;
    if (!v || !v.searches.length) return notRun("searches", "worst-case search (results/agg/searches.parquet)");
    const sel = $("search");
    v.searches.forEach((s, i) => {
      const o = document.createElement("option");
      o.value = JSON.stringify(i);
      o.textContent = `${name(s.algorithm)}, K = ${s.K}, Δmin = ${param(s.gap)}, ε = ${param(s.epsilon)}`;
      sel.appendChild(o);
    });
    sel.addEventListener("change", drawSearch);
    drawSearch();
  }

  // ------------------------------------------------------------------------ claims
  function claimsTable() {
    const exp = $("experiment").value ? JSON.parse($("experiment").value) : null;
    const body = document.querySelector("#claims-table tbody");
    body.replaceChildren();
    let paper = 0, diag = 0, cited = 0, ctrl = 0, ctrlOk = 0;
    for (const c of DATA.claims) {
      const tr = document.createElement("tr");
      tr.className = (c.control ? "control" : "claim") + (c.experiments.includes(exp) ? " reads" : "");
      const kind = c.control ? h("span", { class: "badge control" }, `negative control of ${c.claim}`)
        : c.diagnostic ? h("span", { class: "badge diagnostic", title: c.diagnostic }, "diagnostic")
          : c.cited ? h("span", { class: "badge diagnostic", title: `a claim of ${c.cited}` }, "cited work")
            : h("span", { class: "badge paper" }, "paper");
      // the title: the registry's text (code, not a file) as escaped HTML with MathML, made
      // on the server by privdtol.report.html.mathml.text_to_html
      const title = h("span");
      title.innerHTML = c.title;
      const what = c.control ? h("span", {}, h("code", {}, c.control), ": ", title) : title;
      const verdict = c.verdict === null ? h("span", { class: "notrun" }, "not run")
        : h("span", { class: VERDICT_CLASSES.includes(c.verdict) ? c.verdict : null }, c.verdict);
      let expected = "";
      if (c.control) {
        const ok = c.verdict === c.expected;
        expected = c.verdict === null ? c.expected
          : h("span", { class: ok ? "expected" : "unexpected" },
            `${c.expected} (${ok ? "as expected" : "NOT as expected"})`);
        if (c.verdict !== null) { ctrl++; if (ok) ctrlOk++; }
      } else if (c.verdict !== null) { if (c.diagnostic) diag++; else if (c.cited) cited++; else paper++; }
      const record = c.href ? h("a", { href: c.href }, c.id) : c.id;
      tr.append(...[record, kind, what, verdict, expected, c.experiments.join(", ")]
        .map((x) => h("td", {}, x)));
      body.appendChild(tr);
    }
    $("claims-summary").textContent = `This run checked ${paper} claim(s) of the paper and ` +
      `${diag} diagnostic(s) and ${cited} claim(s) of the cited works; ${ctrlOk} of its ${ctrl} negative control(s) FAILED, as they must.`;
  }

  // ------------------------------------------------------------------------ tabs
  const DRAW = { privacy: drawPrivacy, proof: drawProof, searches: drawSearches };
  const drawn = new Set();
  function show(view) {
    document.querySelectorAll("#tabs button").forEach((b) =>
      b.setAttribute("aria-selected", String(b.dataset.view === view)));
    document.querySelectorAll("section.view").forEach((s) => { s.hidden = s.id !== `view-${view}`; });
    if (DRAW[view] && !drawn.has(view)) { drawn.add(view); DRAW[view](); }
    $(`view-${view}`).querySelectorAll(".js-plotly-plot").forEach((p) => Plotly.Plots.resize(p));
  }
  document.querySelectorAll("#tabs button").forEach((b) =>
    b.addEventListener("click", () => { history.replaceState(null, "", `#${b.dataset.view}`); show(b.dataset.view); }));
  $("experiment").addEventListener("change", claimsTable);
  claimsTable();
  // a view's name in the address (#claims) opens its tab; no element bears that id, so the
  // browser does not scroll to it (that scrolled the tab bar out of sight and left a blank
  // band below the short view): the page stays at its top, the tab bar in view
  const fromHash = () => {
    const view = location.hash.slice(1);
    show($(`view-${view}`) ? view : "regret");
  };
  window.addEventListener("hashchange", fromHash);
  fromHash();
})();
