"""The eval harness: suites of cases, graders, verdicts, reports and comparisons."""
