// The "Your prompt" tab: the voter's own prompt generated live by two anonymous models. The page polls the battle
// and gets both image URLs in one answer once both images exist, so it cannot show (or learn) which finished
// first. Then the same proof of work, minimum wait and reveal as the curated arena.
"use strict";
(function () {
  const $ = (id) => document.getElementById(id);
  const panel = $("open"), arena = $("arena");
  const tabs = [$("tab-curated"), $("tab-open")];
  const st = { battle: null, nonce: null, voted: false, poll: null, minUntil: 0 };

  function selectMode(tab) {
    for (const t of tabs) {
      t.setAttribute("aria-selected", String(t === tab));
      t.tabIndex = t === tab ? 0 : -1;
    }
    arena.hidden = tab !== tabs[0];
    panel.hidden = tab !== tabs[1];
  }
  for (const tab of tabs) {
    tab.addEventListener("click", () => selectMode(tab));
    tab.addEventListener("keydown", (event) => {
      if (event.key !== "ArrowRight" && event.key !== "ArrowLeft") return;
      event.preventDefault();
      const other = tabs[(tabs.indexOf(tab) + 1) % 2];
      other.focus();
      selectMode(other);
    });
  }

  function status(text) { $("open-status").textContent = text; }
  function modality() { return document.querySelector("input[name=open-modality]:checked").value; }
  function choices(on) { for (const b of panel.querySelectorAll("[data-open-choice]")) b.disabled = !on; }

  for (const radio of document.querySelectorAll("input[name=open-modality]")) {
    radio.addEventListener("change", () => { $("open-reference-row").hidden = modality() !== "image_editing"; });
  }
  const prompt = $("open-prompt");
  prompt.addEventListener("input", () => { $("open-count").textContent = `${prompt.value.length} / ${panel.dataset.maxChars}`; });

  function readFile(file) {
    return new Promise((resolve, reject) => {
      const reader = new FileReader();
      reader.onload = () => resolve(String(reader.result));
      reader.onerror = () => reject(new Error("the image could not be read"));
      reader.readAsDataURL(file);
    });
  }

  async function call(url, body) {
    const response = await fetch(url, {
      method: body ? "POST" : "GET", credentials: "same-origin",
      headers: { "Content-Type": "application/json", Accept: "application/json" },
      body: body ? JSON.stringify(body) : undefined,
    });
    const data = await response.json().catch(() => ({}));
    if (!response.ok) throw new Error(typeof data.detail === "string" ? data.detail : `request failed (${response.status})`);
    return data;
  }

  function reset() {
    clearTimeout(st.poll);
    Object.assign(st, { battle: null, nonce: null, voted: false });
    $("open-stage").hidden = true;
    $("open-progress").hidden = true;
    $("open-again").hidden = true;
    $("open-go").disabled = false;
    $("open-reveal-left").textContent = "";
    $("open-reveal-right").textContent = "";
    choices(false);
  }

  $("open-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    reset();
    const text = prompt.value.trim();
    if (!text) { status("Type a prompt first."); prompt.focus(); return; }
    const body = { prompt: text, modality: modality(), consent: $("open-consent").checked, website: $("open-website").value };
    if (body.modality === "image_editing") {
      const file = $("open-reference").files[0];
      if (!file) { status("Choose the image to edit first."); return; }
      if (file.size > Number(panel.dataset.maxBytes)) { status("That image is too large."); return; }
      try { body.reference = await readFile(file); } catch (err) { status(err.message); return; }
    }
    $("open-go").disabled = true;
    try {
      const started = await call("/api/v1/open/battles", body);
      st.battle = started.id;
      $("open-progress").hidden = false;
      status("Both models are generating your prompt; the two images appear together.");
      poll();
    } catch (err) {
      status(err.message);
      $("open-go").disabled = false;
    }
  });

  async function poll() {
    const id = st.battle;
    let b;
    try { b = await call(`/api/v1/open/battles/${encodeURIComponent(id)}`); } catch (err) { status(err.message); $("open-go").disabled = false; return; }
    if (id !== st.battle) return;
    if (b.status === "generating") {
      $("open-elapsed").textContent = `Generating both images… ${b.elapsed} s (at most ${Math.round(b.timeout)} s)`;
      st.poll = setTimeout(poll, 1000);
      return;
    }
    $("open-progress").hidden = true;
    if (b.status !== "ready") {
      status(b.message || "This battle ended without images.");
      $("open-again").hidden = false;
      $("open-go").disabled = false;
      return;
    }
    solveProofOfWork(b.challenge, b.difficulty).then((nonce) => { if (st.battle === id) st.nonce = nonce; });
    const loads = ["left", "right"].map((side) => new Promise((resolve, reject) => {
      const img = $(`open-img-${side}`);
      img.onload = resolve;
      img.onerror = () => reject(new Error("an image failed to load"));
      img.src = b.images[side];
    }));
    if (b.reference) { $("open-side-reference").hidden = false; $("open-img-reference").src = b.reference; } else { $("open-side-reference").hidden = true; }
    try { await Promise.all(loads); } catch (err) { status(err.message); return; }
    $("open-stage").hidden = false;
    $("open-stage").scrollIntoView({ block: "start" });  // a phone shows the form first: bring the images into view
    status("Look at both images; voting opens in a moment.");
    setTimeout(() => { if (st.battle === id && !st.voted) { choices(true); status("Which is better?"); } }, Math.max(0, Number(b.min_seconds) || 0) * 1000);
  }

  for (const button of panel.querySelectorAll("[data-open-choice]")) {
    button.addEventListener("click", async () => {
      if (st.voted || !st.battle) return;
      st.voted = true;
      choices(false);
      status("Recording your vote…");
      while (st.nonce === null) await new Promise((r) => setTimeout(r, 20));
      try {
        const reveal = await call("/api/v1/open/votes", { battle_id: st.battle, choice: button.dataset.openChoice, nonce: st.nonce, website: $("open-website").value });
        if (reveal.counted === false) {
          status(reveal.message);
        } else {
          for (const side of ["left", "right"]) $(`open-reveal-${side}`).textContent = `${reveal[side].name} (${reveal[side].organization})`;
          status("Thanks: your vote was counted. The models are revealed below each image.");
        }
      } catch (err) {
        status(err.message);
      }
      $("open-again").hidden = false;
      $("open-go").disabled = false;
    });
  }
  $("open-again").addEventListener("click", () => { reset(); status(""); prompt.focus(); });
})();
