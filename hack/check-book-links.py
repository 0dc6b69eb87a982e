#!/usr/bin/env python3
"""Fails when a link of the book (docs/src) leads nowhere: a relative link to a file
that is not there, or to a heading the page does not have; and when a page is not in
SUMMARY.md (mdBook would leave it out of the book).

Usage: hack/check-book-links.py [docs/src]
"""

import os
import re
import sys

LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
HEADING = re.compile(r"^#{1,6}\s+(.*)$")


def slug(heading):
    """mdBook's anchor of a heading: lower case, spaces to `-`, other punctuation gone."""
    text = re.sub(r"`|\*|_(?=\w)", "", heading.strip()).lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def outside_code(text):
    """The text with fenced code blocks and inline code blanked."""
    text = re.sub(r"```.*?```", "", text, flags=re.S)
    return re.sub(r"`[^`\n]*`", "", text)


def anchors(path):
    with open(path, encoding="utf-8") as f:
        text = outside_code(f.read())
    return {slug(m.group(1)) for line in text.splitlines() if (m := HEADING.match(line))}


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else "docs/src"
    problems = []
    pages = []
    for folder, _, files in os.walk(root):
        pages += [os.path.join(folder, f) for f in files if f.endswith(".md")]
    with open(os.path.join(root, "SUMMARY.md"), encoding="utf-8") as f:
        summary = {os.path.normpath(os.path.join(root, t)) for t in LINK.findall(f.read())}
    for page in sorted(pages):
        if os.path.basename(page) != "SUMMARY.md" and os.path.normpath(page) not in summary:
            problems.append(f"{page}: not in SUMMARY.md")
        with open(page, encoding="utf-8") as f:
            text = outside_code(f.read())
        for target in LINK.findall(text):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(page), file)) if file else page
            if not os.path.exists(dest):
                problems.append(f"{page}: {target}: no such file")
            elif anchor and dest.endswith(".md") and anchor not in anchors(dest):
                problems.append(f"{page}: {target}: no such heading")
    for problem in problems:
        print(problem, file=sys.stderr)
    print(f"book links: {len(pages)} pages, {len(problems)} problems")
    sys.exit(1 if problems else 0)


if __name__ == "__main__":
    main()
