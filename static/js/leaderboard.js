// Leaderboard pages: apply the board controls (see controls()), sort the table in place, draw the charts with the
// vendored Chart.js. Everything here is an enhancement: without JavaScript the controls submit, the column
// headers sort on the server, and every chart's numbers are in a table.
(function () {
  "use strict";

  var ACCENT = "#2f5bd3";
  var MODIFIED = "#a55b00";
  var LEGACY = "#6b7280";

  // The checkbox and a board picked with the pointer (or a phone's picker) apply at once. A board reached with
  // the arrow keys on the closed selector only becomes pending (the Show button appears): Enter or the button
  // applies it, so stepping through the boards does not load a page per key press.
  function controls() {
    var form = document.getElementById("lb-controls");
    if (!form) return;
    form.classList.add("js");
    form.querySelectorAll("input[type=checkbox]").forEach(function (el) {
      el.addEventListener("change", function () { form.submit(); });
    });
    var select = document.getElementById("board-select");
    if (!select) return;
    var applied = select.value;
    var keyed = false;
    var hint = document.getElementById("board-hint");
    if (hint) {
      hint.hidden = false;
      select.setAttribute("aria-describedby", "board-hint");
    }
    select.addEventListener("keydown", function (event) {
      if (event.key === "Enter") {
        if (select.value !== applied) {
          event.preventDefault();
          form.submit();
        }
      } else if (event.key !== "Tab" && event.key !== "Shift") {
        keyed = true;
      }
    });
    select.addEventListener("pointerdown", function () { keyed = false; });
    select.addEventListener("change", function () {
      if (!keyed) {
        form.submit();
        return;
      }
      form.classList.toggle("pending", select.value !== applied);
    });
  }

  function sortable() {
    var table = document.getElementById("lb-table");
    if (!table) return;
    var numeric = { rank: true, rating: true, votes: true, price: true, time: true };
    table.querySelectorAll("th[data-sort] a").forEach(function (link) {
      link.addEventListener("click", function (event) {
        var th = link.parentElement;
        var key = th.getAttribute("data-sort");
        var url = new URL(link.href, window.location.href);
        var desc = url.searchParams.get("order") === "desc";
        var attr = key === "model" ? "data-model-name" : "data-" + key;
        // Each group sorts on its own: the rated models stay above the ones not yet rated, whatever the sort.
        Array.prototype.forEach.call(table.tBodies, function (body) {
          var rows = Array.prototype.filter.call(body.rows, function (r) { return r.hasAttribute("data-model"); });
          rows.sort(function (a, b) {
            var x = a.getAttribute(attr), y = b.getAttribute(attr);
            if (x === "" && y === "") return 0;
            if (x === "") return 1;
            if (y === "") return -1;
            var c = numeric[key] ? parseFloat(x) - parseFloat(y) : x.localeCompare(y);
            return desc ? -c : c;
          });
          rows.forEach(function (r) { body.appendChild(r); });
        });
        table.querySelectorAll("th[data-sort]").forEach(function (h) { h.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", desc ? "descending" : "ascending");
        // The next click on this header reverses the order, as the server-side links do.
        url.searchParams.set("order", desc ? "asc" : "desc");
        link.href = url.pathname + url.search;
        var shown = new URL(window.location.href);
        shown.searchParams.set("sort", key);
        shown.searchParams.set("order", desc ? "desc" : "asc");
        window.history.replaceState(null, "", shown.pathname + shown.search);
        event.preventDefault();
      });
    });
  }

  // Writes each point's name beside it (scatter charts).
  var pointNames = {
    id: "pointNames",
    afterDatasetsDraw: function (chart) {
      var ctx = chart.ctx;
      ctx.save();
      ctx.font = "12px system-ui, sans-serif";
      ctx.fillStyle = "#1b1d21";
      chart.data.datasets.forEach(function (ds, i) {
        if (!ds.names) return;
        chart.getDatasetMeta(i).data.forEach(function (pt, k) {
          var text = ds.names[k];
          var width = ctx.measureText(text).width;
          var x = pt.x + 7 + width > chart.width - 2 ? pt.x - 7 - width : pt.x + 7;
          ctx.fillText(text, x, pt.y - 6);
        });
      });
      ctx.restore();
    }
  };

  function base(extra) {
    var opts = {
      responsive: true,
      maintainAspectRatio: false,
      animation: false,
      plugins: { legend: { display: false } }
    };
    Object.keys(extra || {}).forEach(function (k) { opts[k] = extra[k]; });
    return opts;
  }

  function colour(d) {
    return d.modified ? MODIFIED : d.legacy ? LEGACY : ACCENT;
  }

  // The rating axis spans the intervals and points with a margin (unbounded ends are left out).
  function range(items) {
    var values = [];
    items.forEach(function (d) { [d.rating, d.low, d.high].forEach(function (v) { if (v !== null) values.push(v); }); });
    var lo = Math.min.apply(null, values), hi = Math.max.apply(null, values);
    var pad = Math.max(10, (hi - lo) * 0.08);
    var step = hi - lo > 300 ? 50 : 10;
    return { min: Math.floor((lo - pad) / step) * step, max: Math.ceil((hi + pad) / step) * step };
  }

  // Log-axis ticks at 1, 2 and 5 times a power of ten only.
  function logTick(money) {
    return function (v) {
      var m = v / Math.pow(10, Math.floor(Math.log10(v)));
      if ([1, 2, 5].indexOf(Math.round(m * 1000) / 1000) < 0) return "";
      return (money ? "$" : "") + v;
    };
  }

  function intervalChart(id, items) {
    var el = document.getElementById(id);
    if (!el || !items.length) return;
    new window.Chart(el, {
      type: "bar",
      data: {
        labels: items.map(function (d) { return d.name + (d.provisional ? " *" : ""); }),
        datasets: [
          {
            label: "95% interval",
            data: items.map(function (d) { return d.low === null || d.high === null ? null : [d.low, d.high]; }),
            backgroundColor: items.map(function (d) { return colour(d) + "55"; }),
            borderColor: items.map(colour),
            borderWidth: 1,
            barPercentage: 0.5
          },
          {
            type: "line",
            label: "Rating",
            data: items.map(function (d) { return d.rating; }),
            showLine: false,
            pointRadius: 5,
            pointBackgroundColor: items.map(colour),
            pointBorderColor: "#fff",
            indexAxis: "y"
          }
        ]
      },
      options: base({
        indexAxis: "y",
        scales: {
          x: { title: { display: true, text: "Rating" }, min: range(items).min, max: range(items).max },
          y: { ticks: { autoSkip: false } }
        },
        plugins: { legend: { display: false } }
      })
    });
  }

  function scatterChart(id, items, xTitle, log, money) {
    var el = document.getElementById(id);
    if (!el || !items.length) return;
    new window.Chart(el, {
      type: "scatter",
      data: {
        datasets: [{
          data: items.map(function (d) { return { x: d.x, y: d.y }; }),
          names: items.map(function (d) { return d.name; }),
          pointRadius: items.map(function (d) { return d.front ? 6 : 5; }),
          // Pareto front (nothing both cheaper/faster and better): filled; the rest hollow.
          backgroundColor: items.map(function (d) { return d.front ? ACCENT : "#ffffff"; }),
          borderColor: ACCENT,
          borderWidth: 1.5
        }]
      },
      options: base({
        layout: { padding: { right: 24, top: 14 } },
        scales: {
          x: {
            type: log ? "logarithmic" : "linear",
            title: { display: true, text: xTitle },
            ticks: log ? { callback: logTick(money) } : {}
          },
          y: { title: { display: true, text: "Rating" } }
        },
        plugins: {
          legend: { display: false },
          tooltip: { callbacks: { label: function (c) { return items[c.dataIndex].name + ": " + c.parsed.y.toFixed(0); } } }
        }
      }),
      plugins: [pointNames]
    });
  }

  function barChart(id, labels, values, yTitle) {
    var el = document.getElementById(id);
    if (!el || !labels.length) return;
    new window.Chart(el, {
      type: "bar",
      data: { labels: labels, datasets: [{ data: values, backgroundColor: ACCENT + "99", borderColor: ACCENT }] },
      options: base({ scales: { y: { beginAtZero: true, title: { display: true, text: yTitle } } } })
    });
  }

  function lineChart(id, labels, values, yTitle) {
    var el = document.getElementById(id);
    if (!el || !labels.length) return;
    new window.Chart(el, {
      type: "line",
      data: { labels: labels, datasets: [{ data: values, borderColor: ACCENT, backgroundColor: ACCENT, spanGaps: true, tension: 0.2 }] },
      options: base({ scales: { y: { beginAtZero: true, title: { display: true, text: yTitle } } } })
    });
  }

  var PALETTE = ["#2f5bd3", "#c2410c", "#15803d", "#7c3aed", "#b91c1c", "#0e7490", "#a16207", "#be185d"];

  // Dashed vertical lines at the snapshots computed differently from the one before (history charts).
  var changeMarks = {
    id: "changeMarks",
    afterDatasetsDraw: function (chart, args, opts) {
      var marks = opts.marks || [];
      if (!marks.length) return;
      var ctx = chart.ctx, area = chart.chartArea, x = chart.scales.x;
      ctx.save();
      ctx.setLineDash([4, 4]);
      ctx.strokeStyle = "#6b7280";
      ctx.fillStyle = "#4b5563";
      ctx.font = "11px system-ui, sans-serif";
      marks.forEach(function (m) {
        var px = x.getPixelForValue(m.at);
        ctx.beginPath();
        ctx.moveTo(px, area.top);
        ctx.lineTo(px, area.bottom);
        ctx.stroke();
        ctx.fillText(m.what, Math.min(px + 4, area.right - ctx.measureText(m.what).width), area.top + 10);
      });
      ctx.restore();
    }
  };

  function historyChart(id, h) {
    var el = document.getElementById(id);
    if (!el || !h || !h.labels.length || !h.lines.length) return;
    var datasets = [];
    h.lines.forEach(function (line, k) {
      var c = PALETTE[k % PALETTE.length];
      datasets.push({ label: line.name + " low", data: line.low, borderColor: "transparent", pointRadius: 0, fill: false, spanGaps: true, band: true });
      datasets.push({ label: line.name + " 95% interval", data: line.high, borderColor: "transparent", backgroundColor: c + "22", pointRadius: 0, fill: "-1", spanGaps: true, band: true });
      datasets.push({ label: line.name, data: line.rating, borderColor: c, backgroundColor: c, pointRadius: 3, spanGaps: true, tension: 0 });
    });
    new window.Chart(el, {
      type: "line",
      data: { labels: h.labels, datasets: datasets },
      options: base({
        scales: { y: { title: { display: true, text: "Rating" } } },
        plugins: {
          legend: { display: h.lines.length > 1, labels: { filter: function (item, data) { return !data.datasets[item.datasetIndex].band; } } },
          changeMarks: { marks: h.changes }
        }
      }),
      plugins: [changeMarks]
    });
  }

  function charts() {
    var node = document.getElementById("lb-chart-data");
    if (!node || !window.Chart) return;
    var data = JSON.parse(node.textContent);
    if (data.ratings) {
      intervalChart("chart-ratings", data.ratings);
      scatterChart("chart-price", data.price, "Price per 1,000 images (USD, log scale)", true, true);
      scatterChart("chart-time", data.time, "Median generation time (s)", false, false);
    }
    if (data.history) historyChart("chart-history", data.history);
    if (data.boards) {
      intervalChart("chart-boards", data.boards);
      barChart("chart-histogram", data.histogram.map(function (b) { return b.label; }),
        data.histogram.map(function (b) { return b.count; }), "Samples");
      lineChart("chart-trend", data.daily.map(function (d) { return d.day.slice(5); }),
        data.daily.map(function (d) { return d.median; }), "Median seconds");
    }
  }

  controls();
  sortable();
  charts();
})();
