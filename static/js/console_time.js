// The operator console: rewrite each <time class="local-time" datetime="ISO"> from its server-side UTC text
// to the browser's local time (day, month, year, hours and minutes; the UTC text stays as the tooltip).
"use strict";
(function () {
  const format = new Intl.DateTimeFormat(undefined, {
    day: "numeric", month: "short", year: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short",
  });
  for (const el of document.querySelectorAll("time.local-time[datetime]")) {
    const moment = new Date(el.getAttribute("datetime"));
    if (Number.isNaN(moment.getTime())) continue;
    el.title = el.textContent;
    el.textContent = format.format(moment);
    el.dataset.local = "1";
  }
})();
