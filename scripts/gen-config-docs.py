#!/usr/bin/python3
"""Writes docs/config.md, the reference of every training config key, from the comments of
configs/kalah.ini (the file that documents every key in place: a comment block, a "Default: D. Range: R."
line, then the key). Lines starting "Here " explain kalah.ini's own choice and are left out.

    scripts/gen-config-docs.py            write docs/config.md
    scripts/gen-config-docs.py --check    exit 1 when docs/config.md differs (the test config_docs)
"""
import html
import pathlib
import re
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent
SOURCE = ROOT / "configs" / "kalah.ini"
TARGET = ROOT / "docs" / "config.md"

KEY = re.compile(r"^(#\s*)?([a-z_0-9]+)\s*=\s*(.*)$")
SECTION = re.compile(r"^\[([a-z]+)\]\s*$")
DEFAULT = re.compile(r"^Default:\s*(.*?)\.\s*Range:\s*(.*?)\.?$")


def md(text):
    """Plain comment text as Markdown: no HTML, no emphasis from arithmetic; the design document's
    sections as the site's design page."""
    text = re.sub(r"(?:docs/design|DESIGN)\.md,? (?:§|section )?(\d[\d.]*\d|\d)", r"design §\1", text)
    return html.escape(text, quote=False).replace("*", r"\*")


def parse(lines):
    """[(section, intro, [(key, value, default, range, meaning)])] in file order."""
    sections, block, skipping = [], [], False
    for raw in lines:
        line = raw.rstrip("\n")
        m = SECTION.match(line)
        if m:
            sections.append((m.group(1), [], []))
            block, skipping = [], False
            continue
        if not sections:
            continue
        if not line.strip():
            if block and not sections[-1][2]:
                sections[-1][1].extend(block)  # a section's own comment, before its first key
            block, skipping = [], False
            continue
        m = KEY.match(line)
        if m and (m.group(1) is None or any(DEFAULT.match(b) for b in block)):
            default = rng = ""
            meaning = []
            for b in block:
                d = DEFAULT.match(b)
                if d:
                    default, rng = d.group(1), d.group(2)
                else:
                    meaning.append(b)
            value = m.group(3).strip() if m.group(1) is None else "(not set)"
            sections[-1][2].append((m.group(2), value, default, rng, " ".join(meaning)))
            block, skipping = [], False
            continue
        if line.startswith("#"):
            text = line[1:].strip()
            if text.startswith("Here "):
                skipping = True
            elif text.startswith("Default:"):
                skipping = False
            if not skipping:
                block.append(text)
    return sections


def render(sections):
    out = [
        "# Config keys",
        "",
        "Every key of a training config (`sowzero train CONFIG.ini`), section by section, with its default and",
        "range and the value `configs/kalah.ini` gives it. This page is written by `scripts/gen-config-docs.py`",
        "from the comments of `configs/kalah.ini` (the test `config_docs` keeps the two in step); the other",
        "configs set fewer keys and leave the rest at their defaults.",
        "",
        'Format: `key = value` under `[section]` headers; `#` or `;` starts a comment. Keys left out take the',
        "default. Unknown keys, bad values and values out of range are errors naming `file:line` and the key.",
        "Any key can be set from the command line with `--set section.key=value`.",
        "",
    ]
    for name, intro, keys in sections:
        out += [f"## [{name}]", ""]
        if intro:
            out += [md(" ".join(intro)), ""]
        for key, value, default, rng, meaning in keys:
            facts = f"default {md(default) or '(none)'}; range {md(rng) or '(any)'}; kalah.ini: {md(value) or '(empty)'}"
            out += [f"`{name}.{key}`", f":   {md(meaning)} ({facts})", ""]
    return "\n".join(out).rstrip("\n") + "\n"


def main():
    text = render(parse(SOURCE.read_text(encoding="utf-8").splitlines()))
    if sys.argv[1:] == ["--check"]:
        if TARGET.exists() and TARGET.read_text(encoding="utf-8") == text:
            print(f"{TARGET.relative_to(ROOT)} matches {SOURCE.relative_to(ROOT)}")
            return 0
        print(f"{TARGET.relative_to(ROOT)} differs from what {SOURCE.relative_to(ROOT)}'s comments give: "
              "run scripts/gen-config-docs.py and commit docs/config.md", file=sys.stderr)
        return 1
    if sys.argv[1:]:
        print("usage: scripts/gen-config-docs.py [--check]", file=sys.stderr)
        return 2
    TARGET.write_text(text, encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
