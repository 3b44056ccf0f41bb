"""docs/rules.md, the rules specification the code and tests cite by rule ID, is in the repository
and says what every cited ID means."""

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DOC = ROOT / "docs" / "rules.md"
MASTER = ROOT.parent / "shared" / "RULES.md"  # the project's master copy, beside a working checkout


def _body(text: str) -> str:
    return re.sub(r"\A<!--.*?-->\n\n", "", text, flags=re.S)


def test_the_copy_is_the_master_copy_where_that_is_present():
    if not MASTER.is_file():
        pytest.skip("no master copy beside this checkout (a fresh clone)")
    assert _body(DOC.read_text(encoding="utf-8")) == MASTER.read_text(encoding="utf-8")


def test_every_rule_id_the_package_cites_is_defined():
    defined = set(re.findall(r"^- ((?:C|SY|TT|ME)-\d+[a-z]?)\b", _body(DOC.read_text(encoding="utf-8")), flags=re.M))
    assert {"C-1", "C-3", "SY-7", "TT-1", "ME-1"} <= defined
    cited: set[str] = set()
    for package in ("dice_envs", "agents", "evaluate", "train"):
        for path in (ROOT / package).rglob("*.py"):
            cited |= set(re.findall(r"\b((?:C|SY|TT|ME)-\d+[a-z]?)\b", path.read_text(encoding="utf-8")))
    for page in [ROOT / "README.md", *(p for p in (ROOT / "docs").glob("*.md") if p != DOC)]:
        cited |= set(re.findall(r"\b((?:C|SY|TT|ME)-\d+[a-z]?)\b", page.read_text(encoding="utf-8")))
    # an ID with a letter (TT-9e) is defined when its number is
    missing = {i for i in cited if i not in defined and re.sub(r"[a-z]$", "", i) not in defined}
    assert not missing, f"cited but not defined in docs/rules.md: {sorted(missing)}"


def test_the_docstrings_point_to_the_copy_in_the_repository():
    for package in ("dice_envs", "agents", "evaluate", "train"):
        for path in (ROOT / package).rglob("*.py"):
            text = path.read_text(encoding="utf-8")
            assert "shared/RULES.md" not in text and "CONTRACTS.md" not in text, path
            assert not re.search(r"(?<!docs/)RULES\.md", text), path
