// Starts the vendored Redoc on /redoc with the OpenAPI URL from the container's data attribute
// (no inline script, so the page works under the Content-Security-Policy).
(function () {
  "use strict";
  var root = document.getElementById("redoc-root");
  Redoc.init(root.dataset.openapiUrl, {}, root);
})();
