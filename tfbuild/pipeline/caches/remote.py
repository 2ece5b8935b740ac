"""Shared caches and distributed compilation: how the builds of a CI fleet share their work.

A fleet builds one TensorFlow tree for many apps and targets, on many machines. Existing engines
make that cheap, configured here rather than re-made:

- a remote cache every worker reads and fills: ccache's remote storage (HTTP, for example nginx
  with WebDAV, or Redis) for the Makefile flavour; Bazel's HTTP (or gRPC) cache for the Bazel
  flavour. A miss compiles locally and uploads. When the server cannot be reached, both engines
  warn and compile locally on their own, so a cache outage slows a build down and never fails it;
- distcc for the Makefile flavour: ``make -j`` hands compiles to ``distccd`` workers, with ccache
  in front (``CCACHE_PREFIX=distcc``), so a cache hit is never sent anywhere.

Credentials. A cache URL may carry ``user:password@`` (ccache and Bazel both take HTTP basic
auth that way). It is held as a :class:`SecretUrl`, whose text everywhere (plans, logs,
manifests, errors, ``tfbuild config show``) is ``user:***@host``. The URL itself reaches the
build only through the container's (or the local build's) environment, in
:attr:`~tfbuild.pipeline.planning.plan.BuildPlan.secret_env`, never through an argv or a step's env, which
are logged and recorded. A Bazel step that needs it reads it from that variable through a fixed
``sh -c`` line that expands nothing else.

A server on this machine's loopback (a developer's cache, the tests' nginx, distccd workers
started beside the build) is reachable from a build container only on the host's network, so
such plans run their container with ``network_mode=host`` and say so.

Statistics. The engines count for themselves: a Makefile plan with ccache zeroes its
statistics first and prints them last (``ccache --print-stats``, into ``ccache-stats.txt``), and
Bazel ends with ``INFO: N processes: K remote cache hit, ...``. :func:`read_cache_stats` reads
both after the build; the manifest records them and the build's summary prints the remote hits.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from urllib.parse import SplitResult, urlsplit

from tfbuild.errors import ConfigError
from tfbuild.pipeline.planning.notes import Note

CACHE_URL_ENV = "TFBUILD_REMOTE_CACHE_URL"
"""The variable that carries the cache URL into the build (container or local)."""
CCACHE_REMOTE_ENV = "CCACHE_REMOTE_STORAGE"
CCACHE_SCHEMES = ("http", "https", "redis", "rediss")
"""ccache's remote storage backends that take a URL (4.4 and later)."""
BAZEL_SCHEMES = ("http", "https", "grpc", "grpcs")
CCACHE_STATS_FILE = "ccache-stats.txt"
BAZEL_STEP_LOG = "bazel-build.log"
REDACTED = "***"
DISTCC_DEFAULT_SLOTS = 4
"""What distcc allows a remote host without a ``/LIMIT``."""
_DISTCC_TOKEN = re.compile(r"(?:--[a-z_]+(?:=\d+)?|[A-Za-z0-9_.\[\]:-]+(?:/\d+)?(?:,[A-Za-z0-9_=]+)*)\Z")
_PROCESSES = re.compile(r"INFO: (\d+) processes?: (.*?)\.?\s*$")


class SecretUrl:
    """A URL that may hold a password: ``str()`` and ``repr()`` give it with the password
    replaced by ``***``; :meth:`reveal` gives it whole, for the build's environment only."""

    __slots__ = ("_url",)

    def __init__(self, url: str) -> None:
        self._url = url

    def reveal(self) -> str:
        return self._url

    @property
    def parts(self) -> SplitResult:
        return urlsplit(self._url)

    @property
    def has_credentials(self) -> bool:
        return self.parts.password is not None

    @property
    def redacted(self) -> str:
        parts = self.parts
        if parts.password is None:
            return self._url
        host = parts.netloc.rpartition("@")[2]
        user = parts.netloc.rpartition("@")[0].partition(":")[0]  # as written (Redis URLs have none)
        return parts._replace(netloc=f"{user}:{REDACTED}@{host}").geturl()

    def __str__(self) -> str:
        return self.redacted

    def __repr__(self) -> str:
        return f"SecretUrl({self.redacted!r})"

    def __eq__(self, other: object) -> bool:
        return isinstance(other, SecretUrl) and other._url == self._url

    def __hash__(self) -> int:
        return hash(self._url)


def parse_cache_url(raw: str, where: str) -> SecretUrl:
    """``raw`` as a remote cache URL (``where`` names the flag, variable or file key)."""
    url = SecretUrl(raw.strip())
    shown = url.redacted if "://" in raw else "the value"
    try:
        parts = url.parts
        _ = parts.port  # a port that is not a number raises here
    except ValueError:
        raise ConfigError(f"{where}: {shown} is not a URL with a valid port") from None
    schemes = sorted(set(CCACHE_SCHEMES) | set(BAZEL_SCHEMES))
    if parts.scheme not in schemes or not parts.hostname or any(char.isspace() for char in raw.strip()):
        raise ConfigError(
            f"{where}: {shown} is not a remote cache URL",
            hint=f"give SCHEME://[user:password@]host[:port][/path], SCHEME one of {', '.join(schemes)}",
        )
    return url


def parse_distcc_hosts(words: Sequence[str], where: str) -> tuple[str, ...]:
    """distcc host specifications, as ``DISTCC_HOSTS`` takes them (``host[:port][/limit]``,
    ``localhost``, ``--localslots=N``); pump and SSH modes are not offered."""
    for word in words:
        if not _DISTCC_TOKEN.match(word) or not _names_a_host(word):
            raise ConfigError(
                f"{where}: {word!r} is not a distcc host",
                hint="give host[:port][/limit] words, e.g. 10.0.0.5:3632/8 (TCP distccd workers)",
            )
    return tuple(words)


_HOST_NAME = re.compile(r"(?!-)[A-Za-z0-9-]{1,63}(?<!-)(?:\.(?!-)[A-Za-z0-9-]{1,63}(?<!-))*\.?\Z")


def _names_a_host(word: str) -> bool:
    """Whether a ``DISTCC_HOSTS`` word names a host (a name, an IPv4 or IPv6 address) and, if
    it gives one, a port from 1 to 65535: ``::::`` and ``host:`` do not."""
    if word.startswith("--"):
        return True
    spec = word.split(",", 1)[0].split("/", 1)[0]
    if spec.startswith("["):
        address, bracket, rest = spec[1:].partition("]")
        if not bracket or (rest and not rest.startswith(":")):
            return False
        return _is_address(address, ipaddress.IPv6Address) and (not rest or _is_port(rest[1:]))
    if spec.count(":") > 1:
        return _is_address(spec, ipaddress.IPv6Address)
    host, colon, port = spec.partition(":")
    return bool(_HOST_NAME.match(host)) and (not colon or _is_port(port))


def _is_address(text: str, kind: type[ipaddress.IPv6Address]) -> bool:
    try:
        kind(text)
    except ValueError:
        return False
    return True


def _is_port(text: str) -> bool:
    return text.isdigit() and 1 <= int(text) <= 65535


def distcc_host_name(spec: str) -> str | None:
    """The host of one ``DISTCC_HOSTS`` word (None for an option such as ``--randomize``)."""
    if spec.startswith("--"):
        return None
    host = spec.split(",", 1)[0].split("/", 1)[0]
    if host.startswith("["):
        return host[1:].partition("]")[0]
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def on_loopback(host: str | None) -> bool:
    if host is None:
        return False
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class RemoteOptions:
    """The fleet's shared cache and distcc workers (``--remote-cache``, ``--distcc-hosts``)."""

    remote_cache: SecretUrl | None = None
    distcc_hosts: tuple[str, ...] = ()

    @property
    def loopback_hosts(self) -> tuple[str, ...]:
        """The servers named on this machine's loopback (they need the host's network)."""
        hosts = [self.remote_cache.parts.hostname] if self.remote_cache is not None else []
        hosts += [distcc_host_name(spec) for spec in self.distcc_hosts]
        return tuple(sorted({host for host in hosts if host is not None and on_loopback(host)}))

    @property
    def distcc_slots(self) -> int:
        slots = 0
        for spec in self.distcc_hosts:
            if spec.startswith("--"):
                continue
            limit = spec.split(",", 1)[0].partition("/")[2]
            slots += int(limit) if limit else DISTCC_DEFAULT_SLOTS
        return slots


@dataclass(frozen=True)
class RemoteUse:
    """What a plan takes from :class:`RemoteOptions`."""

    env: dict[str, str] = field(default_factory=dict)
    """Variables the build's steps get (none secret: distcc's hosts, ccache's prefix)."""
    secret_env: dict[str, str] = field(default_factory=dict)
    """Variables holding the cache URL: given to the container only, never printed."""
    network: str | None = None
    """``host`` when a server is on this machine's loopback (a container build)."""
    notes: tuple[Note, ...] = ()


def _network(remote: RemoteOptions, in_container: bool) -> tuple[str | None, tuple[Note, ...]]:
    hosts = remote.loopback_hosts
    if not hosts or not in_container:
        return None, ()
    return "host", (Note("container-network", f"host, since {', '.join(hosts)} is this machine's loopback"),)


def makefile_remote(
    remote: RemoteOptions, *, has_ccache: bool, in_container: bool, scratch: PurePosixPath, jobs: int
) -> RemoteUse:
    """The environment a Makefile build gets for a remote ccache and distcc workers."""
    env: dict[str, str] = {}
    secret: dict[str, str] = {}
    notes: list[Note] = []
    if remote.remote_cache is not None:
        scheme = remote.remote_cache.parts.scheme
        if not has_ccache:
            raise ConfigError(
                f"remote cache {remote.remote_cache}: a --local build compiles without ccache",
                hint="build in the toolchain container (drop --local) to use the remote cache",
            )
        if scheme not in CCACHE_SCHEMES:
            raise ConfigError(
                f"remote cache {remote.remote_cache}: ccache has no {scheme} storage",
                hint=f"the Makefile flavour's cache is ccache's: give a {', '.join(CCACHE_SCHEMES)} URL",
            )
        secret[CCACHE_REMOTE_ENV] = remote.remote_cache.reveal()
        notes.append(Note("remote-cache", f"{remote.remote_cache} (ccache remote storage, after the local cache)"))
    if remote.distcc_hosts:
        env["DISTCC_HOSTS"] = " ".join(remote.distcc_hosts)
        env["DISTCC_DIR"] = str(scratch / "distcc")
        if has_ccache:
            env["CCACHE_PREFIX"] = "distcc"
        slots = remote.distcc_slots
        note = f"{len(remote.distcc_hosts)} host word(s), {slots} remote slot(s); make -j{jobs}"
        if jobs < slots:
            note += f" (fewer jobs than slots: pass --jobs {slots} to fill them)"
        notes.append(Note("distcc", note))
    network, network_notes = _network(remote, in_container)
    return RemoteUse(env=env, secret_env=secret, network=network, notes=(*notes, *network_notes))


def bazel_remote(remote: RemoteOptions, *, bazel_version: tuple[int, ...], in_container: bool) -> RemoteUse:
    """The environment a Bazel build gets for a remote cache (its flag: :func:`bazel_cache_flag`).
    distcc hosts are left out with a note, not refused: one tfbuild.toml serves a repository's
    Makefile and Bazel builds alike."""
    ignored = (Note("distcc", "hosts not used: Bazel does not compile through distcc"),) if remote.distcc_hosts else ()
    if remote.remote_cache is None:
        return RemoteUse(notes=ignored)
    scheme = remote.remote_cache.parts.scheme
    if scheme not in BAZEL_SCHEMES:
        raise ConfigError(
            f"remote cache {remote.remote_cache}: Bazel has no {scheme} cache",
            hint=f"give Bazel an {', '.join(BAZEL_SCHEMES)} URL (nginx with WebDAV serves HTTP)",
        )
    if is_grpc(remote.remote_cache) and remote.remote_cache.has_credentials and bazel_version < (1,):
        raise ConfigError(
            f"remote cache {remote.remote_cache}: Bazel {'.'.join(map(str, bazel_version))} takes no "
            "credentials in a gRPC address",
            hint="use an HTTP cache URL with user:password, or a Bazel 1.0+ tree",
        )
    flag = bazel_cache_flag(remote.remote_cache, bazel_version).split("=", 1)[0]
    network, network_notes = _network(remote, in_container)
    notes = [Note("remote-cache", f"{remote.remote_cache} (Bazel {flag})"), *network_notes, *ignored]
    if not bazel_keeps_disk_cache(remote.remote_cache, bazel_version):
        notes.append(Note("remote-cache", f"no --disk_cache: Bazel {'.'.join(map(str, bazel_version))} uses a disk "
                          "cache or a gRPC cache, not both, and the shared one is the point"))
    return RemoteUse(secret_env={CACHE_URL_ENV: remote.remote_cache.reveal()}, network=network, notes=tuple(notes))


GRPC_WITH_DISK_CACHE = (2,)
"""The first Bazel release assumed to combine ``--disk_cache`` with a gRPC cache; Bazel 0.26.1,
given both, used the disk cache only (every action missed the gRPC server; checked here with
BuildGrid), so older releases get the gRPC cache alone."""


def is_grpc(url: SecretUrl) -> bool:
    return url.parts.scheme in ("grpc", "grpcs")


def bazel_keeps_disk_cache(url: SecretUrl | None, bazel_version: tuple[int, ...]) -> bool:
    return url is None or not is_grpc(url) or bazel_version >= GRPC_WITH_DISK_CACHE


def bazel_cache_flag(url: SecretUrl, bazel_version: tuple[int, ...], *, value: str | None = None) -> str:
    """Bazel's flag for ``url``: before 1.0, HTTP caches have ``--remote_http_cache`` and
    ``--remote_cache`` takes a bare ``host:port`` gRPC endpoint; from 1.0 ``--remote_cache``
    takes the URL. ``value`` replaces the URL in the flag (a variable's name). A gRPC URL's
    path is the REAPI instance name (:func:`bazel_cache_options`)."""
    parts = url.parts
    if bazel_version < (1,):
        if parts.scheme in ("http", "https"):
            return f"--remote_http_cache={value or url.reveal()}"
        return f"--remote_cache={value or parts.netloc}"
    if is_grpc(url) and value is None:
        return f"--remote_cache={parts._replace(path='').geturl()}"
    return f"--remote_cache={value or url.reveal()}"


def bazel_cache_options(url: SecretUrl, bazel_version: tuple[int, ...]) -> tuple[str, ...]:
    """The options besides the URL: a gRPC cache's instance name (the URL's path), and TLS
    for ``grpcs://`` before Bazel 1.0 (whose ``--remote_cache`` takes no scheme)."""
    options = []
    instance = url.parts.path.strip("/")
    if is_grpc(url) and instance:
        options.append(f"--remote_instance_name={instance}")
    if url.parts.scheme == "grpcs" and bazel_version < (1,):
        options.append("--tls_enabled")
    return tuple(options)


def bazel_cache_argv(
    argv: tuple[str, ...], url: SecretUrl | None, bazel_version: tuple[int, ...]
) -> tuple[str, ...]:
    """``argv`` (a ``bazel build`` command) with the cache flag. The URL goes in as it is when
    it holds no password; otherwise the command runs through ``sh -c`` with a fixed line that
    appends the flag from :data:`CACHE_URL_ENV`, so the argv the plan shows holds no secret."""
    if url is None:
        return argv
    argv = (*argv, *bazel_cache_options(url, bazel_version))
    if not url.has_credentials:
        return (*argv, bazel_cache_flag(url, bazel_version))
    flag = bazel_cache_flag(url, bazel_version, value=f"${CACHE_URL_ENV}")
    return ("sh", "-c", f'exec "$@" "{flag}"', "bazel-with-remote-cache", *argv)


# -- statistics ------------------------------------------------------------------------------


@dataclass(frozen=True)
class CacheStats:
    """A build's compile-cache figures as the engine counted them."""

    engine: str  # "ccache" or "bazel"
    compiles: int
    """Compilations (ccache: cacheable calls) or actions (Bazel: processes, internal ones left out)."""
    remote_hits: int
    local_hits: int = 0
    remote_errors: int = 0
    """ccache: remote storage errors and timeouts (a server that went away)."""
    detail: dict[str, int] = field(default_factory=dict)

    @property
    def remote_hit_rate(self) -> float:
        return self.remote_hits / self.compiles if self.compiles else 0.0

    def line(self) -> str:
        text = (f"{self.engine}: {self.remote_hits} of {self.compiles} compiles from the remote cache "
                f"({self.remote_hit_rate:.0%}), {self.local_hits} from the local cache")
        return text + (f", {self.remote_errors} remote error(s)" if self.remote_errors else "")


def parse_ccache_stats(text: str) -> CacheStats | None:
    """``ccache --print-stats`` (tab-separated ``key value`` lines; 4.8+ says ``remote_storage``,
    4.4-4.7 ``secondary_storage``)."""
    values: dict[str, int] = {}
    for line in text.splitlines():
        key, _, number = line.strip().partition("\t")
        if number.strip().isdigit():
            values[key.replace("secondary_storage", "remote_storage")] = int(number)
    if "direct_cache_hit" not in values:
        return None
    hits = values.get("direct_cache_hit", 0) + values.get("preprocessed_cache_hit", 0)
    remote = values.get("remote_storage_hit", 0)
    kept = ("direct_cache_hit", "preprocessed_cache_hit", "cache_miss", "remote_storage_hit",
            "remote_storage_miss", "remote_storage_error", "remote_storage_timeout", "local_storage_hit")
    return CacheStats(
        engine="ccache",
        compiles=hits + values.get("cache_miss", 0),
        remote_hits=remote,
        local_hits=max(0, values.get("local_storage_hit", hits - remote)),
        remote_errors=values.get("remote_storage_error", 0) + values.get("remote_storage_timeout", 0),
        detail={key: values[key] for key in kept if key in values},
    )


def parse_bazel_processes(text: str) -> CacheStats | None:
    """Bazel's last ``INFO: N processes: K remote cache hit, M linux-sandbox, J internal.``"""
    found = None
    for line in text.splitlines():
        match = _PROCESSES.search(line)
        if match:
            found = match
    if found is None:
        return None
    kinds: dict[str, int] = {}
    for part in found.group(2).split(","):
        number, _, kind = part.strip().partition(" ")
        if number.isdigit():
            kinds[kind] = kinds.get(kind, 0) + int(number)
    total = int(found.group(1)) - kinds.get("internal", 0)
    return CacheStats(
        engine="bazel",
        compiles=total,
        remote_hits=kinds.get("remote cache hit", 0),
        local_hits=kinds.get("disk cache hit", 0),
        detail=kinds,
    )


def forget_cache_stats(output_dir: Path) -> None:
    """Remove an earlier build's statistics files, so a build that keeps none reports none."""
    for name in (CCACHE_STATS_FILE, BAZEL_STEP_LOG):
        (Path(output_dir) / name).unlink(missing_ok=True)


def read_cache_stats(output_dir: Path) -> CacheStats | None:
    """The statistics the build in ``output_dir`` left (None: none kept, e.g. a --local build)."""
    for name, parse in ((CCACHE_STATS_FILE, parse_ccache_stats), (BAZEL_STEP_LOG, parse_bazel_processes)):
        path = Path(output_dir) / name
        if path.is_file():
            stats = parse(path.read_text(encoding="utf-8", errors="replace"))
            if stats is not None:
                return stats
    return None


def stats_record(stats: CacheStats | None) -> dict[str, object] | None:
    if stats is None:
        return None
    return {
        "engine": stats.engine, "compiles": stats.compiles, "remote_hits": stats.remote_hits,
        "local_hits": stats.local_hits, "remote_errors": stats.remote_errors,
        "remote_hit_rate": round(stats.remote_hit_rate, 4), "counted": dict(stats.detail),
    }
