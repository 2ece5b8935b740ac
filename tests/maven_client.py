"""Debian's Maven (``maven`` + ``libmaven-dependency-plugin-java``) as an offline client of a
repository on disk: what a Gradle or Maven build does with ``maven { url 'file:...' }``.

Maven never reaches the network here: ``-o`` (offline), with ``file`` allowed as an offline
protocol, its plugins from Debian's ``/usr/share/maven-repo``, a private local repository, and
the repository's checksum policy ``fail`` (an artifact whose ``.sha1``/``.md5`` disagree, or
that has none, fails; Debian's own plugin repository has no checksums, so ``-C`` cannot be global)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

DEBIAN_REPO = Path("/usr/share/maven-repo")
DEPENDENCY_PLUGIN = "org.apache.maven.plugins:maven-dependency-plugin:3.5.0"


def maven_ready() -> str | None:
    """None when the client can run, else what is missing."""
    if shutil.which("mvn") is None:
        return "mvn not installed (apt-get install maven)"
    if not (DEBIAN_REPO / "org/apache/maven/plugins/maven-dependency-plugin/3.5.0").is_dir():
        return "Maven's dependency plugin not installed (apt-get install libmaven-dependency-plugin-java)"
    return None


def resolve_offline(repository: Path, coordinates: str, work: Path, *, packaging: str = "aar") -> subprocess.CompletedProcess[str]:
    """Resolve ``coordinates`` (GROUP:ARTIFACT:VERSION) of type ``packaging`` from ``repository``
    as a dependency of a one-file project, copying it to ``work/resolved``."""
    group, artifact, version = coordinates.split(":")
    work.mkdir(parents=True, exist_ok=True)
    (work / "settings.xml").write_text(f"""<settings><profiles><profile><id>debian</id>
<pluginRepositories><pluginRepository><id>debian</id><url>{DEBIAN_REPO.as_uri()}</url></pluginRepository>
</pluginRepositories></profile></profiles><activeProfiles><activeProfile>debian</activeProfile></activeProfiles>
</settings>""")
    (work / "pom.xml").write_text(f"""<project xmlns="http://maven.apache.org/POM/4.0.0">
<modelVersion>4.0.0</modelVersion><groupId>app</groupId><artifactId>app</artifactId><version>1</version>
<packaging>pom</packaging>
<repositories><repository><id>tfbuild</id><url>{repository.resolve().as_uri()}</url>
<releases><checksumPolicy>fail</checksumPolicy></releases></repository></repositories>
<dependencies><dependency><groupId>{group}</groupId><artifactId>{artifact}</artifactId><version>{version}</version>
<type>{packaging}</type></dependency></dependencies></project>""")
    argv = ["mvn", "-o", "-B", "-s", str(work / "settings.xml"), "-f", str(work / "pom.xml"),
            "-Daether.offline.protocols=file", f"-Dmaven.repo.local={work / 'local'}",
            f"{DEPENDENCY_PLUGIN}:copy-dependencies", f"-DoutputDirectory={work / 'resolved'}"]
    return subprocess.run(argv, capture_output=True, text=True, timeout=300)
