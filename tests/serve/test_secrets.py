#!/usr/bin/env python3
"""k25comm never writes or prints a secret (issue 40), while the requests still carry the key.

The serve phase runs under mpirun against the fake OpenAI server started with --require-key (it answers 401 to a
request without the bearer token, and counts both in GET /stats), with an endpoint that holds user-info
("user:password@") and the key given each way: --api-key KEY, --api-key=KEY, serve.api_key in the config,
--api-key env:NAME; a secret-named NCCL_ variable is in the environment. Then a merge, a re-render, reports and a
journal as an older k25comm wrote them (the secrets in clear), k25comm compare and tools/nightly (twice: without
and with a baseline); and the refusals: a wrong key (the server echoes it in its 401), env:NAME unset, a refused
connection, a bad URL. Every file under the output folder and every console line is read: no secret anywhere.

Run: python3 test_secrets.py (K25COMM, K25_MPIRUN, K25_SMOKE_CONFIG, K25_SOURCE_DIR from ctest).
"""
import json
import os
import re
import shutil
import subprocess
import sys
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "common"))
from ports import refused_port  # noqa: E402  (tests/common: ports and bounded waits)
from test_serve import FakeServer  # noqa: E402  (the fake server as a subprocess, its /stats and /reset)

KEY = "sk-k25test-7f3a9c1e5b2d4680"  # the bearer token the server requires
USER, PASSWORD = "k25user", "pw-k25test-0d9e8c7b6a"  # the endpoint's user-info
WRONG_KEY = "sk-k25wrong-1a2b3c4d5e6f"  # refused, and echoed back by the server's 401
NCCL_SECRET = "nccl-k25test-secret-55aa"  # a secret-named variable k25comm records (NCCL_*)
SECRETS = (KEY, PASSWORD, USER, WRONG_KEY, NCCL_SECRET)
ENV_NAME = "K25_TEST_SERVE_KEY"  # --api-key env:NAME

K25COMM = os.environ.get("K25COMM", "k25comm")
MPIRUN = os.environ.get("K25_MPIRUN", "mpirun")
SMOKE = os.environ.get("K25_SMOKE_CONFIG", "configs/smoke.yaml")
SOURCE = os.environ.get("K25_SOURCE_DIR", os.path.join(HERE, "..", ".."))
SERVE_FLAGS = ["--phases", "serve", "--concurrency", "1", "--requests", "2", "--max-tokens", "4"]


def start_server():
    """The fake server requiring KEY (test_serve.py's FakeServer: a port the kernel chose)."""
    return FakeServer("--itl-ms", "5", "--ttft-ms", "20", "--require-key", KEY, "--max-seconds", "900")


def take_auth_counts(server):
    """The server's counts since the last call, {"accepted": n, "rejected": n}, then cleared (POST /reset)."""
    counts = server.stats()["auth"]
    server.reset()
    return counts


class SecretsTests(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.server = start_server()
        cls.work = os.path.join(os.getcwd(), "secrets")
        shutil.rmtree(cls.work, ignore_errors=True)
        cls.out = os.path.join(cls.work, "out")  # everything k25comm and the nightly write: scanned
        cls.inputs = os.path.join(cls.work, "inputs")  # what the test gives them (secrets in clear): not scanned
        os.makedirs(cls.out)
        os.makedirs(cls.inputs)
        cls.consoles = []  # (what, stdout + stderr) of every command
        cls.endpoint = f"http://{USER}:{PASSWORD}@127.0.0.1:{cls.server.port}"
        cls.shown_endpoint = f"http://<redacted>@127.0.0.1:{cls.server.port}"

    @classmethod
    def tearDownClass(cls):
        cls.server.stop()

    def run_command(self, what, command, expect_rc, env=None, timeout=240):
        done = subprocess.run(command, capture_output=True, text=True, timeout=timeout,
                              env={**os.environ, f"NCCL_K25_TEST_TOKEN": NCCL_SECRET, **(env or {})})
        console = done.stdout + done.stderr
        self.consoles.append((what, console))
        self.assertIn(done.returncode, expect_rc if isinstance(expect_rc, tuple) else (expect_rc,),
                      f"{what}: {' '.join(command)}\n{console[-4000:]}")
        return console

    def k25comm_run(self, name, *flags, expect_rc=0, env=None, config=SMOKE, endpoint=None):
        return self.run_command(
            name, [MPIRUN, "-np", "2", "--oversubscribe", K25COMM, "--sizes", config, *SERVE_FLAGS,
                   "--endpoint", endpoint or self.endpoint, "--out", os.path.join(self.out, name), *flags],
            expect_rc, env)

    def report(self, *parts):
        with open(os.path.join(self.out, *parts, "report.json")) as f:
            return json.load(f)

    def assert_sent_with_key(self, what):
        """Every request of the run carried the key: none refused, and six accepted (GET /v1/models to check the
        endpoint and to find the model, 2 warm-up and 2 counted requests)."""
        self.assertEqual(take_auth_counts(self.server), {"accepted": 6, "rejected": 0}, what)

    def assert_no_secret(self):
        """No secret in any console line or in any byte of any file under the output folder."""
        for what, console in self.consoles:
            for secret in SECRETS:
                self.assertNotIn(secret, console, f"{what}'s console shows a secret:\n{console[-4000:]}")
        files = 0
        for folder, _, names in os.walk(self.out):
            for name in names:
                path = os.path.join(folder, name)
                if os.path.islink(path):
                    continue
                with open(path, "rb") as f:
                    content = f.read()
                files += 1
                for secret in SECRETS:
                    self.assertNotIn(secret.encode(), content, f"{path} holds a secret")
        return files

    def write_old(self, source, target, edit):
        """An older k25comm's file: each JSON line (or the whole report) of `source` edited by `edit`."""
        with open(source) as f:
            text = f.read()
        if source.endswith(".jsonl"):
            lines = [json.dumps(edit(json.loads(line))) for line in text.splitlines() if line.strip()]
            text = "\n".join(lines) + "\n"
        else:
            text = json.dumps(edit(json.loads(text)))
        with open(target, "w") as f:
            f.write(text)
        return target

    def with_secrets_in_clear(self, record):
        """What an older k25comm recorded: the command line, the endpoint and the environment as given."""
        run = record.get("run")
        if run is not None:
            run["command_line"] = f"k25comm --api-key {KEY} --endpoint {self.endpoint}"
            run.setdefault("env", {})["OMPI_ARGV"] = f"--api-key={KEY} --endpoint {self.endpoint}"
            run["env"]["NCCL_K25_TEST_TOKEN"] = NCCL_SECRET
            run.setdefault("config", {}).setdefault("serve", {})["endpoint"] = self.endpoint
        if "endpoint" in record.get("serve", {}):
            record["serve"]["endpoint"] = self.endpoint
        return record

    def test_no_secret_is_written_or_printed_and_the_key_is_sent(self):
        # The key each way; each run's requests carried it (the server refuses any without).
        take_auth_counts(self.server)
        self.k25comm_run("flag", "--api-key", KEY)
        self.assert_sent_with_key("--api-key KEY")
        self.k25comm_run("flag-equals", f"--api-key={KEY}")
        self.assert_sent_with_key("--api-key=KEY")
        config = os.path.join(self.inputs, "with-key.yaml")
        with open(SMOKE) as f, open(config, "w") as g:
            g.write(f.read() + f"\nserve:\n  api_key: {KEY}\n")
        self.k25comm_run("config", config=config)
        self.assert_sent_with_key("serve.api_key")
        self.k25comm_run("env", "--api-key", f"env:{ENV_NAME}", env={ENV_NAME: KEY})
        self.assert_sent_with_key("--api-key env:NAME")

        # What the runs recorded says where a secret was, not what it was.
        flag = self.report("flag")
        self.assertIn("--api-key <redacted>", flag["run"]["command_line"])
        self.assertIn(f"--endpoint {self.shown_endpoint}", flag["run"]["command_line"])
        self.assertEqual(flag["serve"]["endpoint"], self.shown_endpoint)
        self.assertEqual(flag["run"]["config"]["serve"]["endpoint"], self.shown_endpoint)
        self.assertEqual(flag["run"]["env"]["NCCL_K25_TEST_TOKEN"], "<redacted>")
        self.assertEqual(flag["serve"]["levels"][0]["completed"], 2)
        self.assertIn("--api-key=<redacted>", self.report("flag-equals")["run"]["command_line"])
        self.assertIn(f"--api-key env:{ENV_NAME}", self.report("env")["run"]["command_line"])

        # A merge, a re-render from the journal, and the same from files an older k25comm wrote.
        self.run_command("merge", [K25COMM, "report", os.path.join(self.out, "flag", "report.json"), "--serve",
                                   os.path.join(self.out, "env", "report.json"), "--out",
                                   os.path.join(self.out, "merged")], 0)
        self.run_command("re-render", [K25COMM, "report", os.path.join(self.out, "config", "journal.jsonl"),
                                       "--out", os.path.join(self.out, "rerendered")], 0)
        old_report = self.write_old(os.path.join(self.out, "flag", "report.json"),
                                    os.path.join(self.inputs, "old-report.json"), self.with_secrets_in_clear)
        old_journal = self.write_old(os.path.join(self.out, "config", "journal.jsonl"),
                                     os.path.join(self.inputs, "old-journal.jsonl"), self.with_secrets_in_clear)
        with open(old_report) as f:
            self.assertIn(KEY, f.read())  # the test's old report does hold the secrets
        self.run_command("old re-render", [K25COMM, "report", old_report, "--out",
                                           os.path.join(self.out, "old-rerendered")], 0)
        self.run_command("old journal", [K25COMM, "report", old_journal, "--out",
                                         os.path.join(self.out, "old-journal-rerendered")], 0)
        self.run_command("old merge", [K25COMM, "report", os.path.join(self.out, "flag", "report.json"), "--serve",
                                       old_report, "--out", os.path.join(self.out, "old-merged")], 0)
        self.run_command("old compare", [K25COMM, "compare", old_report, os.path.join(self.out, "env", "report.json")],
                         (0, 1, 2))
        self.assertEqual(self.report("old-rerendered")["serve"]["endpoint"], self.shown_endpoint)
        self.assertIn("--api-key <redacted>", self.report("old-merged")["run"]["command_line"])

        # tools/nightly: a first night (no baseline yet: it starts one), then a night compared with it.
        nightly = [os.path.join(SOURCE, "tools", "nightly"), "--config", SMOKE, "--np", "2", "--mpirun", MPIRUN,
                   "--k25comm", K25COMM, "--baseline", os.path.join(self.out, "baseline.json"),
                   "--update-baseline", "--out-root", os.path.join(self.out, "nightly-1"), "--",
                   *SERVE_FLAGS, "--endpoint", self.endpoint, "--api-key", KEY]
        self.run_command("nightly without a baseline", nightly, 0)
        self.assert_sent_with_key("nightly")
        self.assertTrue(os.path.isfile(os.path.join(self.out, "baseline.json")))
        nightly[nightly.index("--out-root") + 1] = os.path.join(self.out, "nightly-2")
        # Its verdict on the fake server's TPOT (0, or 1 where a loaded machine slowed this night) is not the test's.
        self.run_command("nightly against the baseline", nightly, (0, 1))
        self.assert_sent_with_key("nightly")
        # The dated folder (beside it: latest, history.sqlite and the history page).
        dated = re.compile(r"\d{4}-\d{2}-\d{2}(-\d{6}(-\d+)?)?")
        [night] = [d for d in os.listdir(os.path.join(self.out, "nightly-2")) if dated.fullmatch(d)]
        with open(os.path.join(self.out, "nightly-2", night, "compare.txt")) as f:
            self.assertIn("serve C=1  TPOT p50 ms", f.read())
        with open(os.path.join(self.out, "nightly-2", night, "run.log")) as f:
            self.assertIn("# serve C=1: 2/2 completed", f.read())

        files = self.assert_no_secret()
        self.assertGreater(files, 40)  # the runs' journals, reports, CSVs, plots, the nightly's logs

    def test_refusals_name_the_endpoint_without_its_secrets(self):
        take_auth_counts(self.server)
        # A wrong key: the probe is refused (401, the answer echoes the key), the run stops before measuring.
        console = self.k25comm_run("wrong-key", "--api-key", WRONG_KEY, expect_rc=3)
        self.assertIn(f"serve endpoint {self.shown_endpoint}/v1/models refused the request: HTTP 401", console)
        self.assertIn("the bearer token sent was --api-key's (serve.api_key)", console)
        self.assertEqual(take_auth_counts(self.server), {"accepted": 0, "rejected": 1})
        # No key at all.
        console = self.k25comm_run("no-key", expect_rc=3)
        self.assertIn("no bearer token was sent: give one with --api-key env:NAME", console)
        take_auth_counts(self.server)
        # env:NAME where NAME is not set: bad usage, nothing sent.
        console = self.k25comm_run("env-unset", "--api-key", "env:K25_TEST_UNSET_KEY", expect_rc=2)
        self.assertIn("serve.api_key: env:K25_TEST_UNSET_KEY names an environment variable that is not set", console)
        self.assertEqual(take_auth_counts(self.server), {"accepted": 0, "rejected": 0})
        # A refused connection and a bad URL.
        with refused_port() as port:
            console = self.k25comm_run("refused", "--api-key", KEY,
                                       endpoint=f"http://{USER}:{PASSWORD}@127.0.0.1:{port}", expect_rc=3)
        self.assertIn(f"serve endpoint http://<redacted>@127.0.0.1:{port}/v1/models is unreachable", console)
        console = self.k25comm_run("bad-url", "--api-key", KEY, endpoint=f"http://{USER}:{PASSWORD}@127.0.0.1:99999",
                                   expect_rc=3)
        self.assertIn("serve endpoint http://<redacted>@127.0.0.1:99999/v1/models is unreachable", console)
        self.assertIn("[call: GET http://<redacted>@127.0.0.1:99999/v1/models]", console)
        # The same with --verbose (which may add where the error was raised, nothing else).
        console = self.k25comm_run("bad-url-verbose", "--verbose", "--api-key", KEY,
                                   endpoint=f"http://{USER}:{PASSWORD}@127.0.0.1:99999", expect_rc=3)
        self.assertIn("serve endpoint http://<redacted>@127.0.0.1:99999/v1/models is unreachable", console)
        self.assert_no_secret()


if __name__ == "__main__":
    unittest.main(verbosity=2)
