"""Plugins are found through entry points; a broken one is reported and the rest still work.

A throwaway distribution is put on ``PYTHONPATH`` (a ``.dist-info`` with ``entry_points.txt``
beside a module that raises on import), and casefile runs in a subprocess so that the
entry-point metadata is read fresh, exactly as for an installed third-party plugin.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

CORPUS = Path(__file__).resolve().parents[2].parent / "shared" / "corpus"


@pytest.fixture
def broken_plugin_path(tmp_path: Path) -> Path:
    dist = tmp_path / "broken_casefile_plugin-0.1.dist-info"
    dist.mkdir()
    (dist / "METADATA").write_text(
        "Metadata-Version: 2.1\nName: broken-casefile-plugin\nVersion: 0.1\n"
    )
    (dist / "entry_points.txt").write_text(
        "[casefile.probes]\nbroken = broken_casefile_probe:PROBE\n"
    )
    (tmp_path / "broken_casefile_probe.py").write_text(
        "raise RuntimeError('this plugin is broken on purpose')\n"
    )
    return tmp_path


def casefile(*args: str, path: Path) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(path))
    return subprocess.run(
        [sys.executable, "-m", "casefile", *args],
        capture_output=True,
        text=True,
        env=env,
        check=False,
    )


def test_listing_does_not_import_plugins(broken_plugin_path: Path) -> None:
    listed = casefile("plugins", path=broken_plugin_path)
    assert listed.returncode == 0
    assert "broken" in listed.stdout and "broken_casefile_probe:PROBE" in listed.stdout
    assert "failed to load" not in listed.stderr  # listing reads metadata only


def test_a_broken_plugin_is_reported_and_the_others_still_work(broken_plugin_path: Path) -> None:
    checked = casefile("plugins", "--check", path=broken_plugin_path)
    assert checked.returncode == 0
    assert "plugin casefile.probes:broken failed to load" in checked.stderr
    assert "broken on purpose" in checked.stderr
    parsed = casefile("parse", "lspci", str(CORPUS / "lspci" / "002.txt"), path=broken_plugin_path)
    assert parsed.returncode == 0 and "pcie.link.width.current" in parsed.stdout
    asked = casefile("parse", "broken", str(CORPUS / "lspci" / "002.txt"), path=broken_plugin_path)
    assert asked.returncode == 1
    assert "probe 'broken' failed to load" in asked.stderr
    assert "Traceback" not in asked.stderr
