"""gpu-throughput@3 reads InfiniBand port state for a job across nodes: a port that never came
up (polling, or up with no subnet manager) and a port trained below the others point at the
inter-node network; ports nobody cabled (Down and Disabled, common on healthy nodes) do not."""

from __future__ import annotations

from pathlib import Path

from casefile_gpu_playbook import PLAYBOOK_V3
from casefile_probes.ibstat import parse_ibstat

from casefile.domain.rules import Applied, Rule, evaluate

GOLDEN = Path(__file__).resolve().parents[1] / "golden" / "ibstat"


def rule(rule_id: str) -> Rule:
    return next(r for r in PLAYBOOK_V3.rules if r.id == rule_id)


def verdict(rule_id: str, text: str) -> Applied:
    found = evaluate(rule(rule_id), parse_ibstat(text).facts, "any")
    assert isinstance(found, Applied), found
    return found


def port(ca: str, state: str, physical: str, rate: int, layer: str = "InfiniBand") -> str:
    return (
        f"CA '{ca}'\n\tCA type: MT4123\n\tNumber of ports: 1\n\tPort 1:\n"
        f"\t\tState: {state}\n\t\tPhysical state: {physical}\n\t\tRate: {rate}\n"
        f"\t\tLink layer: {layer}\n"
    )


def test_a_polling_port_is_a_fault() -> None:
    """A real ibv_devinfo -v paste: the port is Down and still POLLING (sample 011)."""
    found = verdict("ib-port-fault", (GOLDEN / "011.txt").read_text())
    assert found.outcome == "fault"
    row = rule("ib-port-fault").row
    assert row("internode-network")["fault"] >= 4 * row("data-loading")["fault"]


def test_a_port_up_without_a_subnet_manager_is_a_fault() -> None:
    text = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Initializing", "LinkUp", 200)
    assert verdict("ib-port-fault", text).outcome == "fault"


def test_an_uncabled_port_beside_an_active_one_is_not_a_fault() -> None:
    """Real ibstat pastes of healthy nodes: one port Active, one Down and Disabled."""
    for sample in ("001.txt", "003.txt"):
        assert verdict("ib-port-fault", (GOLDEN / sample).read_text()).outcome == "clear"


def test_a_port_trained_below_the_others_is_uneven() -> None:
    text = "".join(port(f"mlx5_{k}", "Active", "LinkUp", 200) for k in range(3))
    text += port("mlx5_3", "Active", "LinkUp", 100)
    assert parse_ibstat(text).facts  # the hand-made paste is read
    found = verdict("ib-rate-uneven", text)
    assert (found.outcome, found.statistic) == ("uneven", 0.5)
    row = rule("ib-rate-uneven").row
    assert row("internode-network")["uneven"] >= 4 * row("compute-launch")["uneven"]


def test_ports_of_one_rate_are_even_and_another_network_is_not_compared() -> None:
    text = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Active", "LinkUp", 200)
    assert verdict("ib-rate-uneven", text).outcome == "even"
    # a 25 Gb/s Ethernet management port beside the fabric is another network
    managed = text + port("mlx5_2", "Active", "LinkUp", 25, layer="Ethernet")
    assert verdict("ib-rate-uneven", managed).outcome == "even"


def test_one_rated_port_says_nothing_of_evenness() -> None:
    text = (GOLDEN / "003.txt").read_text()  # one Active port at 56, one Down
    assert not isinstance(
        evaluate(rule("ib-rate-uneven"), parse_ibstat(text).facts, "any"), Applied
    )


def test_only_a_job_across_nodes_is_asked() -> None:
    for rule_id in ("ib-port-fault", "ib-rate-uneven"):
        assert rule(rule_id).suggested_under({"nodes": "multi", "gpu-count": "several"})
        assert not rule(rule_id).suggested_under({"nodes": "single"})
