// The head-to-head picker: once one model is chosen, the other select offers only models of the same
// modality (two modalities never meet in a matchup); the server still answers a mixed pair with a 400.
(function () {
  "use strict";
  const selects = Array.from(document.querySelectorAll("select[data-pair-picker]"));
  if (selects.length !== 2) return;
  function modalityOf(select) {
    const option = select.selectedOptions[0];
    return option && option.dataset.modality ? option.dataset.modality : "";
  }
  function limit(changed) {
    const other = selects[0] === changed ? selects[1] : selects[0];
    const modality = modalityOf(changed);
    for (const group of other.querySelectorAll("optgroup")) {
      const off = modality !== "" && group.dataset.modality !== modality;
      group.disabled = off;
      group.hidden = off;
    }
    if (modality !== "" && modalityOf(other) !== "" && modalityOf(other) !== modality) other.value = "";
  }
  for (const select of selects) select.addEventListener("change", () => limit(select));
  const first = selects.find((s) => modalityOf(s) !== "");
  if (first) limit(first);
})();
