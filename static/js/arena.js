// The arena page: load a blind matchup, show both images together, take a vote by button or key, reveal the
// models, and load the next matchup without reloading the page. No external requests.
"use strict";
(function () {
  const root = document.getElementById("arena");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const state = { modality: root.dataset.modality, matchup: null, nonce: null, voted: false, busy: false, count: 0 };

  function setStatus(text) { $("status").textContent = text; }

  function setChoicesEnabled(enabled) {
    for (const b of root.querySelectorAll("button[data-choice]")) b.disabled = !enabled;
  }

  function loadImage(img, url) {
    return new Promise((resolve, reject) => {
      const probe = new Image();
      probe.onload = () => resolve(url);
      probe.onerror = () => reject(new Error("image failed to load"));
      probe.src = url;
    }).then(() => { img.src = url; });
  }

  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) throw new Error((data && data.detail) || ("request failed (" + response.status + ")"));
    return data;
  }

  async function next() {
    if (state.busy) return;
    state.busy = true;
    state.voted = false;
    state.nonce = null;
    setChoicesEnabled(false);
    $("next").hidden = true;
    root.classList.remove("revealed", "chose-left", "chose-right", "chose-tie", "chose-both_bad");
    for (const side of ["left", "right"]) $("reveal-" + side).textContent = "";
    $("pair").classList.add("loading");
    setStatus("Loading a new matchup…");
    try {
      const m = await post("/api/v1/matchups", { modality: state.modality });
      state.matchup = m;
      $("prompt").textContent = m.prompt;
      const hints = $("hints");
      hints.replaceChildren();
      for (const h of m.hints) {
        const li = document.createElement("li");
        const b = document.createElement("b");
        b.textContent = h.name + ": ";
        li.append(b, h.hint);
        hints.append(li);
      }
      $("reference").hidden = !m.reference;
      const loads = [loadImage($("img-left"), m.images.left), loadImage($("img-right"), m.images.right)];
      if (m.reference) loads.push(loadImage($("reference-img"), m.reference));
      solveProofOfWork(m.challenge, m.difficulty).then((nonce) => {
        if (state.matchup === m) state.nonce = nonce;
      });
      await Promise.all(loads);
      $("pair").classList.remove("loading");
      setChoicesEnabled(true);
      setStatus("Which image is better? Use the buttons or the keys shown on them.");
      root.querySelector("button[data-choice=left]").focus({ preventScroll: true });
    } catch (err) {
      setStatus(err.message);
      $("next").hidden = false;
    } finally {
      state.busy = false;
    }
  }

  async function vote(choice) {
    if (state.busy || state.voted || !state.matchup) return;
    state.busy = true;
    setChoicesEnabled(false);
    setStatus("Recording your vote…");
    try {
      while (state.nonce === null) await new Promise((r) => setTimeout(r, 20));
      const reveal = await post("/api/v1/votes", {
        matchup_id: state.matchup.id, choice: choice, nonce: state.nonce, website: $("website").value,
      });
      state.voted = true;
      state.count += 1;
      for (const side of ["left", "right"]) {
        const r = reveal[side];
        $("reveal-" + side).textContent = r.name + (r.organization ? " · " + r.organization : "");
      }
      root.classList.add("revealed", "chose-" + choice);
      $("votes-count").textContent = String(state.count);
      setStatus("Vote recorded. The models are revealed under the images.");
      $("next").hidden = false;
      $("next").focus({ preventScroll: true });
    } catch (err) {
      setStatus(err.message);
      $("next").hidden = false;
    } finally {
      state.busy = false;
    }
  }

  for (const b of root.querySelectorAll("button[data-choice]")) {
    b.addEventListener("click", () => vote(b.dataset.choice));
  }
  $("next").addEventListener("click", () => next());
  for (const tab of root.querySelectorAll("[role=tab]")) {
    tab.addEventListener("click", () => {
      if (state.busy) return;
      for (const t of root.querySelectorAll("[role=tab]")) t.setAttribute("aria-selected", String(t === tab));
      state.modality = tab.dataset.modality;
      next();
    });
  }
  const keys = {
    ArrowLeft: "left", "1": "left", ArrowRight: "right", "2": "right",
    ArrowUp: "tie", "3": "tie", ArrowDown: "both_bad", "4": "both_bad",
  };
  document.addEventListener("keydown", (event) => {
    if (event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.target instanceof HTMLInputElement) return;
    if (keys[event.key] && !state.voted) { event.preventDefault(); vote(keys[event.key]); return; }
    if ((event.key === "n" || event.key === "N" || (event.key === "Enter" && state.voted)) && !state.busy) {
      event.preventDefault();
      next();
    }
  });
  next();
})();
