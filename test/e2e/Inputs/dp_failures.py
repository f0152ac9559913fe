"""Failure scenarios of data-parallel jobs, driven with real processes.

    dp_failures.py SCENARIO DIR [ARTIFACT...]

DIR holds x.npy and label.npy (trajectory.py data) and receives the logs.
Every scenario prints what the processes said (for FileCheck) and how long
they took, and fails (exit 1) when a process outlives its bound: no
scenario may hang.

    kill-rank A2       dist-run starts 2 ranks of A2; a process with a wrong
                       job token is refused; rank 1 is killed with SIGKILL
                       mid-training; the launcher and rank 0 must end within
                       10 s and name rank 1
    artifacts A2 B2    two workers (torchrun variables) run different
                       artifacts: both fail at the rendezvous
    world-size A2      rank 0 says world size 2, rank 1 says 3
    unreachable A2     rank 1 of 2 with no master listening
    port-in-use A2     the launcher's master port is taken
    two-nodes A4       two launchers as nodes 0 and 1 (2 ranks each) on this
                       machine: both succeed; the first worker writes the
                       steps' losses to DIR/two-nodes.jsonl
    nodes-disagree     node 1 says --nproc-per-node 1, node 0 says 2 (they
                       launch `true`)
    node-token A4      node 1 comes with another job token
    flags-disagree A4 FLAG VALUE
                       two nodes train A4, node 1 with FLAG VALUE: both
                       refuse at once (the time to the refusal is printed)
    nnodes-disagree A4 node 0 says --nnodes 2, node 1 --nnodes 4 (1 rank
                       per node, so that both start 4 ranks)
    layout A4          both nodes say --nnodes 2 --nproc-per-node 1: 2 ranks
                       for a 4-rank artifact
    stop-rank A N R    N ranks of A with a collective timeout of 2 s
                       (--collective-timeout, or DISTC_COLLECTIVE_TIMEOUT
                       with N R given as "env N R"); rank R is stopped with
                       SIGSTOP mid-training: the launcher must end within
                       seconds and name rank R
"""
import os
import signal
import socket
import subprocess
import sys
import time

BOUND = 20  # seconds any process may take in these scenarios


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def train_args(d, artifact, timeout=5):
    return ["dist-run", artifact, "--mode", "train", "--data", f"x=@{d}/x.npy",
            "--data", f"label=@{d}/label.npy", "--init-from", f"{d}/params", "--batch-size", "2",
            "--steps", "100000000", "--rendezvous-timeout", str(timeout)]


def worker_env(rank, world, port, extra=None):
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("PADDLE_", "OMPI_", "SLURM_", "DISTC_")) or name in (
                "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT"):
            del env[name]
    env.update({"RANK": str(rank), "WORLD_SIZE": str(world), "MASTER_ADDR": "127.0.0.1",
                "MASTER_PORT": str(port)})
    env.update(extra or {})
    return env


def launcher_env():
    """The environment of a process that no launcher started."""
    env = worker_env(0, 1, 0)
    for name in ("RANK", "WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT"):
        del env[name]
    return env


def finish(procs, bound=BOUND):
    """Waits for every process; kills and fails on one that outlives `bound`."""
    deadline = time.monotonic() + bound
    results = []
    for name, p in procs:
        try:
            out, _ = p.communicate(timeout=max(0.1, deadline - time.monotonic()))
        except subprocess.TimeoutExpired:
            p.kill()
            out, _ = p.communicate()
            print(f"{name}: HUNG (killed after {bound} s)")
            sys.exit(1)
        results.append((name, p.returncode, out))
    for name, code, out in results:
        for line in out.splitlines():
            print(f"{name}: {line}")
        print(f"{name}: exit {code}")
    return results


def start(args, env, **kw):
    return subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, **kw)


def kill_rank(d, artifact):
    logs = os.path.join(d, "logs")
    port = free_port()
    env = launcher_env()
    launcher = subprocess.Popen(
        train_args(d, artifact) + ["--nproc-per-node", "2", "--master-port", str(port),
                                   "--log-dir", logs],
        env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids = {}
    deadline = time.monotonic() + BOUND
    while len(pids) < 2 and time.monotonic() < deadline:
        line = launcher.stderr.readline()
        if not line:
            break
        print("launcher: " + line.rstrip())
        if line.startswith("dist-run: rank ") and ": pid " in line:
            rank = int(line.split()[2].rstrip(":"))
            pids[rank] = int(line.split(": pid ")[1].split(",")[0])
    if len(pids) < 2:
        launcher.kill()
        print("the launcher did not start 2 ranks")
        sys.exit(1)
    # Wait until the job trains (rank 0 reports progress).
    log0 = os.path.join(logs, "workerlog.0")
    while time.monotonic() < deadline:
        if os.path.exists(log0) and "samples/s" in open(log0).read():
            break
        time.sleep(0.05)
    else:
        launcher.kill()
        print("the job never trained")
        sys.exit(1)
    # A process with another job's token is refused at once.
    intruder = start(train_args(d, artifact), worker_env(
        1, 2, port, {"DISTC_LAUNCHER": "dist-run", "DISTC_JOB_TOKEN": "0" * 32}))
    finish([("intruder", intruder)])
    os.kill(pids[1], signal.SIGKILL)
    took = report_launcher_end(launcher, since=time.monotonic())
    print("the job ended within 10 s of the kill" if took < 10 else f"the job took {took:.1f} s")
    with open(os.path.join(logs, "workerlog.0")) as f:
        for line in f:
            if "error" in line:
                print("workerlog.0: " + line.rstrip())


def report_launcher_end(launcher, since):
    """Waits (bounded) for the launcher to end, prints its stderr and exit
    status, and returns the seconds it took from `since`."""
    try:
        _, err = launcher.communicate(timeout=BOUND)
    except subprocess.TimeoutExpired:
        launcher.kill()
        print("launcher: HUNG")
        sys.exit(1)
    took = time.monotonic() - since
    for line in err.splitlines():
        print("launcher: " + line)
    print(f"launcher: exit {launcher.returncode}")
    return took


def two_workers(d, a, b, world0=2, world1=2):
    port = free_port()
    p0 = start(train_args(d, a), worker_env(0, world0, port))
    p1 = start(train_args(d, b), worker_env(1, world1, port))
    finish([("rank 0", p0), ("rank 1", p1)])


def workers_disagree(d, artifact, flag, value):
    """Two ranks started as torchrun would, rank 1 with `flag value`."""
    port = free_port()
    args1 = train_args(d, artifact)
    args1[args1.index(flag) + 1] = value
    p0 = start(train_args(d, artifact), worker_env(0, 2, port))
    p1 = start(args1, worker_env(1, 2, port))
    started = time.monotonic()
    finish([("rank 0", p0), ("rank 1", p1)])
    took = time.monotonic() - started
    print("both ranks ended within 2 s" if took < 2 else f"the ranks took {took:.1f} s")


def unreachable(d, artifact):
    port = free_port()
    p = start(train_args(d, artifact, timeout=1), worker_env(1, 2, port))
    finish([("rank 1", p)])


def port_in_use(d, artifact):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        env = launcher_env()
        p = start(train_args(d, artifact) + ["--nproc-per-node", "2", "--master-port", str(port)],
                  env)
        finish([("launcher", p)])


def two_nodes(d, artifact, nproc1="2", token1=None):
    """Two launchers; with an artifact they train it, without one they
    launch `true` (`dist-run ... -- true`)."""
    port = free_port()
    token = "0123456789abcdef" * 2
    nodes = []
    for node, nproc, tok in ((1, nproc1, token1 or token), (0, "2", token)):
        flags = ["--nnodes", "2", "--node-rank", str(node), "--nproc-per-node", nproc,
                 "--master-port", str(port), "--job-token", tok, "--rendezvous-timeout", "5"]
        if artifact:
            args = train_args(d, artifact)
            args[args.index("--steps") + 1] = "6"
            args[args.index("--batch-size") + 1] = "1"
            del args[args.index("--rendezvous-timeout"):args.index("--rendezvous-timeout") + 2]
            # For the comparison with the serial run (data-parallel-failures.test).
            args += ["--metrics", os.path.join(d, "two-nodes.jsonl")]
            args += flags
        else:
            args = ["dist-run"] + flags + ["--", "true"]
        nodes.append((f"node {node}", start(args, launcher_env())))
    finish(sorted(nodes))


def node_args(d, artifact, node, nnodes, nproc, port, extra=()):
    args = train_args(d, artifact, timeout=10)
    args[args.index("--steps") + 1] = "6"
    args[args.index("--batch-size") + 1] = "1"
    return args + ["--nnodes", str(nnodes), "--node-rank", str(node), "--nproc-per-node",
                   str(nproc), "--master-port", str(port), "--job-token",
                   "0123456789abcdef" * 2] + list(extra)


def two_launchers(args0, args1, quick=2.0):
    """Starts node 1, then node 0; prints what they said and whether both
    ended within `quick` seconds of the second start (the rendezvous
    timeout is 10 s, so waiting for it would show)."""
    n1 = start(args1, launcher_env())
    n0 = start(args0, launcher_env())
    started = time.monotonic()
    finish([("node 0", n0), ("node 1", n1)])
    took = time.monotonic() - started
    print(f"both nodes ended within {quick:g} s" if took < quick else f"the nodes took {took:.1f} s")
    print(f"measured: {took:.2f} s", file=sys.stderr)


def flags_disagree(d, artifact, flag, value):
    port = free_port()
    args1 = node_args(d, artifact, 1, 2, 2, port)
    if flag == artifact:  # another artifact on node 1
        args1[args1.index(flag)] = value
    elif flag in args1:
        args1[args1.index(flag) + 1] = value
    else:
        args1 += [flag] + ([value] if value else [])
    two_launchers(node_args(d, artifact, 0, 2, 2, port), args1)


def nnodes_disagree(d, artifact):
    port = free_port()
    two_launchers(node_args(d, artifact, 0, 2, 2, port), node_args(d, artifact, 1, 4, 1, port))


def layout(d, artifact):
    port = free_port()
    two_launchers(node_args(d, artifact, 0, 2, 1, port), node_args(d, artifact, 1, 2, 1, port))


def stop_rank(d, artifact, nproc, victim, by_env=False):
    logs = os.path.join(d, "stop-logs")
    env = launcher_env()
    args = train_args(d, artifact) + ["--nproc-per-node", str(nproc), "--master-port",
                                      str(free_port()), "--log-dir", logs]
    if by_env:
        env["DISTC_COLLECTIVE_TIMEOUT"] = "2"
    else:
        args += ["--collective-timeout", "2"]
    launcher = subprocess.Popen(args, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
    pids = {}
    deadline = time.monotonic() + BOUND
    while len(pids) < nproc and time.monotonic() < deadline:
        line = launcher.stderr.readline()
        if not line:
            break
        if line.startswith("dist-run: rank ") and ": pid " in line:
            pids[int(line.split()[2].rstrip(":"))] = int(line.split(": pid ")[1].split(",")[0])
    log0 = os.path.join(logs, "workerlog.0")
    while len(pids) == nproc and time.monotonic() < deadline:
        if os.path.exists(log0) and "samples/s" in open(log0).read():
            break
        time.sleep(0.05)
    else:
        launcher.kill()
        print("the job never trained")
        sys.exit(1)
    os.kill(pids[victim], signal.SIGSTOP)
    took = report_launcher_end(launcher, since=time.monotonic())
    print("the job ended within 6 s of the stop" if took < 6 else f"the job took {took:.1f} s")
    print(f"measured: {took:.2f} s", file=sys.stderr)


def main():
    scenario, d, artifacts = sys.argv[1], sys.argv[2], sys.argv[3:]
    if scenario == "kill-rank":
        kill_rank(d, artifacts[0])
    elif scenario == "artifacts":
        two_workers(d, artifacts[0], artifacts[1])
    elif scenario == "world-size":
        two_workers(d, artifacts[0], artifacts[0], 2, 3)
    elif scenario == "workers-disagree":
        workers_disagree(d, artifacts[0], artifacts[1], artifacts[2])
    elif scenario == "unreachable":
        unreachable(d, artifacts[0])
    elif scenario == "port-in-use":
        port_in_use(d, artifacts[0])
    elif scenario == "two-nodes":
        two_nodes(d, artifacts[0])
    elif scenario == "nodes-disagree":
        two_nodes(d, None, nproc1="1")
    elif scenario == "node-token":
        two_nodes(d, artifacts[0], token1="f" * 32)
    elif scenario == "flags-disagree":
        flags_disagree(d, artifacts[0], artifacts[1], artifacts[2] if len(artifacts) > 2 else "")
    elif scenario == "nnodes-disagree":
        nnodes_disagree(d, artifacts[0])
    elif scenario == "layout":
        layout(d, artifacts[0])
    elif scenario == "stop-rank":
        by_env = artifacts[1] == "env"
        nproc, victim = (int(a) for a in artifacts[2 if by_env else 1:][:2])
        stop_rank(d, artifacts[0], nproc, victim, by_env)
    else:
        print("unknown scenario " + scenario)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main())
