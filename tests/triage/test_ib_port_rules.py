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


def port(
    ca: str, state: str, physical: str, rate: int, layer: str = "InfiniBand", part: str = "4123"
) -> str:
    return (
        f"CA '{ca}'\n\tCA type: MT{part}\n\tNumber of ports: 1\n\tPort 1:\n"
        f"\t\tState: {state}\n\t\tPhysical state: {physical}\n\t\tRate: {rate}\n"
        f"\t\tLink layer: {layer}\n"
    )


def test_a_polling_port_counts_only_a_little() -> None:
    """A real ibv_devinfo -v paste: port 2 of a dual-port adapter, Down and still POLLING
    (sample 011), as the uncabled second port of a healthy node shows too; the same host's
    listing without -v (010) prints no physical state and reads clear."""
    found = verdict("ib-port-fault", (GOLDEN / "011.txt").read_text())
    assert found.outcome == "polling"
    row = rule("ib-port-fault").row
    ratio = row("internode-network")["polling"] / row("data-loading")["polling"]
    assert 1.2 < ratio < 2.5
    assert verdict("ib-port-fault", (GOLDEN / "010.txt").read_text()).outcome == "clear"


def test_a_port_up_without_a_subnet_manager_is_a_fault() -> None:
    text = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Initializing", "LinkUp", 200)
    assert verdict("ib-port-fault", text).outcome == "no-sm"
    row = rule("ib-port-fault").row
    assert row("internode-network")["no-sm"] >= 5 * row("data-loading")["no-sm"]


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


def test_adapters_of_another_kind_are_another_network() -> None:
    """Compute rails at 400 beside a storage adapter of another kind at 200, one fabric."""
    text = "".join(port(f"mlx5_{k}", "Active", "LinkUp", 400, part="4129") for k in range(4))
    text += port("mlx5_4", "Active", "LinkUp", 200, part="4123")
    assert verdict("ib-rate-uneven", text).outcome == "even"
    # a rail of the same kind trained low, beside a faster port on another link layer
    slow = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Active", "LinkUp", 100)
    slow += port("mlx5_2", "Active", "LinkUp", 400, layer="Ethernet", part="4129")
    assert verdict("ib-rate-uneven", slow).outcome == "uneven"


def test_two_nodes_pasted_together_keep_each_node_s_ports() -> None:
    """node1's port trained low must not be hidden by node2's listing of the same name."""
    node1 = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Active", "LinkUp", 100)
    node2 = port("mlx5_0", "Active", "LinkUp", 200) + port("mlx5_1", "Active", "LinkUp", 200)
    parsed = parse_ibstat(f"[user@node1 ~]$ ibstat\n{node1}[user@node2 ~]$ ibstat\n{node2}")
    subjects = {f.subject for f in parsed.facts if f.name == "ib.rate"}
    assert subjects == {"mlx5_0/1", "mlx5_1/1", "mlx5_0/1 (listing 2)", "mlx5_1/1 (listing 2)"}
    assert any("listed 2 times" in problem for problem in parsed.problems)
    assert verdict("ib-rate-uneven", f"{node1}{node2}").outcome == "uneven"
