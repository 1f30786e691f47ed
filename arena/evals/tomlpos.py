"""Line numbers for TOML values, so a suite error can say `FILE:LINE`.

`tomllib` gives values without positions; this scans the source for table headers (`[x]`, `[[x]]`) and
`key =` lines and maps each (table path, array index, key) to its line. It understands the layout suites use
(tables, arrays of tables, dotted sub-tables, one key per line); anything it cannot place falls back to the
line of the enclosing table header.
"""

from __future__ import annotations

import re

HEADER = re.compile(r"^\s*(\[\[?)\s*([A-Za-z0-9_.\-\" ]+?)\s*\]\]?\s*(#.*)?$")
KEY = re.compile(r"^\s*([A-Za-z0-9_\-]+|\"[^\"]*\")\s*=")

Where = tuple[str, ...]


class Positions:
    """Lines of tables and keys. Paths look like ("cases", "3", "prompt") for the 4th [[cases]]' prompt."""

    def __init__(self, text: str) -> None:
        self.lines: dict[Where, int] = {}
        counts: dict[str, int] = {}
        current: Where = ()
        depth = 0  # open brackets of a multi-line value: keys inside it are not top-level keys
        in_string = False
        for number, line in enumerate(text.splitlines(), start=1):
            if line.count('"""') % 2 == 1:
                in_string = not in_string
                if not in_string:
                    continue
            if in_string or depth > 0:
                depth = max(0, depth + _balance(line))
                continue
            header = HEADER.match(line)
            if header:
                name = header.group(2).replace('"', "").strip()
                parts = tuple(p.strip() for p in name.split("."))
                if header.group(1) == "[[":
                    parent = self._resolve(parts[:-1], counts)
                    base = ".".join((*parent, parts[-1]))
                    index = counts.get(base, 0)
                    counts[base] = index + 1
                    current = (*parent, parts[-1], str(index))
                else:
                    current = (*self._resolve(parts[:-1], counts), parts[-1])
                self.lines.setdefault(current, number)
                continue
            key = KEY.match(line)
            if key:
                self.lines.setdefault((*current, key.group(1).strip('"')), number)
                depth = max(0, _balance(line.split("=", 1)[1]))

    def _resolve(self, parts: Where, counts: dict[str, int]) -> Where:
        """Dotted parents of an array of tables point at its latest element: [[models.sweeps]] -> models.N."""
        out: list[str] = []
        for part in parts:
            out.append(part)
            base = ".".join(out)
            if base in counts:
                out.append(str(counts[base] - 1))
        return tuple(out)

    def line(self, *path: object) -> int:
        """The line of `path`, or of its nearest enclosing table / key; 1 when nothing matches."""
        where = tuple(str(p) for p in path)
        while where:
            if where in self.lines:
                return self.lines[where]
            where = where[:-1]
        return 1


def _balance(text: str) -> int:
    """Open minus closed brackets and braces outside strings (for multi-line arrays and inline tables)."""
    text = re.sub(r'"(\\.|[^"\\])*"', "", text.split("#", 1)[0] if '"' not in text else text)
    return text.count("[") + text.count("{") - text.count("]") - text.count("}")
