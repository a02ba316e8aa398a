"""Hand-written expectations for virtualisation detection, the generic command probe, the
shared text cleaning, and empty or garbage input to every non-nvidia-smi parser.

Values are typed out by a person; see test_other_hand.py for the lspci, nccl-tests, p2p and
bandwidth samples.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from casefile_probes._text import clean, clean_paste, is_prompt_line, to_float, to_int
from casefile_probes.bandwidth import parse_bandwidth
from casefile_probes.command import PROBE as COMMAND
from casefile_probes.command import make_command_probe, parse_command
from casefile_probes.lspci import parse_lspci
from casefile_probes.nccl import parse_nccl
from casefile_probes.nvml import parse_nvml
from casefile_probes.p2p import parse_p2p
from casefile_probes.virt import parse_virt

from casefile.domain.facts import ParseResult


def at(result: ParseResult, name: str, subject: str) -> object:
    return result.values(name).get(subject)


# --- virt-detect ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "virtualization", "virtualized"),
    [
        ("none\n", "none", False),
        ("kvm\n", "kvm", True),
        ("microsoft", "microsoft", True),
        ("docker\n", "docker", False),
        ("wsl\n", "wsl", True),
        ("Standard PC (Q35 + ICH9, 2009)\n", "qemu", True),
        ("Standard PC (i440FX + PIIX, 1996)", "qemu", True),
        ("KVM\n", "kvm", True),
        ("VMware Virtual Platform\n", "vmware", True),
        ("VMware7,1\n", "vmware", True),
        ("Google Compute Engine\n", "google", True),
        ("HVM domU\n", "xen", True),
        ("Virtual Machine\n", "microsoft", True),
        ("Amazon EC2\n", "amazon", True),
        ("VirtualBox\n", "oracle", True),
        ("$ systemd-detect-virt\r\nkvm\r\n", "kvm", True),
        (
            "root@gpu-vm:~# cat /sys/class/dmi/id/product_name\n"
            "Standard PC (Q35 + ICH9, 2009)\n"
            "root@gpu-vm:~# cat /sys/class/dmi/id/sys_vendor\n"
            "QEMU\n",
            "qemu",
            True,
        ),
        ("product_name: Virtual Machine\nsys_vendor: Microsoft Corporation\n", "microsoft", True),
        ("systemd-detect-virt: none\nproduct_name: p4d.24xlarge\n", "none", False),
    ],
)
def test_virt_strings(text: str, virtualization: str, virtualized: bool) -> None:
    result = parse_virt(text)
    assert result.parsed, result.problems
    assert result.values("host.virtualization") == {"host": virtualization}
    assert result.values("host.virtualized") == {"host": virtualized}


def test_virt_labelled_sections_keep_the_dmi_strings() -> None:
    text = (
        "$ systemd-detect-virt\nkvm\n"
        "$ cat /sys/class/dmi/id/product_name\nStandard PC (Q35 + ICH9, 2009)\n"
        "$ cat /sys/class/dmi/id/sys_vendor\nQEMU\n"
    )
    result = parse_virt(text)
    assert result.values("host.virtualization") == {"host": "kvm"}
    assert result.values("host.virtualization.kind") == {"host": "vm"}
    assert result.values("host.dmi.product_name") == {"host": "Standard PC (Q35 + ICH9, 2009)"}
    assert result.values("host.dmi.sys_vendor") == {"host": "QEMU"}
    assert result.problems == []


def test_virt_contradiction_and_unknown_platforms() -> None:
    clash = parse_virt("systemd-detect-virt: none\nproduct_name: VMware Virtual Platform\n")
    assert clash.values("host.virtualization") == {"host": "none"}
    assert "DMI strings suggest 'vmware'" in clash.problems[0]
    metal = parse_virt("product_name: PowerEdge R750xa\nsys_vendor: Dell Inc.\n")
    assert metal.parsed and "host.virtualized" not in {f.name for f in metal.facts}
    assert metal.values("host.dmi.product_name") == {"host": "PowerEdge R750xa"}
    assert "no verdict" in metal.problems[0]
    container = parse_virt("podman\n")
    assert container.values("host.virtualization.kind") == {"host": "container"}


# --- command ------------------------------------------------------------------------------------


def test_command_keeps_raw_output_only() -> None:
    result = parse_command("anything at all\n")
    assert result.parsed and result.facts == [] and result.problems == []
    assert COMMAND.name == "command" and COMMAND.facts == ()


def test_command_probe_with_named_groups() -> None:
    probe = make_command_probe(
        "numa-hit",
        ("numastat", "-n"),
        {
            r"^Numa_Hit\s+(?P<numa_hit>[0-9.]+)": "MB",
            r"^(?P<subject>gpu\d+) temp (?P<temperature_gpu>\d+)C": "C",
        },
    )
    assert probe.argv == ("numastat", "-n")
    assert probe.facts == ("numa_hit", "temperature_gpu")
    result = probe.parse("Numa_Hit   1234.50\ngpu0 temp 41C\ngpu1 temp 45C\n")
    assert result.values("numa_hit") == {"host": 1234.5}
    assert result.values("temperature_gpu") == {"gpu0": 41, "gpu1": 45}
    assert {f.unit for f in result.facts if f.name == "temperature_gpu"} == {"C"}
    missed = probe.parse("nothing here")
    assert missed.parsed and missed.problems == ["none of the patterns matched the output"]
    broken = make_command_probe("bad", ("true",), {"(?P<x": None})
    assert "invalid pattern" in broken.parse("x").problems[0]


# --- cleaning -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("line", "command"),
    [
        ("$ lspci -vv", "lspci -vv"),
        ("$nvidia-smi topo -m", "nvidia-smi topo -m"),
        ("root@host:~# nvidia-smi", "nvidia-smi"),
        ("user@gpu-box:~/cuda$ ./bandwidthTest", "./bandwidthTest"),
        ("ecs-user@iZ2ze59:/tmp/bandwidthTest$", ""),
        ("[user@host dir]# ./p2pBandwidthLatencyTest", "./p2pBandwidthLatencyTest"),
        (
            "[root@pit101-xea1002 release]# ./bandwidthTest --memory=pageable",
            "./bandwidthTest --memory=pageable",
        ),
        ("[pancho@fedora]~$ ./p2pBandwidthLatencyTest", "./p2pBandwidthLatencyTest"),
        ("Singularity> ./build/all_reduce_perf -g 4", "./build/all_reduce_perf -g 4"),
        ("(venv) me@box:~$ python bench.py", "python bench.py"),
    ],
)
def test_prompt_lines(line: str, command: str) -> None:
    assert is_prompt_line(line) == command


@pytest.mark.parametrize(
    "line",
    [
        "# nThread 1 nGpus 1 minBytes 8",
        "#  Rank  0 Group  0 Pid   6899 on ztan device  0 [0000:04:00] NVIDIA H100",
        "01:00.0 VGA compatible controller: NVIDIA Corporation AD102",
        "mew0:64904:64904 [0] NCCL INFO Bootstrap: Using eno8303",
        "   32000000\t\t\t12.3",
    ],
)
def test_output_lines_are_not_prompts(line: str) -> None:
    assert is_prompt_line(line) is None


def test_clean_handles_crlf_blockquotes_and_hash_prompts() -> None:
    cleaned = clean_paste(
        "> # ./bandwidthTest --htod\r\n> Device 0: X  \r\n> \\# done\r\n", hash_prompt=True
    )
    assert cleaned.lines == ["Device 0: X", "# done", ""]
    assert cleaned.commands == ["./bandwidthTest --htod"]
    assert clean_paste("# nThread 1 nGpus 1\n").lines == ["# nThread 1 nGpus 1", ""]


@pytest.mark.parametrize(
    "text",
    [
        "pi@raspberrypi:~ $ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)",
        "me@box:~$ nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)",
        "(base) me@box:~/x $ sudo nvidia-smi -L\nGPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)",
    ],
)
def test_nvidia_smi_cleaning_takes_a_space_before_the_dollar_for_a_prompt(text: str) -> None:
    """Raspberry Pi OS (and any PS1 of ``\\u@\\h:\\w \\$``) puts a space before the ``$``;
    :func:`clean_paste` took such a line for a prompt, :func:`clean` kept it as output."""
    cleaned = clean(text)
    assert cleaned.lines == ["GPU 0: NVIDIA GeForce RTX 3090 (UUID: GPU-1)"]
    assert cleaned.commands and cleaned.commands[0].startswith("nvidia-smi -L")
    # the next prompt, bare, at the end of the paste goes too
    assert clean(text + "\npi@raspberrypi:~ $").lines == cleaned.lines


def test_numbers() -> None:
    assert to_float("8GT/s") == 8.0
    assert to_float("1,234.5 MiB") == 1234.5
    assert to_float("[N/A]") is None and to_float("") is None and to_float(None) is None
    assert to_int("x16") == 16 and to_int("N/A") is None


# --- empty and garbage input, every parser ---------------------------------------------------

PARSERS: dict[str, Callable[[str], ParseResult]] = {
    "lspci": parse_lspci,
    "nccl": parse_nccl,
    "p2p": parse_p2p,
    "bandwidth": parse_bandwidth,
    "virt": parse_virt,
    "nvml": parse_nvml,
}
GARBAGE = [
    "",
    "\n\n   \n",
    "\x00\x01\x02\ufeff",
    "Lorem ipsum dolor sit amet, consectetur adipiscing elit.\n" * 3,
    "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.",
    "bash: command not found",
    "{[(<>)]}" * 50,
    "0 1 2 3 4 5 6 7 8 9\n9 8 7 6 5 4 3 2 1 0\n",
]


@pytest.mark.parametrize("name", PARSERS)
@pytest.mark.parametrize("text", GARBAGE, ids=range(len(GARBAGE)))
def test_other_empty_and_garbage_are_unparsed(name: str, text: str) -> None:
    result = PARSERS[name](text)
    assert not result.parsed
    assert result.facts == []
    assert result.problems and all(p.strip() for p in result.problems)


def test_command_on_empty_output_says_so() -> None:
    result = parse_command("")
    assert result.parsed and result.problems == ["the command printed nothing"]
