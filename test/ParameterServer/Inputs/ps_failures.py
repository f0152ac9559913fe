"""Failure scenarios of parameter-server jobs, driven with real processes.

    ps_failures.py SCENARIO DIR ARTIFACT [OTHER_ARTIFACT]

DIR holds x.npy and label.npy (trajectory.py data) and wide/, the initial
parameters (params.py), and receives the logs.
ARTIFACT is compiled for 2 servers and 2 trainers. Every scenario prints
what the processes said (for FileCheck) and how long they took, and fails
(exit 1) when a process outlives its bound: no scenario may hang.

    kill-server      dist-run starts the job; server 1 is killed with
                     SIGKILL mid-training: the launcher and every trainer
                     must end within 10 s, the trainers naming server 1
    kill-trainer     the same with trainer 1 (synchronous training): the
                     servers must not wait for it; they name it
    intruder         mid-training, a process with another job's token
                     asks to join: the store refuses it; the job goes on
    other-artifact   the four processes started with Paddle's role
                     variables, trainer 1 with OTHER_ARTIFACT: every
                     process that compares refuses at the join
"""
import os
import signal
import subprocess
import sys
import time

# The data-parallel failure driver's helpers: bounded waits, free ports.
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "e2e",
                                "Inputs"))
from dp_failures import BOUND, finish, free_port, report_launcher_end  # noqa: E402
ENDPOINTS = "127.0.0.1:36174,127.0.0.1:36175"  # what failures.test compiles for


def train_args(d, artifact):
    return ["dist-run", artifact, "--mode", "train", "--data", f"x=@{d}/x.npy",
            "--data", f"label=@{d}/label.npy", "--init-from", f"{d}/wide", "--batch-size", "2",
            "--steps", "100000000",
            "--rendezvous-timeout", "5"]


def clean_env(extra=None):
    env = dict(os.environ)
    for name in list(env):
        if name.startswith(("PADDLE_", "OMPI_", "SLURM_", "DISTC_")) or name in (
                "RANK", "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT",
                "TRAINING_ROLE", "POD_IP"):
            del env[name]
    env.update(extra or {})
    return env


def start_job(d, artifact, port):
    logs = os.path.join(d, "logs")
    launcher = subprocess.Popen(
        train_args(d, artifact) + ["--server-num", "2", "--worker-num", "2", "--master-port",
                                   str(port), "--log-dir", logs],
        env=clean_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    pids = {}
    deadline = time.monotonic() + BOUND
    while len(pids) < 4 and time.monotonic() < deadline:
        line = launcher.stderr.readline()
        if not line:
            break
        print("launcher: " + line.rstrip())
        # "dist-run: server 1: pid 4242, log ..."
        if ": pid " in line:
            who = line.split(":")[1].strip()
            pids[who] = int(line.split(": pid ")[1].split(",")[0])
    if len(pids) < 4:
        launcher.kill()
        print("the launcher did not start 4 processes")
        sys.exit(1)
    # Wait until the job trains (trainer 0 reports progress).
    log0 = os.path.join(logs, "workerlog.0")
    while time.monotonic() < deadline:
        if os.path.exists(log0) and "samples/s" in open(log0).read():
            return launcher, pids, logs
        time.sleep(0.05)
    launcher.kill()
    print("the job never trained")
    sys.exit(1)


def print_errors(logs, names):
    for name in names:
        with open(os.path.join(logs, name)) as f:
            for line in f:
                if "error" in line:
                    print(f"{name}: " + line.rstrip())


def kill_one(d, artifact, victim, logs_to_show):
    launcher, pids, logs = start_job(d, artifact, free_port())
    os.kill(pids[victim], signal.SIGKILL)
    took = report_launcher_end(launcher, since=time.monotonic())
    print("the job ended within 10 s of the kill" if took < 10 else f"the job took {took:.1f} s")
    print_errors(logs, logs_to_show)


def intruder(d, artifact):
    port = free_port()
    launcher, pids, logs = start_job(d, artifact, port)
    env = clean_env({"DISTC_LAUNCHER": "dist-run", "DISTC_JOB_TOKEN": "0" * 32,
                     "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
                     "TRAINING_ROLE": "TRAINER", "PADDLE_PSERVERS_IP_PORT_LIST": ENDPOINTS,
                     "PADDLE_TRAINERS_NUM": "2", "PADDLE_TRAINER_ID": "1"})
    p = subprocess.Popen(train_args(d, artifact), env=env, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    finish([("intruder", p)])
    # The job is unharmed: stop it as a user would.
    launcher.send_signal(signal.SIGINT)
    report_launcher_end(launcher, since=time.monotonic())


def other_artifact(d, artifact, other):
    port = free_port()
    common = {"MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(port),
              "PADDLE_PSERVERS_IP_PORT_LIST": ENDPOINTS, "PADDLE_TRAINERS_NUM": "2"}
    procs = []
    for i, endpoint in enumerate(ENDPOINTS.split(",")):
        ip, p = endpoint.split(":")
        env = clean_env(dict(common, TRAINING_ROLE="PSERVER", POD_IP=ip, PADDLE_PORT=p))
        procs.append((f"server {i}", subprocess.Popen(
            train_args(d, artifact), env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)))
        time.sleep(0.2)  # server 0 serves the store
    for t in range(2):
        env = clean_env(dict(common, TRAINING_ROLE="TRAINER", PADDLE_TRAINER_ID=str(t)))
        procs.append((f"trainer {t}", subprocess.Popen(
            train_args(d, other if t == 1 else artifact), env=env, stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT, text=True)))
    finish(procs)


def main():
    scenario, d, artifact = sys.argv[1:4]
    if scenario == "kill-server":
        kill_one(d, artifact, "server 1", ["workerlog.0", "workerlog.1"])
    elif scenario == "kill-trainer":
        kill_one(d, artifact, "trainer 1", ["serverlog.0", "serverlog.1"])
    elif scenario == "intruder":
        intruder(d, artifact)
    elif scenario == "other-artifact":
        other_artifact(d, artifact, sys.argv[4])
    else:
        sys.exit(f"unknown scenario {scenario}")


if __name__ == "__main__":
    main()
