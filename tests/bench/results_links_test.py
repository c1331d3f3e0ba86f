#!/usr/bin/env python3
"""bench/RESULTS.md is today's figures: a section per recipe of bench/gpu/run.sh, at most 300
lines; and every section of the dated notebook that it, the READMEs, docs/ and the comments point
at by its heading ("2026-11-23 — ...", a trailing "..." for a shortened one) is
a heading of bench/archive/RESULTS.md. A pointer by a heading's title alone
(bench/archive/RESULTS.md, "the step's samples stratified") names part of one archive heading's
title; one into today's page (bench/RESULTS.md, "large: large photos") part of exactly one of its
headings, so that the reader finds one section.

    results_links_test.py REPO_DIR"""
import os
import re
import subprocess
import sys

SOURCES = (".cpp", ".hpp", ".h", ".c", ".sh", ".py", ".yaml", ".md", ".txt", ".cmake")
WHERE = ("README.md", "bench", "docs", "host", "nodes", "plugin", "kernels", "graphs", "scripts", "tests", "examples",
         "cmake")


def flattened(path):
    """The file's text with comment markers and line breaks folded into single spaces."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = [re.sub(r"^\s*(//+|#+|\*|;)?\s?", "", line.rstrip("\n")) for line in f]
    return re.sub(r"\s+", " ", " ".join(lines))


# A pointer by title: the file, a comma, and part of a heading in double quotes.
TITLE_POINTER = re.compile(r'bench/(archive/)?RESULTS\.md`?,? "([^"]+)"')


def title_failures(rel, text, archive_titles, current_headings):
    """The pointers by title in `text` that name no heading, or (today's page) more than one."""
    failures = []
    count = 0
    for archive, quoted in TITLE_POINTER.findall(text):
        if re.match(r"20\d\d-\d\d-\d\d", quoted):
            continue  # a dated heading: checked whole, below
        count += 1
        name = quoted[:-3].rstrip(" ,") if quoted.endswith("...") else quoted
        if archive:
            if not any(name in title for title in archive_titles):
                failures.append(f'{rel}: no archive heading titled "...{quoted[:100]}..."')
        else:
            found = [h for h in current_headings if name in h]
            if len(found) != 1:
                failures.append(f'{rel}: "{quoted[:100]}" names {len(found)} headings of bench/RESULTS.md '
                                f"({'; '.join(found) or 'none'}), not one")
    return count, failures


def main(repo):
    failures = []
    archive = os.path.join(repo, "bench", "archive", "RESULTS.md")
    with open(archive, encoding="utf-8") as f:
        headings = [line[3:].strip() for line in f if line.startswith("## ")]
    results = os.path.join(repo, "bench", "RESULTS.md")
    with open(results, encoding="utf-8") as f:
        text = f.read()
    if text.count("\n") > 300:
        failures.append(f"bench/RESULTS.md has {text.count(chr(10))} lines (today's figures: at most 300)")
    archive_titles = [h.split(" — ", 1)[-1] for h in headings]
    current_headings = [line[3:].strip() for line in text.splitlines() if line.startswith("## ")]
    recipes = subprocess.run(["bash", os.path.join(repo, "bench", "gpu", "run.sh"), "--list"],
                             capture_output=True, text=True, check=True).stdout.split()
    for recipe in recipes:
        if not re.search(rf"^## {recipe}:", text, re.M):
            failures.append(f"bench/RESULTS.md has no section '## {recipe}: ...'")
    checked = 0
    titled = 0
    for top in WHERE:
        base = os.path.join(repo, top)
        paths = [base] if os.path.isfile(base) else [
            os.path.join(d, n) for d, _, names in os.walk(base) for n in names if n.endswith(SOURCES + (".glsl", ".comp"))]
        for path in paths:
            rel = os.path.relpath(path, repo)
            if rel.startswith("bench/archive"):
                continue
            text_here = flattened(path)
            count, found = title_failures(rel, text_here, archive_titles, current_headings)
            titled += count
            failures += found
            for quoted in re.findall(r'"(20\d\d-\d\d-\d\d[^"]*)"', text_here):
                checked += 1
                short = quoted.endswith("...")
                name = quoted[:-3].rstrip(" ,") if short else quoted
                if not any(h == name or (short and h.startswith(name)) for h in headings):
                    failures.append(f"{rel}: no archive section \"{quoted[:100]}\"")
    if checked < 5:
        failures.append(f"only {checked} section headings found to check")
    if failures:
        print("FAIL:\n" + "\n".join(failures))
        return 1
    print(f"ok: {checked} pointers to archive sections by heading, {titled} by title, {len(recipes)} recipes in "
          "bench/RESULTS.md")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
