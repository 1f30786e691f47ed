"""The web layer: routers for pages and the JSON API, and the dependencies they share."""
