// The "Rank four" page (K-wise battles, ARENA_KWISE): load four blind images of one prompt, open the ranking
// once all four have been shown for the minimum time (the pairwise minimum x K / 2, sent by the server), take an
// order by taps on the images (first tap = 1st place ...; the last image is placed by itself) or by the keys 1-4,
// U to undo, R to reset, E for "all about equal", Enter to submit; then reveal the models and load the next
// four with N. On a phone the images stack in one column, each at full width. The page measures its own time
// to decide (from the ranking opening to the submit) and sends it with the vote. No external requests, no
// inline script.
"use strict";
(function () {
  const root = document.getElementById("kwise");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const PLACES = ["1st", "2nd", "3rd", "4th", "5th", "6th"];
  const state = {
    modality: root.dataset.modality, matchup: null, nonce: null, order: [], ready: false, voted: false,
    busy: false, count: 0, timer: null, openedAt: 0, size: 1024,
  };
  const SIZES = (root.dataset.imageSizes || "1024").split(" ").map(Number);
  const FULL = SIZES[SIZES.length - 1];

  function setStatus(text) { $("k-status").textContent = text; }
  function k() { return state.matchup ? state.matchup.k : 4; }
  function sizeClass() {
    const w = $("k-img-0").getBoundingClientRect().width || FULL;
    const need = 0.9 * w * (window.devicePixelRatio || 1);
    return SIZES.find((s) => s >= need) || FULL;
  }
  function sized(url) { return url + (url.includes("?") ? "&" : "?") + "size=" + state.size; }
  function loadImage(img, url) {
    return new Promise((resolve, reject) => {
      const probe = new Image();
      probe.onload = () => resolve();
      probe.onerror = () => reject(new Error("image failed to load"));
      probe.src = url;
    }).then(() => { img.src = url; return img.decode ? img.decode().catch(() => undefined) : undefined; });
  }
  async function post(url, body) {
    const response = await fetch(url, {
      method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: JSON.stringify(body),
    });
    let data = null;
    try { data = await response.json(); } catch (e) { data = null; }
    if (!response.ok) {
      const err = new Error((data && data.detail) || ("request failed (" + response.status + ")"));
      err.status = response.status;
      throw err;
    }
    return data;
  }

  function render() {
    for (let i = 0; i < k(); i++) {
      const place = state.order.indexOf(i);
      $("k-badge-" + i).textContent = place >= 0 ? String(place + 1) : "";
      $("k-place-" + i).textContent = place >= 0 ? "· " + PLACES[place] : "";
      const item = root.querySelector('.k-item[data-position="' + i + '"]');
      item.classList.toggle("placed", place >= 0);
      const pick = item.querySelector(".k-pick");
      pick.disabled = !state.ready || state.voted || place >= 0;
      pick.setAttribute("aria-label", "Image " + (i + 1) + (place >= 0 ? ": placed " + PLACES[place] : ": give it the next place"));
    }
    const complete = state.order.length === k();
    $("k-undo").disabled = !state.ready || state.voted || state.order.length === 0;
    $("k-reset").disabled = $("k-undo").disabled;
    $("k-equal").disabled = !state.ready || state.voted;
    $("k-submit").disabled = !state.ready || state.voted || !complete;
    if (state.ready && !state.voted) {
      setStatus(complete
        ? "Order: " + state.order.map((p) => "image " + (p + 1)).join(", ") + ". Submit it (Enter), or undo (U)."
        : "Tap the image you would place " + PLACES[state.order.length] + " (or press its number, 1-" + k() + ").");
    }
  }

  function place(position) {
    if (!state.ready || state.voted || position < 0 || position >= k() || state.order.includes(position)) return;
    state.order.push(position);
    if (state.order.length === k() - 1) {  // the last image takes the last place by itself
      for (let i = 0; i < k(); i++) if (!state.order.includes(i)) state.order.push(i);
    }
    render();
  }
  function undo() {
    if (!state.ready || state.voted || !state.order.length) return;
    state.order.pop();
    if (state.order.length === k() - 1) state.order.pop();  // the auto-placed last image goes with its pair
    render();
  }
  function reset() { if (state.ready && !state.voted) { state.order = []; render(); } }

  function clearRound() {
    state.order = []; state.voted = false; state.ready = false; state.nonce = null;
    for (let i = 0; i < 4; i++) { $("k-reveal-" + i).textContent = ""; $("k-img-" + i).removeAttribute("src"); }
    $("k-next").hidden = true;
    $("k-submit").hidden = false;
    $("k-grid").classList.add("loading");
    root.classList.remove("ready", "revealed");
  }

  async function next() {
    if (state.busy) return;
    state.busy = true;
    clearRound();
    setStatus("Loading four images…");
    try {
      const m = await post("/api/v1/kwise/matchups", { modality: state.modality });
      state.matchup = m;
      const prompt = $("k-prompt");
      prompt.textContent = m.prompt;
      prompt.classList.add("clamped");
      $("k-more").setAttribute("aria-expanded", "false");
      $("k-more").textContent = "more";
      $("k-more").hidden = prompt.scrollHeight <= prompt.clientHeight + 2;
      $("k-prompt-label").textContent = m.modality === "image_editing" ? "Edit instruction" : "Prompt";
      const hints = $("k-hints");
      hints.replaceChildren();
      for (const h of m.hints) {
        const li = document.createElement("li");
        const b = document.createElement("b");
        b.textContent = h.name + ": ";
        li.append(b, h.hint);
        hints.append(li);
      }
      $("k-reference").hidden = !m.reference;
      state.size = sizeClass();
      const loads = m.images.map((url, i) => loadImage($("k-img-" + i), sized(url)));
      if (m.reference) loads.push(loadImage($("k-img-reference"), sized(m.reference)));
      solveProofOfWork(m.challenge, m.difficulty).then((nonce) => { if (state.matchup === m) state.nonce = nonce; });
      await Promise.all(loads);
      $("k-grid").classList.remove("loading");
      setStatus("Look at all four images; ranking opens in a moment.");
      startWait(Math.max(0, Number(m.min_seconds) || 0));
    } catch (err) {
      setStatus(err.message);
      $("k-next").hidden = false;
      $("k-submit").hidden = true;
    } finally {
      state.busy = false;
    }
  }

  function startWait(seconds) {
    const bar = $("k-wait-bar");
    bar.style.transition = "none";
    bar.style.width = "0%";
    void bar.offsetWidth;
    bar.style.transition = "width " + seconds + "s linear";
    bar.style.width = "100%";
    clearTimeout(state.timer);
    state.timer = setTimeout(() => {
      state.ready = true;
      state.openedAt = performance.now();
      root.classList.add("ready");
      render();
    }, seconds * 1000);
  }

  async function submit(allEqual) {
    if (!state.ready || state.voted || state.busy) return;
    if (!allEqual && state.order.length !== k()) return;
    state.busy = true;
    const seconds = (performance.now() - state.openedAt) / 1000;
    setStatus("Recording your ranking…");
    try {
      while (state.nonce === null) await new Promise((r) => setTimeout(r, 20));
      const body = {
        matchup_id: state.matchup.id, nonce: state.nonce, website: $("k-website").value,
        seconds_to_decide: Math.round(seconds * 1000) / 1000,
      };
      if (allEqual) body.all_equal = true; else body.order = state.order.slice();
      const answer = await post("/api/v1/kwise/votes", body);
      state.voted = true;
      state.count += 1;
      $("k-count").textContent = String(state.count);
      root.dataset.lastDecisionSeconds = String(seconds);
      if (answer.counted) {
        answer.models.forEach((model, i) => {
          $("k-reveal-" + i).textContent = "— " + model.name + (model.organization ? " (" + model.organization + ")" : "");
        });
        root.classList.add("revealed");
        // The whole order in one line, so a phone voter need not scroll past four images to read it.
        const order = allEqual ? [] : state.order.map((pos, place) => PLACES[place] + " " + answer.models[pos].name);
        setStatus(allEqual
          ? "Recorded as all about equal. The models are named under each image."
          : "Ranking recorded: " + order.join(", ") + ".");
      } else {
        setStatus(answer.message);
      }
    } catch (err) {
      setStatus(err.message);
    } finally {
      state.busy = false;
      render();
      $("k-submit").hidden = state.voted;
      $("k-next").hidden = !state.voted;
      if (state.voted) $("k-next").focus();
    }
  }

  // On a phone the status line sits in the sticky bar (as on the pairwise page), so the revealed order is on
  // screen wherever the voter has scrolled; elsewhere it stays under the buttons.
  const PHONE = window.matchMedia("(max-width: 700px)");
  function placeStatus() {
    if (PHONE.matches) $("k-choices").prepend($("k-status"));
    else $("k-choices").after($("k-status"));
  }
  placeStatus();
  PHONE.addEventListener("change", placeStatus);

  for (const b of root.querySelectorAll(".k-pick")) b.addEventListener("click", () => place(Number(b.dataset.position)));
  $("k-undo").addEventListener("click", undo);
  $("k-reset").addEventListener("click", reset);
  $("k-equal").addEventListener("click", () => submit(true));
  $("k-submit").addEventListener("click", () => submit(false));
  $("k-next").addEventListener("click", next);
  $("k-more").addEventListener("click", () => {
    const open = $("k-prompt").classList.toggle("clamped") === false;
    $("k-more").setAttribute("aria-expanded", String(open));
    $("k-more").textContent = open ? "less" : "more";
  });
  for (const tab of root.querySelectorAll('[role="tab"]')) {
    tab.addEventListener("click", () => {
      if (state.busy || tab.dataset.modality === state.modality) return;
      state.modality = tab.dataset.modality;
      for (const t of root.querySelectorAll('[role="tab"]')) {
        const on = t === tab;
        t.setAttribute("aria-selected", String(on));
        t.tabIndex = on ? 0 : -1;
      }
      next();
    });
  }
  document.addEventListener("keydown", (e) => {
    if (e.ctrlKey || e.metaKey || e.altKey) return;
    const target = e.target;
    if (target && (target.tagName === "INPUT" || target.tagName === "TEXTAREA")) return;
    const key = e.key.toLowerCase();
    if (/^[1-9]$/.test(key)) { place(Number(key) - 1); e.preventDefault(); }
    else if (key === "u" || key === "backspace") { undo(); e.preventDefault(); }
    else if (key === "r") { reset(); e.preventDefault(); }
    else if (key === "e") { submit(true); e.preventDefault(); }
    else if (key === "enter" && !(target && target.tagName === "BUTTON")) { submit(false); e.preventDefault(); }
    else if (key === "n" && state.voted) { next(); e.preventDefault(); }
  });
  next();
})();
