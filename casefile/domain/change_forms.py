"""How people write the one change of an A/B, and the forms a rule's pattern is tried on.

A rule's pattern is written for one spelling (``NCCL_P2P_DISABLE=1``, "nccl 2.18 -> 2.19");
people write others ("export NCCL_P2P_DISABLE=1", "NCCL_P2P_DISABLE: true", "pip install
nvidia-nccl-cu12==2.19.3"). Matching tries the change as written and in a normal form; the
event keeps the words as written. Which way a change runs is read here too: a switch flipped
(:func:`turned_on`) and a number raised or lowered (:func:`raised`), each against the state or
direction an experiment rule's own A/B declares (``ExperimentRule.undoes``).
"""

from __future__ import annotations

import re
from collections.abc import Callable
from functools import lru_cache
from itertools import islice

from casefile.domain.change_arrow import plain_arrows

#: a setting's name up to its value: everything to the last space, "=" or ":"
SUBJECT = re.compile(r"^(.*[\s=:])")
_NAME = r"[A-Za-z_][A-Za-z0-9_.]*"
#: a setting written "NAME VALUE" must look like one: an environment-style name
_SETTING = r"(?:[A-Za-z][A-Za-z0-9]*_[A-Za-z0-9_]*|[A-Z][A-Z0-9]+)"
OFF_WORDS = ("disable", "disabled", "off", "false", "no")
ON_WORDS = ("enable", "enabled", "on", "true", "yes")
_SWITCH = "|".join(OFF_WORDS + ON_WORDS)
_PACKAGE = r"(?!(?:version|from|to)\b)[A-Za-z][A-Za-z0-9_.+-]*"
#: a version: dotted where nothing else says it is one ("2.19.3", "v0.4.2", "2.3.1+cu121")
_DOTTED = r"v?[0-9]+\.[0-9]+[A-Za-z0-9_.+-]*"
_ANY_VERSION = r"v?[0-9][A-Za-z0-9_.+-]*"
_VERB = r"(?:downgraded|downgrade|upgraded|upgrade|updated|update|rolled back|reverted|pinned)"
#: where a package's name may begin: not inside a word, nor after a word's ".", "+" or "-"
#: ("D" in "-D-D", "b" in "a.b"). The name's pattern spans those characters, so a match from
#: inside a run ends where one from the run's start does; trying every inside start as well
#: scanned the run again from each, which made a long run cost its length squared. A
#: setting's name (:data:`_NAME`) spans "." but not "-", so it may begin after a "-"
#: ("after-upgrade=no", "--enforce-eager=true") and not after a "." (but for a list's number
#: before it, "2.NCCL_P2P_DISABLE=1": one more start per run keeps it linear).
_PACKAGE_START = r"(?<!\w)(?<!\w[.+-])"
#: a setting whose value is a fraction or a rate, not a package's version ("gpu_memory_utilization
#: from 0.9 to 0.95", "temperature 0.7 -> 0.2")
_A_FRACTION = (
    r"[\w.+-]*?(?:util|ratio|fraction|rate\b|_rate|temperature|threshold|factor|prob|percent"
    r"|scale|decay|momentum|dropout|lr\b)"
)
_NAME_START = r"(?:(?<![\w.])|(?<=(?<![\w.])\d\.))"


#: "PKG [from] 2.18 -> 2.19": a package's name before two dotted versions
_DOTTED_MOVE = re.compile(
    rf"{_PACKAGE_START}(?!(?i:{_A_FRACTION}))({_PACKAGE})\s+(?:from\s+)?({_DOTTED})\s*(?:->|\bto\b)"
    rf"\s*({_DOTTED})"
)
#: a verb of moving a value, which stands where a package's name would ("lowered from 0.8 to
#: 0.1"): the setting it moves is named before it
_MOVE_VERB = re.compile(
    r"(?i)(?:lowered|raised|reduced|increased|decreased|changed|set|dropped|tuned|adjusted"
    r"|went|moved|lifted|cut)$"
)
#: a fraction setting's name ending the text before such a verb, a word or two between
#: ("sampling temperature lowered", "the memory utilisation was raised")
_NEAR = 80
_FRACTION_BEFORE = re.compile(rf"(?i)(?<![\w.+-]){_A_FRACTION}[\w.+-]*(?:\s+\w+){{0,2}}\s+$")


def _as_version(match: re.Match[str]) -> str:
    """``PKG version OLD -> NEW`` for a dotted move, unless the word before the numbers is a
    verb that moves a fraction setting named just before it: "sampling temperature lowered
    from 0.8 to 0.1" is a setting, not the version of a package called "lowered"."""
    before = match.string[max(0, match.start() - _NEAR) : match.start()]  # bounded: linear
    if _MOVE_VERB.match(match[1]) and _FRACTION_BEFORE.search(before):
        return match[0]
    return f"{match[1]} version {match[2]} -> {match[3]}"


def _spelled(text: str) -> str:
    """Settings as ``NAME=VALUE`` and version changes as ``PKG version OLD -> NEW``."""
    out = re.sub(rf"\bexport\s+(?={_NAME}\s*=)", "", text)
    out = re.sub(rf"(?<![\w.])({_NAME}):\s*(?=[^\s/])", r"\1=", out)
    out = re.sub(
        rf"\bpip3?\s+install\s+(?:-\S+\s+)*({_PACKAGE})\s*==\s*({_ANY_VERSION})",
        r"\1 version -> \2",
        out,
    )
    out = re.sub(rf"{_PACKAGE_START}({_PACKAGE})\s*==\s*({_ANY_VERSION})", r"\1 version -> \2", out)
    out = re.sub(
        rf"\b{_VERB}\s+({_PACKAGE})\s+(?:from\s+({_ANY_VERSION})\s+)?to\s+({_ANY_VERSION})",
        lambda m: f"{m[1]} version {m[2] + ' ' if m[2] else ''}-> {m[3]}",
        out,
    )
    out = _DOTTED_MOVE.sub(_as_version, out)
    out = re.sub(
        rf"{_PACKAGE_START}({_PACKAGE})\s+{_VERB}\s+to\s+({_ANY_VERSION})", r"\1 version -> \2", out
    )
    # last, so that "NCCL 2.22 -> 2.23" has become a version change first
    return re.sub(rf"(?<![\w.=-])({_SETTING})\s+(?![=:-]|version\b|{_VERB}\b)(?=\S)", r"\1=", out)


#: a setting's name whose "on" turns the thing off (``enforce_eager``, ``NCCL_P2P_DISABLE``,
#: ``no_cuda_graph``)
_NEGATING = re.compile(r"(?i)disabl|eager|(?:^|[\s_-])no[\s_-]|without")
#: a side that names the thing's off state on its own ("eager", "--enforce-eager",
#: "disable_custom_all_reduce"); "without" and "no" are left out here, since "without .item()"
#: is a fix, not a switch turned off
_OFF_STATE = re.compile(r"(?i)disabl|eager")


#: a number standing alone, with a unit after it at most ("8", "180 W", "1400W", "90%", a
#: sentence's "250W."); not one inside a name ("fp16", "x16", "RTX 4090" is a number, "64x64"
#: is not) or a version ("2.1.3")
_AMOUNT = re.compile(r"(?<![\w.])(\d+(?:\.\d+)?)\s?(?:[KMG]?W|%)?(?!\w|\.\w)")


#: zero given as a setting's value ("num_workers=0", "-ngl 0", "workers: 0", "num_workers to
#: 0")
_ZERO_VALUE = re.compile(
    r"(?i)(?<![\w.-])(?P<name>--?[a-z][\w-]{0,60}|[a-z_][\w.]{0,60})[\"']?"
    r"(?:\s{0,3}=\s{0,3}|\s{1,3}(?:to\s{1,3})?|:\s{1,3})0(?![\w.:])"
)
#: one given as a setting's value, its name one or two words ("batch size 1", "--max-num-seqs
#: 1", "OLLAMA_NUM_PARALLEL =1", "--parallel 1"); a name may follow any script's letters
#: ("设置OLLAMA_NUM_PARALLEL")
_ONE_VALUE = re.compile(
    r"(?i)(?<![A-Za-z0-9_.-])(?P<name>(?:[a-z_][\w.]{0,60}\s{1,3})?(?:--?[a-z][\w-]{0,60}"
    r"|[a-z_][\w.]{0,60}))[\"'`]?(?:\s{0,3}=\s{0,3}|\s{1,3}(?:to\s{1,3})?|:\s{1,3})1(?![\w.:])"
    r"(?!\s*(?:to\b|->|→|=>))"
)
#: a setting whose one switches a thing on, not a number at its floor ("DYNAMIC_BATCHING=1",
#: "--enable-dynamic-batching 1"); a word before it that says where a move started ("from 1
#: to 16")
_SWITCHES_ON = re.compile(r"(?i)^-*enabl|batching$")
_START = frozenset({"from", "was"})
_DEVICE_NAME = re.compile(r"(?i)^-*(gpus?|cuda|devices?|rank|node|id|index|cuda_visible_devices)$")


def set_to_zero(change: str, subject: str) -> bool:
    """Whether a one-sided change sets the count ``subject`` names to zero ("num_workers=0",
    "-ngl 0"): a count at zero can only have been lowered, whatever it was before. Another
    setting's zero is not the count's ("--temp 0", "--seed 0"), nor a device's index."""
    return any(
        _DEVICE_NAME.match(m.group("name")) is None
        and re.search(subject, m.group("name"), re.IGNORECASE) is not None
        for m in _ZERO_VALUE.finditer(change)
    )


def set_to_one(change: str, subject: str) -> bool:
    """Whether a one-sided change sets the number ``subject`` names to one ("batch size 1",
    "--max-num-seqs 1", "OLLAMA_NUM_PARALLEL=1"): asked only for a number that is at least
    one (a rule's ``at_least_one``: a batch, the requests served at once), whose one is its
    floor, so it can only have been lowered; a count's one (loader workers, layers) may be a
    raise from none, and a mode's one is a mode. Not a switch's one ("DYNAMIC_BATCHING=1"),
    nor a move's start ("from 1 to 16")."""
    return any(
        re.search(subject, m.group("name"), re.IGNORECASE) is not None
        and _SWITCHES_ON.search(m.group("name").split()[-1]) is None
        and m.group("name").split()[0].lower() not in _START
        for m in _ONE_VALUE.finditer(change)
    )


_LOWER = r"lower(?:ed)?|reduc(?:e|ed|es|ing)|decreas(?:e|ed|es|ing)|smaller|fewer|less"
_HIGHER = r"higher|rais(?:e|ed|es|ing)|increas(?:e|ed|es|ing)|larger|bigger|more"
_AFTER = r"raised|increased|doubled|lowered|reduced|decreased|halved"


def said_raised(change: str, subject: str) -> bool | None:
    """Whether a change with no arrow says the number ``subject`` names went up ("a larger
    batch", "more loader workers", "power limit raised": True) or down
    ("set a lower power limit", "reduced batch size": False): the word beside the number's
    name, at most two words before it or just after it; or the number set to a share of what
    it was ("power limit to about 60%": down). None where it says neither, or both; a word
    about something else ("batch size 64 for lower latency") says nothing, and "low" and
    "high" say nothing ("left low power mode" raises the limit)."""
    gap = r"(?:[^\s,;]{1,40}\s{1,3}){0,2}?"
    before = rf"(?i)\b(?P<way>{_LOWER}|{_HIGHER})\s{{1,3}}{gap}\W{{0,2}}(?:{subject})"
    passive = r"(?:(?:was|were|is|got)\s{1,3})?"
    after = rf"(?i)(?:{subject})[\w.-]{{0,40}}\s{{1,3}}{passive}(?P<way>{_AFTER})\b"
    words = [m.group("way").lower() for m in re.finditer(before, change)]
    words += [m.group("way").lower() for m in re.finditer(after, change)]
    up = any(re.fullmatch(f"{_HIGHER}|raised|increased|doubled", w) for w in words)
    down = any(re.fullmatch(f"{_LOWER}|lowered|reduced|decreased|halved", w) for w in words)
    share = (
        rf"(?i)(?:{subject})[^,;%]{{0,20}}?\bto\s{{1,3}}(?:about\s+|around\s+|~\s*)?"
        r"(?P<pct>\d{1,3})\s?%"
    )
    for found in re.finditer(share, change):
        percent = int(found.group("pct"))
        up, down = up or percent > 100, down or percent < 100
    return None if up == down else up


_VALUE = r"(\S+(?:\s?(?:[KMG]?W|%|GB|MB|GiB|MiB))?)"
#: "from 390 W to 230 W", and the other order people also write: "set to 230 W from 390 W"
_FROM_TO = re.compile(rf"(?i)\bfrom\s+{_VALUE}\s+to\s+{_VALUE}")
_TO_FROM = re.compile(rf"(?i)\bto\s+{_VALUE}\s+from\s+{_VALUE}")


def moved_in_words(change: str) -> bool | None:
    """Whether a change with no arrow raises its number, written "from OLD to NEW" or "to
    NEW from OLD" ("was set to 230.00 W from 390.00 W": lowered); None where it says
    neither (or the values hold no number)."""
    found = _FROM_TO.search(change)
    if found is not None:
        return raised(found.group(1), found.group(2))
    found = _TO_FROM.search(change)
    return None if found is None else raised(found.group(2), found.group(1))


def raised(before: str, after: str) -> bool | None:
    """Whether a change raises its number: the before side's number nearest the arrow against
    the after side's first ("batch size 32 -> 8": lowered). None where a side has none or the
    two are equal."""
    old = [float(m.group(1)) for m in _AMOUNT.finditer(before)]
    new = [float(m.group(1)) for m in _AMOUNT.finditer(after)]
    if not old or not new or old[-1] == new[0]:
        return None
    return new[0] > old[-1]


def written_raised(number_in: str, before: str, after: str) -> bool | None:
    """Whether a change raises a number written inside a word (``number_in``: a pattern whose
    groups hold it, one group per kind: "Gen4", "x16"): kind by kind in the after side's
    order, the before side's last of a kind against the after side's first of it; the first
    kind that differs decides ("PCIe 3.0 x16 -> PCIe 3.0 x4": the width). None where none
    differs."""
    old = _written(number_in, before)
    seen: set[int] = set()
    for kind, value in _written(number_in, after):
        earlier = [number for other, number in old if other == kind]
        if kind in seen or not earlier:
            continue
        seen.add(kind)
        if earlier[-1] != value:
            return value > earlier[-1]
    return None


#: "from OLD to NEW" in words, each side within its clause (a decimal point is no clause's end)
_FROM_TO_WORDED = re.compile(r"(?i)\bfrom (?P<old>[^,;]{1,40}?) to (?P<new>(?:[^,;.]|\.\d){1,40})")


def worded_raised(number_in: str, change: str) -> bool | None:
    """:func:`written_raised` of a change with no arrow that says "from OLD to NEW"
    ("downgraded PCIe from Gen4 to Gen3"); None where it says neither. Spaces are one space
    first, so a long run of them costs no more than its length."""
    found = _FROM_TO_WORDED.search(" ".join(change.split()))
    return None if found is None else written_raised(number_in, found["old"], found["new"])


def _written(number_in: str, side: str) -> list[tuple[int, float]]:
    """Each number ``number_in`` finds in ``side``, with the group (its kind) that held it."""
    found = []
    for match in re.finditer(number_in, side, re.IGNORECASE):
        kind = next((i for i, group in enumerate(match.groups()) if group is not None), None)
        if kind is not None:
            found.append((kind, float(match.groups()[kind])))
    return found


#: words that take away what a one-sided change names ("--enforce-eager removed", "stop
#: forcing --enforce-eager")
_REMOVAL = r"without|no|not|rm|remov\w*|dropp?\w*|unset|env\s+-u|delet\w*|stop\w*|revert\w*"
REMOVED = re.compile(rf"(?i)\b(?:{_REMOVAL})\b")
#: those, or words that scope it ("CUDA_LAUNCH_BLOCKING only for fcompare")
_TAKEN_AWAY = re.compile(rf"(?i)\b(?:{_REMOVAL}|only (?:for|in|on|when))\b")
#: a one-sided change that says it turns its thing on ("Enabling detect_anomaly"); not
#: "added", which as often adds a setting that turns a thing off ("added iommu=pt", "add
#: no_cuda_launch_blocking"), nor "allows", which as often says what a change is for ("ACS
#: turned off so that P2P is allowed")
ENABLING = re.compile(
    r"(?i)\benabl(?:e|ed|es|ing)\b|\bturn(?:ed|s|ing)? on\b|\bopt(?:s|ed|ing)?[- ]in\b"
)
#: the off state's setting with its value ("enforce_eager": false, --disable-x=1)
_OFF_VALUE = re.compile(
    r"(?i)(?:disabl\w*|eager)[\"']?\s{0,2}[:=]?\s{0,2}(?P<value>true|false|on|off|yes|no|1|0)\b"
)


#: a setting given a switch word as its value ("pin_memory=False", "non_blocking: true",
#: "CUDA_GRAPHS=off"); numbers are left out, since "num_workers=0" is a count, not a switch
_SWITCH_VALUE = re.compile(
    r"(?i)(?<![\w.])(?P<name>[A-Za-z_][A-Za-z0-9_.]{0,60})[\"']?\s{0,2}[:=]\s{0,2}[\"']?"
    r"(?P<value>true|false|on|off|yes|no|enabled?|disabled?)\b"
)


#: an environment variable set to 1 or 0, a switch by the way such variables are read
#: ("SGLANG_CUSTOM_AR_ALLOW_PCIE=1"), and so a lower-case flag's ("--xla_gpu_cuda_graph_level=0",
#: "pin_memory=0"); not a count's ("num_workers=0", "max_num_seqs=1", "batch_size=1")
_ENV_SWITCH = re.compile(
    r"(?i)(?<![\w.])(?!(?:num|n|max|min)_|[A-Z0-9_]*(?:size|count|workers|threads|layers|seqs|len)\b)"
    r"(?P<name>[A-Z][A-Z0-9]{0,30}_[A-Z0-9_]{1,60})\s{0,3}=\s{0,3}(?P<value>[01])(?![\w.])"
)


#: how many settings of a change are weighed, and how far a clause reaches either side of
#: one: a change is a sentence, and a pasted wall of settings must not cost a square
_SETTINGS = 16
_CLAUSE = 200


def _switch_value(change: str, names: Callable[[str], bool]) -> str | None:
    """The state a setting written with a switch word leaves its thing in, for the first
    setting ``names`` reads (the rule's own: "shuffle=False" says nothing of pinned memory):
    the word's, or its opposite where the name's "on" means off ("NCCL_P2P_DISABLE=true",
    "no_cuda_graph=on"); an environment variable's 1 or 0 likewise."""
    found = [
        *islice(_SWITCH_VALUE.finditer(change), _SETTINGS),
        *islice(_ENV_SWITCH.finditer(change), _SETTINGS),
    ]
    for value in found:
        # the setting with the words of its clause before it: "cuda graph: False"
        reach = max(0, value.start() - _CLAUSE)
        opened = max(reach - 1, *(change.rfind(mark, reach, value.start()) for mark in ",;(")) + 1
        if not names(change[opened : value.end()]):
            continue
        on = value.group("value").lower() in (*ON_WORDS, "enabled", "1")
        negating = _NEGATING.search(value.group("name")) is not None
        said = "on" if on != negating else "off"
        if _TAKEN_AWAY.search(_clause(change, value.start(), value.end())):
            return "on" if said == "off" else "off"  # "removes the forced pin_memory=True"
        return said
    return None


def _clause(text: str, start: int, end: int) -> str:
    """The clause of ``text`` around ``start:end``: between the commas, semicolons or
    brackets on either side ("pin_memory=True, removed the .item() calls": "pin_memory=True")."""
    reach, stop = max(0, start - _CLAUSE), min(len(text), end + _CLAUSE)
    before = max(reach - 1, *(text.rfind(mark, reach, start) for mark in ",;("))
    after = [i for i in (text.find(mark, end, stop) for mark in ",;)") if i >= 0]
    return text[before + 1 : min(after, default=stop)]


#: a thing's on state named alone ("torch.compile", "CUDA graphs"): said of a rule that reads
#: it, it is that state, and taken away in its own clause ("removed torch.compile", "without
#: CUDA graphs") the other; scoping ("CUDA graphs only for decode") takes nothing away
_ON_STATE = re.compile(r"(?i)cuda.?graphs?|torch\.compile|reduce-overhead")
#: enabling a value that turns translation off: "enable iommu=pt" passes DMA through (only
#: the enabling word's own object: "enabled ACS, iommu=pt kept" still enables ACS)
_PASSED_THROUGH = re.compile(r"(?i)\benabl\w*\s+(?:the\s+)?[`'\"]?iommu\s*=\s*pt\b")


def stated_state(change: str, names: Callable[[str], bool] = lambda _: True) -> str | None:
    """The state a one-sided change (no arrow) leaves its thing in, where its words say so:
    the off state's setting with a value ("enforce_eager": false is "on"), a setting the rule
    reads given a switch word ("pin_memory=False": "off"), the off state named alone
    ("--enforce-eager", "--disable-custom-all-reduce": "off"), or enabling ("Enabling
    detect_anomaly": "on"). A state named in words is the other way where the change takes it
    away or scopes it ("--enforce-eager removed", "stop forcing --enforce-eager"); a value
    says its state itself ("pin_memory=True, removed the .item() calls" is pinning on). None
    otherwise: "without …" and "no …" alone are left unsaid, since "without .item()" is a fix
    and "without pinned memory" the reverse of one."""
    value = _OFF_VALUE.search(change)
    switch = _switch_value(change, names)
    if value is not None:
        said = "on" if value.group("value").lower() in ("false", "off", "no", "0") else "off"
    elif switch is not None:
        return switch
    elif _OFF_STATE.search(change):
        said = "off"
    elif ENABLING.search(change) and not _PASSED_THROUGH.search(change):
        said = "on"
    elif (on := _ON_STATE.search(change)) is not None and names(on.group()):
        return "off" if REMOVED.search(_clause(change, on.start(), on.end())) else "on"
    else:
        return None
    if _TAKEN_AWAY.search(change):  # "--enforce-eager removed": the state it names, undone
        return "on" if said == "off" else "off"
    return said


#: a setting's switch moved in words, "NCCL_P2P_DISABLE from 1 to 0", "X changed from off to
#: on" (the whole change: a clause of a sentence is no setting's move)
_SWITCH_FROM_TO = re.compile(
    rf"(?i)^\s*(?P<name>{_NAME})\s+(?:(?:was\s+)?(?:changed|set|switched|went)\s+)?from\s+"
    rf"(?P<old>[01]|{_SWITCH})\s+to\s+(?P<new>[01]|{_SWITCH})\s*\.?\s*$"
)


def switch_from_to(change: str) -> tuple[str, str] | None:
    """A setting's switch moved "from OLD to NEW", as the sides ``NAME=OLD`` and ``NAME=NEW``;
    None for any other change."""
    found = _SWITCH_FROM_TO.match(change)
    if found is None:
        return None
    return f"{found['name']}={found['old']}", f"{found['name']}={found['new']}"


def switch_left(before: str, after: str, names: Callable[[str], bool]) -> str | None:
    """The state a switch is left in where both sides say one and they differ (its setting's
    value on each: "NCCL_P2P_DISABLE=1 -> NCCL_P2P_DISABLE=0", or the after side a bare value
    read with the before side's setting, "NCCL_P2P_DISABLE=0 -> 1"); None otherwise. Read
    before :func:`turned_on`: a setting whose name says "disable" names the off state on both
    sides, whatever its value."""
    whole = after
    named = SUBJECT.match(before)
    if named is not None and not names(after) and len(after.split()) == 1:
        whole = f"{named.group(1)}{after.strip()}"
    left = stated_state(whole, names)
    was = stated_state(before, names)
    return left if left is not None and was is not None and left != was else None


def turned_on(before: str, after: str) -> bool | None:
    """Whether a change turns its thing on: written as a switch flipped (``SUBJECT off ->
    on``, ``X: Enabled -> Disabled``, the after side one switch word; a subject whose "on"
    means off, ``enforce_eager`` or a ``…_DISABLE``, turns it off when set on), or as one side
    naming the off state and the other not ("CUDA graphs -> eager", "--enforce-eager -> CUDA
    graphs"). None when the change says neither."""
    word = after.strip().strip(".,;()").lower()
    if word in ON_WORDS or word in OFF_WORDS:
        subject = re.sub(rf"(?i)[\s=:]*\b(?:{_SWITCH})\W*$", "", before)
        return (word in ON_WORDS) != (_NEGATING.search(subject) is not None)
    off_before = _OFF_STATE.search(before) is not None
    if off_before != (_OFF_STATE.search(after) is not None):
        return off_before
    return None


def _switched(text: str, words: bool) -> str:
    """``NAME=Disabled`` as ``NAME=0`` (or ``NAME=off`` with ``words``), and so on."""

    def one(match: re.Match[str]) -> str:
        on = match[2].lower() in ON_WORDS
        value = ("on" if on else "off") if words else ("1" if on else "0")
        return f"{match[1]}={value}"

    return re.sub(rf"{_NAME_START}({_NAME})\s*=\s*({_SWITCH})\b", one, text, flags=re.IGNORECASE)


def normalise_change(change: str) -> str:
    """The change in the spelling rules are written for: ``export X=1``, ``X: 1`` and ``X 1``
    read ``X=1``; ``X=Enabled`` / ``On`` / ``true`` / ``yes`` read ``X=1``, their opposites
    ``X=0``; ``pkg==2.19.3``, ``pip install pkg==2.19.3``, ``pkg 2.18.3 -> 2.19.3``, ``pkg
    from 2.18 to 2.19`` and ``downgraded pkg to 2.18`` read ``pkg version [OLD] -> NEW``; every
    arrow reads ``->``."""
    return _switched(_spelled(plain_arrows(" ".join(change.split()))), words=False)


@lru_cache(maxsize=256)
def change_readings(change: str) -> tuple[str, ...]:
    """The readings a rule's pattern is tried on: the change as written, its normal form (every
    arrow spelled ``->``), and the normal form with switches as words (``IOMMU: Disabled`` →
    ``IOMMU=off``). Kept for the last few changes: every experiment rule of a playbook asks
    for the same change's readings in turn."""
    text = " ".join(change.split())
    spelled = _spelled(plain_arrows(text))
    readings = (text, _switched(spelled, words=False), _switched(spelled, words=True))
    return tuple(dict.fromkeys(readings))
