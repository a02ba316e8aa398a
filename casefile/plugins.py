"""Plugin discovery through entry points: probes and playbooks, built-in or third-party.

Built-in plugins live under ``plugins/`` and register in the same entry-point groups as anyone
else's. Listing reads only the entry-point metadata (nothing is imported); loading imports one
plugin at a time, and a plugin that fails to import is reported, not fatal: the rest still work.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from importlib.metadata import EntryPoint, entry_points

from casefile.domain.playbook import Playbook
from casefile.errors import PluginError, did_you_mean
from casefile.probes.api import Probe

PROBE_GROUP = "casefile.probes"
PLAYBOOK_GROUP = "casefile.playbooks"


@dataclass(frozen=True)
class PluginInfo:
    group: str
    name: str
    target: str
    distribution: str | None


def list_plugins() -> list[PluginInfo]:
    """Every registered probe and playbook, from metadata alone (no imports)."""
    out = []
    for group in (PROBE_GROUP, PLAYBOOK_GROUP):
        for ep in entry_points(group=group):
            dist = ep.dist.name if ep.dist is not None else None
            out.append(PluginInfo(group, ep.name, ep.value, dist))
    return sorted(out, key=lambda p: (p.group, p.name))


@dataclass
class Registry:
    """The probes and playbooks one run of casefile can use.

    Built from entry points in production (:meth:`discover`), or from explicit objects in tests
    so that a test never depends on what happens to be installed.
    """

    probes: dict[str, Probe] = field(default_factory=dict)
    #: the newest version of each playbook, by id (what ``--playbook ID`` opens)
    playbooks: dict[str, Playbook] = field(default_factory=dict)
    #: every version installed, by ``ID@VERSION`` (a case opened from an older one keeps it)
    versions: dict[str, Playbook] = field(default_factory=dict)
    broken: dict[str, str] = field(default_factory=dict)
    _pending: dict[tuple[str, str], EntryPoint] = field(default_factory=dict)
    on_broken: Callable[[str, str], None] | None = None

    @classmethod
    def discover(cls, on_broken: Callable[[str, str], None] | None = None) -> Registry:
        registry = cls(on_broken=on_broken)
        for group in (PROBE_GROUP, PLAYBOOK_GROUP):
            for ep in entry_points(group=group):
                registry._pending[(group, ep.name)] = ep
        return registry

    @classmethod
    def of(cls, probes: Iterable[Probe] = (), playbooks: Iterable[Playbook] = ()) -> Registry:
        registry = cls(probes={p.name: p for p in probes})
        for playbook in playbooks:
            registry._file_playbook(playbook)
        return registry

    def _file_playbook(self, playbook: Playbook) -> None:
        self.versions.setdefault(playbook.ref, playbook)
        newest = self.playbooks.get(playbook.id)
        if newest is None or newest.version < playbook.version:
            self.playbooks[playbook.id] = playbook

    def _load(self, group: str, name: str) -> object | None:
        ep = self._pending.pop((group, name), None)
        if ep is None:
            return None
        try:
            loaded: object = ep.load()
            return loaded
        except Exception as error:  # any plugin bug must not stop casefile
            message = f"{type(error).__name__}: {error}"
            self.broken[f"{group}:{name}"] = message
            if self.on_broken is not None:
                self.on_broken(f"{group}:{name}", message)
            return None

    def _load_all(self, group: str) -> None:
        for key in [k for k in self._pending if k[0] == group]:
            self._accept(group, key[1], self._load(*key))

    def _accept(self, group: str, name: str, loaded: object) -> None:
        """File a loaded plugin under its own name, or report it as broken if it is the wrong
        kind of object (the entry-point name is only where to find it)."""
        if group == PROBE_GROUP and isinstance(loaded, Probe):
            self.probes.setdefault(loaded.name, loaded)
            if loaded.name != name:
                self.probes.setdefault(name, loaded)
        elif group == PLAYBOOK_GROUP and isinstance(loaded, Playbook):
            self._file_playbook(loaded)
        elif loaded is not None:
            message = f"not a {group} object but {type(loaded).__name__}"
            self.broken[f"{group}:{name}"] = message
            if self.on_broken is not None:
                self.on_broken(f"{group}:{name}", message)

    def all_probes(self) -> dict[str, Probe]:
        self._load_all(PROBE_GROUP)
        return self.probes

    def all_playbooks(self) -> dict[str, Playbook]:
        self._load_all(PLAYBOOK_GROUP)
        return self.playbooks

    def probe(self, name: str) -> Probe:
        if name not in self.probes and (PROBE_GROUP, name) in self._pending:
            self._accept(PROBE_GROUP, name, self._load(PROBE_GROUP, name))
        if name in self.probes:
            return self.probes[name]
        if f"{PROBE_GROUP}:{name}" in self.broken:
            raise PluginError(
                f"probe {name!r} failed to load: {self.broken[f'{PROBE_GROUP}:{name}']}"
            )
        names = sorted(set(self.probes) | {n for g, n in self._pending if g == PROBE_GROUP})
        known = ", ".join(names) or "none"
        raise PluginError(f"no probe {name!r}{did_you_mean(name, names)} (installed: {known})")

    def all_playbook_versions(self) -> list[Playbook]:
        """Every installed version of every playbook, oldest first within an id."""
        self._load_all(PLAYBOOK_GROUP)
        return sorted(self.versions.values(), key=lambda b: (b.id, b.version))

    def playbook(self, pid: str) -> Playbook:
        """A playbook by ``ID`` (its newest version) or ``ID@VERSION``."""
        playbooks = self.all_playbooks()
        if "@" in pid:
            if pid in self.versions:
                return self.versions[pid]
            known = ", ".join(sorted(self.versions)) or "none"
            hint = did_you_mean(pid, self.versions)
            raise PluginError(f"no playbook {pid!r}{hint} (installed: {known})")
        if pid not in playbooks:
            known = ", ".join(sorted(playbooks)) or "none"
            hint = did_you_mean(pid, playbooks)
            raise PluginError(f"no playbook {pid!r}{hint} (installed: {known})")
        return playbooks[pid]
