"""The valid inputs every family mutates."""

import io
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np


ROOT = Path(__file__).resolve().parent.parent.parent
EXAMPLES = ROOT / "examples"


class Base:
    """Valid inputs, made once per campaign in WORK/base: the example
    programs (JSON and binary), artifacts compiled from them, and data."""

    MODELS = {  # example -> its loss variable (None: it compiles to predict mode only)
        "digits": "loss",
        "mlp": "mean_0.tmp_0",
        "transformer": None,
    }

    def __init__(self, bin_dir, work):
        self.dir = work / "base"
        self.dir.mkdir(parents=True, exist_ok=True)
        d = self.dir
        self.json = {}  # example -> (main.json, startup.json)
        self.pb = {}  # example -> (main.pdmodel, startup.pdmodel)
        self.artifact = {}
        for name in self.MODELS:
            main, startup = d / f"{name}.json", d / f"{name}-startup.json"
            shutil.copy(EXAMPLES / name / "main.json", main)
            shutil.copy(EXAMPLES / name / "startup.json", startup)
            self.json[name] = (main, startup)
            pb, pb_startup = d / f"{name}.pdmodel", d / f"{name}-startup.pdmodel"
            # Relative names: the artifact records its source path, and the
            # same bytes in every work directory keep a seed's mutations alike.
            check([bin_dir / "distc-translate", "--export-pb", main.name,
                   f"--startup={startup.name}", "--startup-output", pb_startup.name, "-o", pb.name],
                  d)
            self.pb[name] = (pb, pb_startup)
            self.artifact[name] = d / f"{name}.distc"
            check([bin_dir / "distc"] + self.compile_args(name, main.name, startup.name,
                                                          self.artifact[name].name), d)
        rows = np.loadtxt(EXAMPLES / "digits" / "digits.csv.gz", delimiter=",")[:16]
        self.x, self.label = d / "x.npy", d / "label.npy"
        np.save(self.x, rows[:, :64].astype(np.float32))
        np.save(self.label, rows[:, 64:].astype(np.int64))
        self.src_ids = d / "src_ids.npy"
        np.save(self.src_ids, np.arange(32, dtype=np.int64).reshape(2, 16) % 50)
        buf = io.StringIO()
        np.savetxt(buf, rows, delimiter=",", fmt="%g")
        self.csv_text = buf.getvalue()
        self.npy_x, self.npy_label = self.x.read_bytes(), self.label.read_bytes()
        self.empty_dir = d / "empty-dir"
        self.empty_dir.mkdir(exist_ok=True)
        # Special files, and links to them with the suffixes --data looks for.
        self.sparse = d / "sparse-3g"
        with open(self.sparse, "wb") as f:
            f.truncate(3 * 1024**3)
        (d / "empty").write_bytes(b"")
        (d / "bracket").write_bytes(b"[")
        (d / "brackets").write_bytes(b"[" * 200000)
        (d / "bracket-list").write_bytes(b"[1, 2, 3]\n")

    def compile_args(self, name, main, startup, out):
        loss = self.MODELS[name]
        args = [main, "--startup", startup, "-o", out]
        return args + (["--loss", loss, "--optimizer", "sgd"] if loss else [])

    def follow_up(self, name, artifact):
        """The run that exercises what a mutated program compiled to."""
        if self.MODELS[name] is None:
            return ["dist-run", artifact, "--mode", "predict", "--input", f"src_ids=@{self.src_ids}"]
        return self.train(artifact, "--data", f"x=@{self.x}", "--data", f"label=@{self.label}")

    def train(self, artifact, *data):
        return ["dist-run", artifact, "--mode", "train", *data, "--steps", "2", "--batch-size", "4"]

    def special_values(self):
        """Paths that are no regular file worth reading, each with a label."""
        d = self.dir
        return {"directory": self.empty_dir, "dev-zero": "/dev/zero", "dev-urandom": "/dev/urandom",
                "dev-null": "/dev/null", "dev-full": "/dev/full", "proc-self-mem": "/proc/self/mem",
                "sparse-3g": self.sparse, "empty": d / "empty", "bracket": d / "bracket",
                "brackets-200k": d / "brackets", "bracket-list": d / "bracket-list",
                "missing": d / "no" / "such-file"}


def check(argv, cwd):
    r = subprocess.run([str(a) for a in argv], cwd=cwd, capture_output=True, text=True)
    if r.returncode != 0:
        sys.exit(f"hostile-inputs: setting up failed: {shlex.join(map(str, argv))}\n{r.stderr}")
