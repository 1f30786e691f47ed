// The admin page: follow queued and running job runs (outcome, progress, message) until they finish, then
// reload once so the job table shows the new last run. Same-origin requests only.
"use strict";
(function () {
  const live = () => Array.from(document.querySelectorAll("tr[data-run-id]")).filter(
    (row) => row.dataset.outcome === "queued" || row.dataset.outcome === "running");
  if (live().length === 0) return;

  function show(row, run) {
    row.dataset.outcome = run.outcome;
    const outcome = row.querySelector("[data-field=outcome]");
    outcome.textContent = run.outcome;
    outcome.className = "outcome outcome-" + run.outcome;
    row.querySelector("[data-field=message]").textContent = run.message;
    const progress = (run.details && run.details.progress) || null;
    const bar = row.querySelector("[data-field=progress]");
    const count = row.querySelector("[data-field=count]");
    if (progress && bar) {
      bar.max = progress.total || 1;
      bar.value = progress.done || 0;
      if (count) count.textContent = (progress.stage ? progress.stage + ": " : "") + (progress.done || 0) + "/" + (progress.total || 0);
    }
  }

  async function poll() {
    const rows = live();
    for (const row of rows) {
      try {
        const response = await fetch("/api/v1/admin/runs/" + row.dataset.runId, {
          credentials: "same-origin", headers: { Accept: "application/json" },
        });
        if (response.ok) show(row, await response.json());
      } catch (err) { /* try again on the next round */ }
    }
    if (live().length === 0) window.location.reload();
    else window.setTimeout(poll, 1500);
  }
  window.setTimeout(poll, 1000);
})();
