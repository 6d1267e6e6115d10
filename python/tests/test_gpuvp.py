# SPDX-License-Identifier: Apache-2.0
# The gpuvp Python package (docs/python.md) driven as a script would: several simulations in one
# process, statistics as dicts, errors as exceptions, the host port as a Session.
import pytest

import gpuvp

# The traffic workload with small counts: g0 64 B sequential reads, g1 128 B random, g2 256 B
# strided writes (platform/default.yaml).
SMALL = {"traffic.g0.count": 100, "traffic.g1.count": 50, "traffic.g2.count": 20}


def test_run_returns_the_statistics_and_the_run_entry():
    s = gpuvp.run(workload="traffic", set=SMALL)
    assert s["run"]["exit_code"] == 0
    assert s["run"]["simulated_ns"] > 0
    assert s["run"]["sim_time_ps"] // 1000 == s["run"]["simulated_ns"]  # the program's own metadata
    assert "simulated time" in s["run"]["report"]
    # Every generator issued exactly its count: 100 + 50 + 20 transactions, 100*64 + 50*128 + 20*256 bytes.
    gens = {k: v for k, v in s.items() if k.startswith("traffic.") and k.endswith(".transactions")}
    assert sum(gens.values()) == 170, gens
    nbytes = {k: v for k, v in s.items() if k.startswith("traffic.") and k.endswith(".bytes")}
    assert sum(nbytes.values()) == 100 * 64 + 50 * 128 + 20 * 256, nbytes


def test_several_runs_in_one_process_are_independent_and_deterministic():
    a = gpuvp.run(workload="traffic", set=SMALL)
    b = gpuvp.run(workload="traffic", set=dict(SMALL, **{"traffic.g0.count": 200}))
    c = gpuvp.run(workload="traffic", set=SMALL)
    for s in (a, b, c):
        del s["run"]["wall_s"], s["run"]["report"], s["run"]["stderr"]
    assert a == c  # same inputs, identical statistics
    assert a != b
    gens = lambda s: sum(v for k, v in s.items() if k.startswith("traffic.") and k.endswith(".transactions"))
    assert gens(b) == gens(a) + 100


def test_the_default_run_is_the_pfifo_scenario():
    s = gpuvp.run()
    assert s["run"]["exit_code"] == 0
    assert any(k.startswith("pfifo.") for k in s), sorted(s)[:20]


def test_a_configuration_error_raises_value_error_naming_the_key():
    with pytest.raises(ValueError, match="mmu.tlb_entries"):
        gpuvp.run(workload="traffic", set={"mmu.tlb_entries": 0})  # range 1..65536
    with pytest.raises(ValueError, match="mmu.no_such_key"):
        gpuvp.run(set={"mmu.no_such_key": 1})
    with pytest.raises(ValueError, match="no-such-file.yaml"):
        gpuvp.run(config=["no-such-file.yaml"])


def test_a_modelled_error_raises_modelled_error_with_the_statistics():
    # 100 ns is far too short for the traffic workload: the time limit is a modelled error (exit 1).
    with pytest.raises(gpuvp.ModelledError, match="time limit") as e:
        gpuvp.run(workload="traffic", set={"platform.time_limit": "100 ns"})
    assert e.value.stats["run"]["exit_code"] == 1
    assert any(k.startswith("traffic.") for k in e.value.stats)


def test_an_unknown_platform_is_an_error():
    with pytest.raises(ValueError, match="no-such-platform"):
        gpuvp.run(platform="no-such-platform")


def test_the_platform_argument_selects_an_embedded_platform():
    # models/agx/agx.yaml: 8 GiB of DRAM at 0x8_0000_0000, no sysram.
    c = gpuvp.config(platform="agx")
    assert c["dram"]["base"] == 0x8_0000_0000 and c["dram"]["size"] == 8 << 30
    assert "sysram" not in c
    with gpuvp.Session(platform="agx") as s:
        s.writel(0x8_0000_1000, 0x12345678)
        assert s.readl(0x8_0000_1000) == 0x12345678


def test_config_returns_the_dump_as_a_dict():
    c = gpuvp.config(set={"mmu.tlb_entries": 32})
    assert c["mmu"]["tlb_entries"] == 32
    assert c["platform"]["bar0_base"] == 0x1_0000_0000  # default.yaml
    assert c["vram"]["size"] == 1 << 30  # "1 GiB" in default.yaml, an int in the dump
    with pytest.raises(ValueError, match="mmu.tlb_ways"):
        gpuvp.config(set={"mmu.tlb_ways": 0})


def test_session_reads_the_timer_like_the_qtest_example():
    # docs/qtest.md: the first PTIMER read samples 3 ns (1 ns host port + 1 ns PTIMER port + one
    # 1 ns cycle); the host is at 4 ns after the 1 ns read latency, clock_step 100 brings it to
    # 104 ns, and the next read samples 107 ns.
    with gpuvp.Session() as s:
        assert s.readl(0x1_0000_9400) == 3
        assert s.clock_step(100) == 104
        assert s.readl(0x1_0000_9400) == 107
        assert s.command("readl 0x100009410") == "OK 0x0000000000000000"
    assert s.exit_code == 0


def test_session_memory_round_trip_and_statistics():
    with gpuvp.Session() as s:
        data = bytes(range(256)) * 3
        s.write(0x2000, data)
        assert s.read(0x2000, len(data)) == data
        s.writel(0x2_0000_0010, 0xDEADBEEF)  # VRAM
        assert s.readl(0x2_0000_0010) == 0xDEADBEEF
        assert s.read(0x2_0000_0010, 4) == bytes([0xEF, 0xBE, 0xAD, 0xDE])  # little endian
        st = s.stats("host.")
        assert st["host.writes"] == 2 and st["host.reads"] == 3, st
        with pytest.raises(gpuvp.CommandFailed, match="ADDRESS_ERROR"):
            s.readl(0x3_0000_0000)  # no target there
        assert s.command("no_such_command").startswith("FAIL")


def test_sessions_side_by_side_and_after_runs():
    a = gpuvp.Session()
    b = gpuvp.Session(set={"sysram.read_latency": "100 ns"})
    a.writel(0x100, 1)
    b.writel(0x100, 2)
    assert a.readl(0x100) == 1 and b.readl(0x100) == 2
    assert a.close() == 0 and b.close() == 0


def test_session_configuration_error_is_raised_at_creation():
    with pytest.raises(ValueError, match="mmu.tlb_entries"):
        gpuvp.Session(set={"mmu.tlb_entries": 0})  # range 1..65536


def test_run_takes_the_command_line_options(tmp_path):
    trace, vcd = tmp_path / "t.json", tmp_path / "irq"
    s = gpuvp.run(workload="traffic", set=SMALL, trace=trace, vcd=vcd, quantum="100 ns", wall_limit=3600)
    assert s["run"]["quantum_ps"] == 100_000
    with open(trace) as f:
        assert f.read().lstrip().startswith("{")  # a Chrome trace-event JSON
    with open(str(vcd) + ".vcd") as f:  # as --vcd: .vcd is appended
        assert "$enddefinitions" in f.read()
    # time_limit is --time-limit: far too short for the workload, a modelled error.
    with pytest.raises(gpuvp.ModelledError, match="time limit"):
        gpuvp.run(workload="traffic", set=SMALL, time_limit="100 ns")
    # A wall-clock limit reaches the program: 0 is refused there, naming the option.
    with pytest.raises(ValueError, match="--wall-limit"):
        gpuvp.run(workload="traffic", set=SMALL, wall_limit="0 s")


def test_run_option_types_are_checked():
    with pytest.raises(TypeError, match="quantum"):
        gpuvp.run(workload="traffic", quantum=100)  # no unit: 100 what?
    with pytest.raises(TypeError, match="wall_limit"):
        gpuvp.run(workload="traffic", wall_limit=True)


def test_a_bad_workload_name_raises_naming_it():
    with pytest.raises(ValueError, match="trafic"):
        gpuvp.run(workload="trafic")


def test_session_command_of_an_empty_line_or_a_comment_returns():
    # qtest answers neither; the call returns "" instead of waiting for an answer forever.
    with gpuvp.Session() as s:
        assert s.command("") == ""
        assert s.command("# a comment") == ""
        assert s.readl(0x1_0000_9400) == 3  # the session still answers, in step (docs/qtest.md)


def _without_host_figures(s):
    """The statistics without what depends on the host (wall time, the report that prints it)."""
    for key in ("wall_s", "report", "stderr"):
        s["run"].pop(key, None)
    return s


def test_runs_from_several_threads_at_once_give_identical_results():
    # Each run is its own process: threads share nothing but the package, so four at a time give
    # what one at a time gives, and different inputs stay different.
    import concurrent.futures

    bigger = dict(SMALL, **{"traffic.g0.count": 300})
    inputs = [SMALL, bigger] * 3
    alone = [_without_host_figures(gpuvp.run(workload="traffic", set=s)) for s in (SMALL, bigger)]
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        together = list(pool.map(lambda s: _without_host_figures(gpuvp.run(workload="traffic", set=s)), inputs))
    for i, s in enumerate(together):
        assert s == alone[i % 2], i
    assert alone[0] != alone[1]
    # 200 more g0 reads of 64 B each.
    assert alone[1]["traffic.g0.transactions"] == alone[0]["traffic.g0.transactions"] + 200


def test_sessions_from_several_threads_at_once_stay_apart():
    # Each thread has its own session (its own process): a value written in one is not seen in
    # another, and the answers reach the thread that asked.
    import threading

    answers, failures = {}, []

    def drive(n):
        try:
            with gpuvp.Session() as s:
                for k in range(20):
                    s.writel(0x1000 + 4 * k, n * 1000 + k)
                answers[n] = [s.readl(0x1000 + 4 * k) for k in range(20)]
        except Exception as e:  # reported by the main thread
            failures.append(e)

    threads = [threading.Thread(target=drive, args=(n,)) for n in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not failures, failures
    assert answers == {n: [n * 1000 + k for k in range(20)] for n in range(4)}


def test_the_program_can_be_chosen_and_a_missing_one_is_named(monkeypatch):
    monkeypatch.setenv("GPUVP_PROGRAM", "/no/such/gpuvp")
    with pytest.raises(FileNotFoundError, match="/no/such/gpuvp"):
        gpuvp.run(workload="traffic", set=SMALL)


def test_a_simulation_process_killed_by_a_signal_is_a_runtime_error(tmp_path, monkeypatch):
    # A stand-in program that dies of SIGKILL, as a crashing model's process would of SIGSEGV.
    fake = tmp_path / "gpuvp"
    fake.write_text("#!/bin/sh\nkill -9 $$\n")
    fake.chmod(0o755)
    monkeypatch.setenv("GPUVP_PROGRAM", str(fake))
    with pytest.raises(RuntimeError, match="signal 9"):
        gpuvp.run(workload="traffic", set=SMALL)
    with pytest.raises(gpuvp.SessionEnded, match="exit 137"):
        gpuvp.Session()
