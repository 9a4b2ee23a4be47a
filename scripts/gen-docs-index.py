#!/usr/bin/python3
"""Writes docs/index.md, the docs site's home page, from README.md: the same text with the README's links
into docs/ made relative to the site, so the two never drift apart.

    scripts/gen-docs-index.py            write docs/index.md
    scripts/gen-docs-index.py --check    exit 1 when docs/index.md differs (the test docs_index)
"""
import pathlib
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "README.md"
TARGET = ROOT / "docs" / "index.md"

# The README's sentences that point at the site itself or at files outside docs/, as the site says them.
REWRITES = [
    ("The full documentation is in [`docs/`](docs/index.md), a site for `mkdocs serve`.",
     "These pages are the documentation (the repository's `docs/`, built with `mkdocs`)."),
    ("[LICENSE](LICENSE)", "`LICENSE` in the repository"),
]


def render(text):
    for old, new in REWRITES:
        if old not in text:
            raise SystemExit(f"gen-docs-index.py: README.md no longer says {old!r}: update REWRITES")
        text = text.replace(old, new)
    return text.replace("](docs/", "](")


def main():
    text = render(SOURCE.read_text(encoding="utf-8"))
    if sys.argv[1:] == ["--check"]:
        if TARGET.exists() and TARGET.read_text(encoding="utf-8") == text:
            print("docs/index.md matches README.md")
            return 0
        print("docs/index.md differs from what README.md gives: run scripts/gen-docs-index.py and commit "
              "docs/index.md", file=sys.stderr)
        return 1
    if sys.argv[1:]:
        print("usage: scripts/gen-docs-index.py [--check]", file=sys.stderr)
        return 2
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
