"""The voter's side of the web app: matchup and vote routes, and the voter's own record (/me)."""
