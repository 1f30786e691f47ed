// The votes page: draw kept and filtered votes per day with the vendored Chart.js, from the same JSON the
// table beside it shows (/api/v1/admin/votes/summary, read with the console session). Without JS the table stays.
"use strict";
(function () {
  const canvas = document.getElementById("votes-chart");
  if (!canvas || !window.Chart) return;
  const palette = ["#c0392b", "#d35400", "#8e44ad", "#2c3e50", "#7f8c8d", "#16a085", "#b7950b", "#6d4c41"];
  fetch("/api/v1/admin/votes/summary?days=30", { credentials: "same-origin", headers: { Accept: "application/json" } })
    .then((response) => (response.ok ? response.json() : Promise.reject(response.status)))
    .then((series) => {
      const datasets = [{ label: "kept", data: series.kept, backgroundColor: "#2e7d32", stack: "kept" }];
      Object.keys(series.filtered).forEach((name, i) => {
        datasets.push({ label: name, data: series.filtered[name], backgroundColor: palette[i % palette.length], stack: "filtered" });
      });
      new window.Chart(canvas, {
        type: "bar",
        data: { labels: series.days, datasets: datasets },
        options: {
          responsive: true,
          maintainAspectRatio: false,
          animation: false,
          scales: { x: { stacked: true }, y: { stacked: true, beginAtZero: true, title: { display: true, text: "votes" } } },
        },
      });
    })
    .catch(() => { canvas.replaceWith(document.createTextNode("The chart could not be loaded; the table below has the figures.")); });
})();
