// Starts the vendored Swagger UI on /docs; the OpenAPI URL comes from the container's data attribute
// (no inline script, so the page works under the Content-Security-Policy).
(function () {
  "use strict";
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    deepLinking: true,
    validatorUrl: null,
    presets: [SwaggerUIBundle.presets.apis],
    layout: "BaseLayout",
  });
})();
