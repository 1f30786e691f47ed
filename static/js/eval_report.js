// Filters the eval report by verdict and failure tag (served page and standalone report file).
(function () {
  var v = document.getElementById("evr-verdict"), t = document.getElementById("evr-tag"), c = document.getElementById("evr-count");
  function apply() {
    var n = 0;
    document.querySelectorAll(".evr-item").forEach(function (el) {
      var show = (!v.value || el.dataset.verdict === v.value) && (!t.value || el.dataset.tags.indexOf(" " + t.value + " ") >= 0);
      el.hidden = !show; if (show) n++;
    });
    c.textContent = n + " items";
  }
  v.addEventListener("change", apply); t.addEventListener("change", apply);
})();
