// The arena page: load a blind matchup, show the prompt, both images and the buttons on one screen, enable the
// vote only after both images have been shown for the minimum time, take a vote by button or explicit key
// (1-4; never arrows or Space, which scroll), reveal the models, and load the next matchup without a reload.
// A lightbox shows any image full size; edit matchups compare each output with its reference. On a phone one
// image shows at a time, full width, switched by the A / B (/ Reference) buttons or a swipe, and the vote opens
// only once both A and B have been shown. No external requests, no inline script (the CSP allows 'self' only).
"use strict";
(function () {
  const root = document.getElementById("arena");
  if (!root) return;
  const $ = (id) => document.getElementById(id);
  const state = {
    modality: root.dataset.modality, matchup: null, nonce: null, voted: false, busy: false,
    ready: false, count: 0, timer: null, shown: "left", size: 1024,
    view: "left", seen: new Set(), waited: false,
  };
  // The one-image-at-a-time layout: the same breakpoint as the phone rules of arena.css.
  const PHONE = window.matchMedia("(max-width: 700px)");
  const LEDE = {
    text_to_image: "Two images made from the same prompt by two anonymous models. Pick the better one; the names are revealed after you vote.",
    image_editing: "Two anonymous models each edited the reference image by the same instruction. Pick the better edit; the names are revealed after you vote.",
  };
  const CHOICE_WORDS = { left: "A is better", right: "B is better", tie: "tie: both good", both_bad: "both bad" };

  function setStatus(text) { $("status").textContent = text; }

  function setChoicesEnabled(enabled) {
    state.ready = enabled;
    for (const b of root.querySelectorAll("button[data-choice]")) b.disabled = !enabled;
    root.classList.toggle("ready", enabled);
  }

  // Matchup images come in a few fixed sizes (arena/media/variants.py). One is chosen per page layout and device, the
  // smallest that covers 90% of the device pixels the image box shows, and used for every image of the matchup
  // (both sides and the reference), never per model; the full-size view loads the largest.
  const SIZES = (root.dataset.imageSizes || "1024").split(" ").map(Number);
  const FULL = SIZES[SIZES.length - 1];
  function sizeClass() {
    const shown = ["left", "right", "reference"].map((s) => $("img-" + s).getBoundingClientRect().width);
    const box = shown.find((w) => w > 0) || FULL;
    const need = 0.9 * box * (window.devicePixelRatio || 1);
    return SIZES.find((s) => s >= need) || FULL;
  }
  function sized(url, size) { return url + (url.includes("?") ? "&" : "?") + "size=" + size; }
  function shownUrl(side) {
    const m = state.matchup;
    return sized(side === "reference" ? m.reference : m.images[side], state.size);
  }

  function loadImage(img, url) {
    return new Promise((resolve, reject) => {
      const probe = new Image();
      probe.onload = () => resolve(url);
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

  function showPrompt(m) {
    const editing = m.modality === "image_editing";
    $("lede").textContent = LEDE[m.modality] || LEDE.text_to_image;
    $("prompt-label").textContent = editing ? "Edit instruction" : "Prompt";
    const prompt = $("prompt");
    prompt.textContent = m.prompt;
    prompt.classList.add("clamped");
    $("more").setAttribute("aria-expanded", "false");
    $("more").textContent = "more";
    $("more").hidden = prompt.scrollHeight <= prompt.clientHeight + 2;
    const hints = $("hints");
    hints.replaceChildren();
    for (const h of m.hints) {
      const li = document.createElement("li");
      const b = document.createElement("b");
      b.textContent = h.name + ": ";
      li.append(b, h.hint);
      hints.append(li);
    }
    root.classList.toggle("editing", editing);
    $("side-reference").hidden = !m.reference;
    for (const c of root.querySelectorAll("button.show-before")) {
      c.hidden = !m.reference;
      c.setAttribute("aria-pressed", "false");
      c.textContent = "Show before";
    }
    $("lightbox").querySelector("[data-show=reference]").hidden = !m.reference;
    $("flip").querySelector("[data-view=reference]").hidden = !m.reference;
  }

  // Phone layout: which image shows, and whether the voter has seen both A and B yet.
  function seenBoth() { return !PHONE.matches || (state.seen.has("left") && state.seen.has("right")); }
  function setView(view) {
    if (view === "reference" && !(state.matchup && state.matchup.reference)) return;
    state.view = view;
    state.seen.add(view);
    $("pair").dataset.view = view;
    for (const b of $("flip").querySelectorAll("[data-view]")) b.setAttribute("aria-pressed", String(b.dataset.view === view));
    $("flip-hint").hidden = state.seen.has("left") && state.seen.has("right");
    openVote();
  }
  function stepView(step) {
    const views = ["reference", "left", "right"].filter((v) => v !== "reference" || (state.matchup && state.matchup.reference));
    const i = views.indexOf(state.view);
    setView(views[Math.min(views.length - 1, Math.max(0, i + step))]);
  }
  // Voting opens once the minimum time has passed and (on a phone) both images have been shown.
  function openVote() {
    if (!state.waited || state.ready || state.voted || state.busy || !state.matchup) return;
    if (!seenBoth()) {
      setStatus("Now look at B (tap B or swipe) to open the vote.");
      return;
    }
    setChoicesEnabled(true);
    setStatus(PHONE.matches ? "Which image is better? Tap a button." : "Which image is better? Use the buttons or the keys 1-4 shown on them.");
  }

  function startWait(seconds) {
    // The quiet cue: a thin bar over the buttons fills while the minimum viewing time runs.
    const bar = $("wait-bar");
    bar.style.transition = "none";
    bar.style.width = "0%";
    void bar.offsetWidth;
    bar.style.transition = "width " + seconds + "s linear";
    bar.style.width = "100%";
    clearTimeout(state.timer);
    const m = state.matchup;
    state.timer = setTimeout(() => {
      if (state.matchup !== m || state.voted) return;
      state.waited = true;
      openVote();
    }, seconds * 1000);
  }

  async function next() {
    if (state.busy) return;
    state.busy = true;
    state.voted = false;
    state.nonce = null;
    clearTimeout(state.timer);
    setChoicesEnabled(false);
    $("skip").disabled = true;
    $("next").hidden = true;
    root.classList.remove("revealed", "not-counted", "chose-left", "chose-right", "chose-tie", "chose-both_bad");
    for (const side of ["left", "right"]) $("reveal-" + side).replaceChildren();
    $("pair").classList.add("loading");
    setStatus("Loading a new matchup…");
    try {
      const m = await post("/api/v1/matchups", { modality: state.modality });
      state.matchup = m;
      showPrompt(m);
      state.waited = false;
      state.seen = new Set();
      setView("left");
      window.scrollTo({ top: 0, behavior: "instant" });
      state.size = sizeClass();
      const loads = [loadImage($("img-left"), shownUrl("left")), loadImage($("img-right"), shownUrl("right"))];
      if (m.reference) loads.push(loadImage($("img-reference"), shownUrl("reference")));
      solveProofOfWork(m.challenge, m.difficulty).then((nonce) => {
        if (state.matchup === m) state.nonce = nonce;
      });
      await Promise.all(loads);
      $("pair").classList.remove("loading");
      $("skip").disabled = false;
      setStatus(PHONE.matches
        ? "Look at A, then B (tap B or swipe) to open the vote."
        : "Look at both images; voting opens in a moment.");
      startWait(Math.max(0, Number(m.min_seconds) || 0));
    } catch (err) {
      setStatus(err.message);
      $("next").hidden = false;
      // No matchup yet (a demo still generating): try again by itself in a few seconds.
      if (err.status === 503) setTimeout(() => { if (!state.matchup) next(); }, 5000);
    } finally {
      state.busy = false;
      // a tab chosen while this matchup was loading: switch now (it used to be dropped)
      const pending = state.pendingTab;
      state.pendingTab = null;
      if (pending) selectTab(pending);
    }
  }

  function revealSide(side, r, chosen) {
    const box = $("reveal-" + side);
    const link = document.createElement("a");
    link.href = r.url;
    link.textContent = r.name;
    box.append(link);
    if (r.organization) box.append(" · " + r.organization);
    for (const badge of r.badges || []) {
      const b = document.createElement("span");
      b.className = "badge";
      b.textContent = badge;
      box.append(" ", b);
    }
    if (chosen) {
      const you = document.createElement("span");
      you.className = "you";
      you.textContent = "your pick";
      box.append(" ", you);
    }
  }

  async function vote(choice) {
    if (state.busy || state.voted || !state.ready || !state.matchup) return;
    state.busy = true;
    setChoicesEnabled(false);
    $("skip").disabled = true;
    setStatus("Recording your vote…");
    try {
      while (state.nonce === null) await new Promise((r) => setTimeout(r, 20));
      const reveal = await post("/api/v1/votes", {
        matchup_id: state.matchup.id, choice: choice, nonce: state.nonce, website: $("website").value,
      });
      state.voted = true;
      if (reveal.counted === false) {
        root.classList.add("not-counted");
        setStatus(reveal.message);
      } else {
        state.count += 1;
        $("votes-count").textContent = String(state.count);
        revealSide("left", reveal.left, choice === "left");
        revealSide("right", reveal.right, choice === "right");
        root.classList.add("revealed", "chose-" + choice);
        const picked = choice === "left" || choice === "right" ? (choice === "left" ? "A" : "B") + " as better" : CHOICE_WORDS[choice];
        const words = "You chose " + picked + ": A was " + reveal.left.name + ", B was " + reveal.right.name + ".";
        setStatus("Vote counted. " + words + (PHONE.matches ? "" : " Press N or Next for another matchup."));
      }
      $("next").hidden = false;
    } catch (err) {
      setStatus(err.message);
      $("next").hidden = false;
    } finally {
      state.busy = false;
    }
  }

  function skip() {
    if (state.busy || state.voted || !state.matchup) return;
    next();
  }

  // Full-size view: <dialog> traps focus and closes on Escape; the arrow keys (or buttons) flip images.
  const lightbox = $("lightbox");
  function showInLightbox(side) {
    const shown = $("img-" + side).src;
    if (!shown || !state.matchup) return;
    state.shown = side;
    // The image already shown appears at once; the full-size one replaces it once it has loaded.
    const before = side !== "reference" && $("side-" + side).classList.contains("before");
    const source = side === "reference" || before ? state.matchup.reference : state.matchup.images[side];
    const full = sized(source, FULL);
    const big = $("lightbox-img");
    big.src = shown;
    if (state.size !== FULL) {
      const probe = new Image();
      probe.onload = () => { if (state.shown === side && lightbox.open) big.src = full; };
      probe.src = full;
    }
    $("lightbox-img").alt = side === "reference" ? "The reference image, full size" : "Image " + (side === "left" ? "A" : "B") + ", full size";
    $("lightbox-title").textContent = side === "reference" ? "Reference image" : "Image " + (side === "left" ? "A" : "B");
    for (const b of lightbox.querySelectorAll("[data-show]")) b.setAttribute("aria-pressed", String(b.dataset.show === side));
  }
  function openLightbox(side) {
    showInLightbox(side);
    if (!lightbox.open) lightbox.showModal();
  }
  function flip(step) {
    const sides = ["reference", "left", "right"].filter((s) => s !== "reference" || (state.matchup && state.matchup.reference));
    const i = sides.indexOf(state.shown);
    showInLightbox(sides[(i + step + sides.length) % sides.length]);
  }
  for (const z of root.querySelectorAll("button.zoom")) z.addEventListener("click", () => openLightbox(z.dataset.side));
  for (const b of lightbox.querySelectorAll("[data-show]")) b.addEventListener("click", () => showInLightbox(b.dataset.show));
  $("lightbox-close").addEventListener("click", () => lightbox.close());
  lightbox.addEventListener("click", (event) => { if (event.target === lightbox) lightbox.close(); });
  lightbox.addEventListener("keydown", (event) => {
    if (event.key === "ArrowLeft" || event.key === "ArrowRight") {
      event.preventDefault();
      flip(event.key === "ArrowLeft" ? -1 : 1);
    }
  });

  // Before/after: each output's button swaps its image with the reference while pressed.
  for (const c of root.querySelectorAll("button.show-before")) {
    c.addEventListener("click", () => {
      const img = $("img-" + c.dataset.side);
      const before = c.getAttribute("aria-pressed") !== "true";
      c.setAttribute("aria-pressed", String(before));
      c.textContent = before ? "Show after" : "Show before";
      img.src = shownUrl(before ? "reference" : c.dataset.side);
      root.querySelector("#side-" + c.dataset.side).classList.toggle("before", before);
    });
  }

  // Phone layout: the A / B (/ Reference) buttons, and a horizontal swipe over the image steps between them.
  for (const b of $("flip").querySelectorAll("[data-view]")) b.addEventListener("click", () => setView(b.dataset.view));
  let touch = null;
  $("pair").addEventListener("touchstart", (event) => {
    touch = event.touches.length === 1 ? { x: event.touches[0].clientX, y: event.touches[0].clientY } : null;
  }, { passive: true });
  $("pair").addEventListener("touchend", (event) => {
    if (!touch || !PHONE.matches || event.changedTouches.length !== 1) return;
    const dx = event.changedTouches[0].clientX - touch.x;
    const dy = event.changedTouches[0].clientY - touch.y;
    touch = null;
    if (Math.abs(dx) >= 50 && Math.abs(dx) > 1.5 * Math.abs(dy)) stepView(dx < 0 ? 1 : -1);
  }, { passive: true });
  // On a phone the status line (what the vote counted and the models' names) sits in the sticky vote bar, where
  // the voter's eyes are; below the bar it would be off screen once the image fills the width.
  function placeStatus() {
    if (PHONE.matches) $("choices").prepend($("status"));
    else $("choices").after($("status"));
  }
  placeStatus();
  PHONE.addEventListener("change", () => { openVote(); placeStatus(); });

  $("more").addEventListener("click", () => {
    const open = $("prompt").classList.toggle("clamped") === false;
    $("more").setAttribute("aria-expanded", String(open));
    $("more").textContent = open ? "less" : "more";
  });
  for (const b of root.querySelectorAll("button[data-choice]")) {
    b.addEventListener("click", () => vote(b.dataset.choice));
  }
  $("skip").addEventListener("click", skip);
  $("next").addEventListener("click", () => next());

  // Modality tabs: arrow keys move between tabs (roving tabindex), Enter / Space / click selects.
  const tabs = Array.from(root.querySelectorAll("[role=tab]"));
  function selectTab(tab) {
    if (state.busy) {
      state.pendingTab = tab; // taken up when the loading matchup is in (see next())
      return;
    }
    if (tab.getAttribute("aria-selected") === "true") return;
    for (const t of tabs) {
      t.setAttribute("aria-selected", String(t === tab));
      t.tabIndex = t === tab ? 0 : -1;
    }
    state.modality = tab.dataset.modality;
    next();
  }
  for (const tab of tabs) {
    tab.addEventListener("click", (event) => {
      selectTab(tab);
      // A pointer click leaves focus on the tab, where 1-4 never vote: hand it back to the page so the voting
      // keys work. A keyboard activation (detail 0) keeps focus on the tab list, as the tabs pattern expects.
      if (event.detail > 0) tab.blur();
    });
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowLeft" && event.key !== "ArrowRight") return;
      event.preventDefault();
      const i = tabs.indexOf(tab) + (event.key === "ArrowRight" ? 1 : -1);
      tabs[(i + tabs.length) % tabs.length].focus();
    });
  }

  // Explicit keys only: 1 / 2 / 3 / 4 vote, S skips, N loads the next matchup. Never while typing in a form
  // control, on the tab list, or with the full-size view open; arrows, Space and PageDown keep scrolling.
  const keys = { "1": "left", "2": "right", "3": "tie", "4": "both_bad" };
  function ignored(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || lightbox.open || root.hidden) return true;
    const t = event.target;
    if (!(t instanceof Element)) return false;
    return t.matches("input, textarea, select, [contenteditable], [contenteditable] *") || t.closest("[role=tablist]") !== null;
  }
  document.addEventListener("keydown", (event) => {
    if (ignored(event)) return;
    const key = event.key.toLowerCase();
    if (keys[key] && !state.voted) {
      event.preventDefault();
      vote(keys[key]);
    } else if (key === "s" && !state.voted) {
      event.preventDefault();
      skip();
    } else if (key === "n" && !$("next").hidden && !state.busy) {
      event.preventDefault();
      next();
    }
  });
  next();
})();
