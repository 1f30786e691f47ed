"""The operator console: sign-in gate and navigation, jobs, models, prompts, votes, audit log, operators,
retirement, evals and judge pages."""
