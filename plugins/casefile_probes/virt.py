"""Is this host a virtual machine (or a container)?

Virtualisation changes what GPU numbers mean: a passthrough GPU in a VM can lose P2P, pay
extra latency on every kernel launch and doorbell, and see its PCIe link through an emulated
root port. The probe runs ``systemd-detect-virt`` (one word, no shell); pasted DMI strings
(``cat /sys/class/dmi/id/product_name`` / ``sys_vendor``, ``dmidecode -s
system-product-name``) are read too, alone or together, labelled by a prompt line or by a
``key: value`` prefix.

Facts, all on ``host``:

- ``host.virtualization`` (str): systemd-detect-virt's word ("none", "kvm", "qemu",
  "vmware", "microsoft", "xen", "oracle", "amazon", "google", "docker", …), or the same
  vocabulary inferred from DMI strings;
- ``host.virtualization.kind`` (str): "vm", "container" or "none";
- ``host.virtualized`` (bool): True when a hypervisor sits between the OS and the hardware
  (a VM, WSL included); a container alone is not virtualised in this sense, since its GPU
  access is native;
- ``host.dmi.product_name`` / ``host.dmi.sys_vendor`` (str) when pasted.

A DMI string that names no known virtual platform gives no verdict (bare metal is likely,
but an unknown hypervisor is possible); the result says so as a problem.
"""

from __future__ import annotations

import re

from casefile.domain.facts import ParseResult
from casefile.probes.api import Probe
from casefile_probes._text import clean_paste, is_prompt_line

__all__ = ["PROBE", "classify_dmi", "parse_virt"]

_VMS = frozenset(
    [
        "kvm",
        "amazon",
        "qemu",
        "bochs",
        "xen",
        "uml",
        "vmware",
        "oracle",
        "microsoft",
        "zvm",
        "parallels",
        "bhyve",
        "qnx",
        "acrn",
        "powervm",
        "apple",
        "sre",
        "google",
        "wsl",
    ]
)
_CONTAINERS = frozenset(
    [
        "openvz",
        "lxc",
        "lxc-libvirt",
        "systemd-nspawn",
        "docker",
        "podman",
        "rkt",
        "proot",
        "pouch",
        "container-other",
    ]
)
_WORDS = _VMS | _CONTAINERS | {"none", "vm-other"}

# (pattern over a DMI product name or vendor, systemd-detect-virt word); first match wins.
_DMI: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"\.metal\b", re.I), "none"),
    (re.compile(r"^Standard PC \(", re.I), "qemu"),
    (re.compile(r"\bQEMU\b", re.I), "qemu"),
    (re.compile(r"^KVM\b|\bKVM Virtual Machine\b|^OpenStack (?:Nova|Compute)", re.I), "kvm"),
    (re.compile(r"^Alibaba Cloud ECS|^Bochs", re.I), "kvm"),
    (re.compile(r"VMware", re.I), "vmware"),
    (re.compile(r"^Google(?: Compute Engine)?$", re.I), "google"),
    (re.compile(r"HVM domU|^Xen\b", re.I), "xen"),
    (re.compile(r"^Virtual Machine$|^Microsoft Corporation$", re.I), "microsoft"),
    (re.compile(r"^Amazon EC2\b", re.I), "amazon"),
    (re.compile(r"VirtualBox|^innotek GmbH$", re.I), "oracle"),
    (re.compile(r"^Parallels\b", re.I), "parallels"),
    (re.compile(r"^BHYVE\b", re.I), "bhyve"),
)

_LABEL = re.compile(
    r"^\s*(?:/sys/class/dmi/id/)?(?P<key>product_name|sys_vendor|system-product-name|"
    r"system-manufacturer|systemd-detect-virt|virtualization|virt)\s*[:=]\s*(?P<value>.*)$",
    re.I,
)
_CMD_KEYS = (
    (re.compile(r"systemd-detect-virt"), "virt"),
    (re.compile(r"product_name|system-product-name"), "product_name"),
    (re.compile(r"sys_vendor|system-manufacturer"), "sys_vendor"),
)
_KEY_ALIASES = {
    "system-product-name": "product_name",
    "system-manufacturer": "sys_vendor",
    "systemd-detect-virt": "virt",
    "virtualization": "virt",
}


def classify_dmi(value: str) -> str | None:
    """systemd-detect-virt's word for a DMI product name or vendor; None if not known."""
    text = value.strip()
    for pattern, word in _DMI:
        if pattern.search(text):
            return word
    return None


def _kind(word: str) -> str:
    if word in _CONTAINERS:
        return "container"
    if word == "none":
        return "none"
    return "vm"


def _collect(text: str) -> tuple[dict[str, str], list[str]]:
    """Labelled values and unlabelled lines, in order."""
    cleaned = clean_paste(text, keep_prompts=True)
    labelled: dict[str, str] = {}
    loose: list[str] = []
    pending: str | None = None
    for line in cleaned.lines:
        stripped = line.strip()
        if not stripped:
            continue
        if (from_prompt := _prompt_key(line)) is not None:
            pending = from_prompt or None
            continue
        if m := _LABEL.match(stripped):
            key = m.group("key").lower()
            labelled.setdefault(_KEY_ALIASES.get(key, key), m.group("value").strip())
            pending = None
            continue
        if pending is not None:
            labelled.setdefault(pending, stripped)
            pending = None
            continue
        loose.append(stripped)
    return labelled, loose


def _prompt_key(line: str) -> str | None:
    """The key a prompt line's command labels ("" for an unrelated prompt); None if no prompt."""
    command = is_prompt_line(line, hash_prompt=False)
    if command is None:
        return None
    for pattern, key in _CMD_KEYS:
        if pattern.search(command):
            return key
    return ""


def parse_virt(text: str) -> ParseResult:
    """Facts from systemd-detect-virt's word and/or pasted DMI strings."""
    labelled, loose = _collect(text)
    word: str | None = None
    raw_virt = labelled.get("virt")
    if raw_virt is not None and raw_virt.strip().lower() in _WORDS:
        word = raw_virt.strip().lower()
    for line in list(loose):
        if word is None and line.lower() in _WORDS:
            word = line.lower()
            loose.remove(line)
    product = labelled.get("product_name")
    vendor = labelled.get("sys_vendor")
    if product is None and vendor is None and loose and len(loose) <= 2:
        # Bare strings without labels count only when they name a known platform:
        # otherwise any stray line would pass for a product name.
        known = [line for line in loose if classify_dmi(line) is not None]
        if known and len(known) == len(loose):
            product = loose[0]
            vendor = loose[1] if len(loose) > 1 else None
    dmi_word = None
    for value in (product, vendor):
        if value and dmi_word is None:
            dmi_word = classify_dmi(value)
    if word is None and dmi_word is None and product is None and vendor is None:
        if raw_virt:
            return ParseResult.unparsed(f"not a systemd-detect-virt answer: {raw_virt[:80]!r}")
        sample = next(iter(loose), "")
        if not sample:
            return ParseResult.unparsed("empty output: no virtualisation word or DMI string")
        return ParseResult.unparsed(
            f"not systemd-detect-virt output nor a DMI product name: {sample[:80]!r}"
        )
    result = ParseResult()
    verdict = word or dmi_word
    if word and dmi_word and word != dmi_word and "none" in (word, dmi_word):
        result.problems.append(
            f"systemd-detect-virt says {word!r} but the DMI strings suggest {dmi_word!r}; "
            "the systemd-detect-virt answer is used"
        )
    if verdict is not None:
        result.add("host.virtualization", verdict)
        result.add("host.virtualization.kind", _kind(verdict))
        result.add("host.virtualized", _kind(verdict) == "vm")
    elif product or vendor:
        result.problems.append(
            f"DMI strings name no known virtual platform ({product or vendor!r}); no verdict "
            "(bare metal is likely; run systemd-detect-virt to be sure)"
        )
    result.add("host.dmi.product_name", product or None)
    result.add("host.dmi.sys_vendor", vendor or None)
    return result


PROBE = Probe(
    name="virt-detect",
    summary="Whether the host is a VM or a container (systemd-detect-virt; DMI strings pasted)",
    parse=parse_virt,
    argv=("systemd-detect-virt",),
    cost="instant",
    timeout_s=10.0,
    facts=(
        "host.virtualization",
        "host.virtualization.kind",
        "host.virtualized",
        "host.dmi.product_name",
        "host.dmi.sys_vendor",
    ),
    needs_load=False,
)
