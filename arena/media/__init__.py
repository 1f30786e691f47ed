"""Images: safe opening, the normalized media store, per-serve variants, and publication (outputs shown with
their model's name)."""
