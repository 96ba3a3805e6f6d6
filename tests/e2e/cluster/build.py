"""``build``: every binary of the control plane, from pinned versions, into CACHE/bin.

One builder per component. A component whose stamp (CACHE/bin/.stamps/<name>) holds its
pinned version and whose binaries all exist is skipped, so ``build`` is cheap to repeat and
a version bump in versions.toml rebuilds just that component. Cold build times and disk use
are measured and written to CACHE/build-report.json (README.md quotes them).
"""

from __future__ import annotations

import json
import os
import shutil
import stat
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from rich.table import Table

from . import debian
from .config import PATHS, REAL_PODS, version_of, versions
from .gobuild import (
    PARALLELISM,
    BuildError,
    Replace,
    Wrapper,
    download,
    go_binary,
    go_env,
    go_version_of,
    godebug_of,
    read_gomod,
    run_logged,
)
from .ui import Board, Step, console, fmt_seconds

STAMPS = PATHS.bin / ".stamps"
GO_BUILD_CACHE = Path(os.environ.get("GOCACHE") or Path.home() / ".cache" / "go-build")
GO_MOD_CACHE = Path(os.environ.get("GOMODCACHE") or Path.home() / "go" / "pkg" / "mod")


def build_date() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def log_for(component: str) -> Path:
    return PATHS.logs / f"build-{component}.log"


def _kubernetes_wrapper() -> tuple[Wrapper, list[str], dict[str, str]]:
    """The wrapper module that builds k8s.io/kubernetes commands, and their ldflags."""
    conf = versions()["kubernetes"]
    module, version, staging = conf["module"], conf["version"], conf["staging_version"]
    log, env = log_for("kubernetes"), go_env()
    info = download(module, version, log=log, env=env)
    gomod = read_gomod(Path(info["GoMod"]), log=log)
    # Every k8s.io/* staging module is replaced by ./staging/src/...: use its published tag.
    replaces = [
        Replace(r["Old"]["Path"], r["Old"]["Path"], staging)
        for r in gomod.get("Replace") or []
        if r["New"]["Path"].startswith("./staging/")
    ]
    wrapper = Wrapper(
        name="kubernetes",
        go_version=go_version_of(gomod),
        requires=[(module, version)],
        replaces=replaces,
        godebug=godebug_of(gomod),
    )
    major, minor = version.lstrip("v").split(".")[:2]
    ldflags = ["-s"]
    for pkg in ("k8s.io/component-base/version", "k8s.io/client-go/pkg/version"):
        ldflags += [
            f"-X {pkg}.gitVersion={version}",
            f"-X {pkg}.gitMajor={major}",
            f"-X {pkg}.gitMinor={minor}",
            f"-X {pkg}.gitCommit=0000000000000000000000000000000000000000",
            f"-X {pkg}.gitTreeState=clean",
            f"-X {pkg}.buildDate={build_date()}",
        ]
    return wrapper, ldflags, env


def _build_commands(
    step: Step,
    component: str,
    conf: dict[str, Any],
    made: tuple[Wrapper, list[str], dict[str, str]],
    names: list[str],
) -> list[str]:
    """``go build`` each of ``conf``'s module's ``cmd/<name>`` through ``made``'s wrapper."""
    wrapper, ldflags, env = made
    for name in names:
        step.say(f"building {name} {conf['version']}")
        started = time.monotonic()
        wrapper.build(
            f"{conf['module']}/cmd/{name}",
            PATHS.bin / name,
            log=log_for(component),
            env=env,
            ldflags=ldflags,
        )
        _timings[f"{component}/{name}"] = time.monotonic() - started
    return names


def _build_kubernetes_commands(step: Step, component: str, names: list[str]) -> list[str]:
    return _build_commands(step, component, versions()["kubernetes"], _kubernetes_wrapper(), names)


def _kubernetes(step: Step) -> list[str]:
    names = ["kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"]
    return _build_kubernetes_commands(step, "kubernetes", names)


def _kubelet(step: Step) -> list[str]:
    """The node agent for real pods (and kube-proxy, for Services on that node)."""
    return _build_kubernetes_commands(step, "kubelet", ["kubelet", "kube-proxy"])


def _etcd(step: Step) -> list[str]:
    conf = versions()["etcd"]
    module, version = conf["module"], conf["version"]
    log, env = log_for("etcd"), go_env()
    step.say(f"downloading {module}@{version}")
    info = download(module, version, log=log, env=env)
    gomod = read_gomod(Path(info["GoMod"]), log=log)
    # server/v3 replaces its siblings with ../api etc.: require them at the same version.
    wrapper = Wrapper(
        name="etcd",
        go_version=go_version_of(gomod),
        requires=[(module, version), *((m, version) for m in conf["siblings"])],
        godebug=godebug_of(gomod),
    )
    step.say(f"building etcd {version}")
    wrapper.build(module, PATHS.bin / "etcd", log=log, env=env, ldflags=["-s"])
    return ["etcd"]


def _kwok(step: Step) -> list[str]:
    conf = versions()["kwok"]
    module, version = conf["module"], conf["version"]
    log = log_for("kwok")
    env = go_env({"GOBIN": str(PATHS.bin), "GOFLAGS": "-buildvcs=false"})
    step.say(f"go install {module}/cmd/kwok@{version}")
    ldflags = f"-s -X sigs.k8s.io/kwok/pkg/consts.Version={version.lstrip('v')}"
    run_logged(
        [
            go_binary(),
            "install",
            "-p",
            PARALLELISM,
            "-trimpath",
            "-ldflags",
            ldflags,
            f"{module}/cmd/kwok@{version}",
        ],
        log=log,
        cwd=PATHS.src,
        env=env,
    )
    return ["kwok"]


def _kustomize(step: Step) -> list[str]:
    """The kustomize CLI Argo CD's repo-server runs for Kustomize apps."""
    conf = versions()["kustomize"]
    module, version = conf["module"], conf["version"]
    log = log_for("kustomize")
    env = go_env({"GOBIN": str(PATHS.bin), "GOFLAGS": "-buildvcs=false"})
    step.say(f"go install {module}@{version}")
    run_logged(
        [go_binary(), "install", "-p", PARALLELISM, "-trimpath", "-ldflags", "-s",
         f"{module}@{version}"],
        log=log,
        cwd=PATHS.src,
        env=env,
    )  # fmt: skip
    return ["kustomize"]


ARGOCD_LINKS = (
    "argocd-server",
    "argocd-application-controller",
    "argocd-repo-server",
    "argocd-git-ask-pass",
    # The notifications controller, run beside the reporter in the parity tests.
    "argocd-notifications",
)


def _argocd(step: Step) -> list[str]:
    conf = versions()["argocd"]
    module, version = conf["module"], conf["version"]
    log, env = log_for("argocd"), go_env()
    step.say(f"downloading {module}@{version}")
    info = download(module, version, log=log, env=env)
    src = Path(info["Dir"])
    gomod = read_gomod(Path(info["GoMod"]), log=log)
    replaces = []
    for r in gomod.get("Replace") or []:
        new = r["New"]["Path"]
        if new.startswith("."):
            # A directory of Argo CD's repository (v3.3+: ./gitops-engine) is not in the
            # module zip: such a version cannot be built from the proxy (versions.toml).
            if not (src / new).is_dir():
                raise BuildError(
                    f"{module}@{version}'s go.mod replaces {r['Old']['Path']} with {new}, "
                    "which its module zip lacks: pick a version without local replaces"
                )
            replaces.append(Replace(r["Old"]["Path"], str((src / new).resolve())))
        else:
            replaces.append(Replace(r["Old"]["Path"], new, r["New"].get("Version", "")))
    wrapper = Wrapper(
        name="argocd",
        go_version=go_version_of(gomod),
        requires=[(module, version)],
        replaces=replaces,
        godebug=godebug_of(gomod),
    )
    kubectl = next(
        (r["Version"] for r in gomod.get("Require") or [] if r["Path"] == "k8s.io/kubectl"),
        "",
    )
    pkg = f"{module}/common"
    ldflags = [
        "-s",
        f"-X {pkg}.version={(src / 'VERSION').read_text().strip()}",
        f"-X {pkg}.buildDate={build_date()}",
        f"-X {pkg}.gitTag={version}",
        f"-X {pkg}.gitTreeState=clean",
        f"-X {pkg}.kubectlVersion={kubectl}",
    ]
    step.say(f"building argocd {version}")
    wrapper.build(f"{module}/cmd", PATHS.bin / "argocd", log=log, env=env, ldflags=ldflags)
    link_argocd()
    return ["argocd", *ARGOCD_LINKS]


def link_argocd() -> None:
    """The names Argo CD's one binary answers to, each a symlink to it; a cache built
    before a name was added gets it here, without building Argo CD again."""
    if not (PATHS.bin / "argocd").exists():
        return
    for link in ARGOCD_LINKS:
        target = PATHS.bin / link
        if not target.is_symlink():
            target.unlink(missing_ok=True)
            target.symlink_to("argocd")


def _argo_wrapper(step: Step) -> tuple[Wrapper, list[str], dict[str, str]]:
    """The wrapper module that builds Argo Workflows' commands (from a writable copy of
    the module), with their ldflags and environment."""
    conf = versions()["argo_workflows"]
    module, version = conf["module"], conf["version"]
    log = log_for("argo-workflows")
    # sum.golang.org has no record of this module (404): skip the checksum database for it,
    # and only for this build.
    env = go_env({"GONOSUMDB": conf["gonosumdb"]})
    step.say(f"downloading {module}@{version}")
    info = download(module, version, log=log, env=env)
    gomod = read_gomod(Path(info["GoMod"]), log=log)
    # ui/embed.go embeds ui/dist/app, built by yarn and absent from the module zip: build
    # from a writable copy with a placeholder page (we use the API, never the UI).
    copy = PATHS.src / f"argo-workflows@{version}"
    if not (copy / "go.mod").exists():
        step.say("copying module source")
        if copy.exists():
            shutil.rmtree(copy, onerror=_make_writable_and_retry)
        shutil.copytree(info["Dir"], copy)
        for path in [copy, *copy.rglob("*")]:
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    app = copy / "ui" / "dist" / "app"
    app.mkdir(parents=True, exist_ok=True)
    (app / "index.html").write_text(
        "<!doctype html><title>Argo Workflows</title>"
        "<p>UI not built (promoflow e2e cluster: API only).</p>\n"
    )
    # The v4.0.5 module zip has signal_darwin.go and signal_windows.go but no Linux
    # variant, so argoexec does not compile for Linux (undefined: Setpgid); darwin's is
    # the same POSIX code, so the build uses it for Linux too.
    osspecific = copy / "workflow" / "executor" / "osspecific"
    if not (osspecific / "signal_linux.go").exists():
        shutil.copyfile(osspecific / "signal_darwin.go", osspecific / "signal_linux.go")
    replaces = [Replace(module, str(copy))]
    for r in gomod.get("Replace") or []:
        if not r["New"]["Path"].startswith("."):
            replaces.append(
                Replace(r["Old"]["Path"], r["New"]["Path"], r["New"].get("Version", ""))
            )
    wrapper = Wrapper(
        name="argo-workflows",
        go_version=go_version_of(gomod),
        requires=[(module, version)],
        replaces=replaces,
        godebug=godebug_of(gomod),
    )
    ldflags = [
        "-s",
        f"-X {module}.version={version}",
        f"-X {module}.buildDate={build_date()}",
        f"-X {module}.gitTag={version}",
        f"-X {module}.gitTreeState=clean",
    ]
    return wrapper, ldflags, env


def _build_argo_commands(step: Step, component: str, names: list[str]) -> list[str]:
    return _build_commands(
        step, component, versions()["argo_workflows"], _argo_wrapper(step), names
    )


def _argo_workflows(step: Step) -> list[str]:
    return _build_argo_commands(step, "argo-workflows", ["argo", "workflow-controller"])


def _argoexec(step: Step) -> list[str]:
    """The executor of real workflow pods (their init and wait containers)."""
    return _build_argo_commands(step, "argoexec", ["argoexec"])


def _make_writable_and_retry(func: Callable[..., Any], path: str, _exc: object) -> None:
    Path(path).parent.chmod(0o755)
    func(path)


def _redis(step: Step) -> list[str]:
    step.say("apt-get download redis-server")
    return debian.install_redis(log_for("redis"))


def _node(step: Step) -> list[str]:
    step.say("apt-get download " + " ".join(debian.node_packages()))
    return debian.install_node(log_for("node"))


@dataclass(frozen=True)
class Component:
    name: str
    version: str
    builder: Callable[[Step], list[str]]
    binaries: tuple[str, ...]
    """What must exist in CACHE/bin for the stamp to count."""
    hot: bool = False
    """A tool that running services look up on their PATH each time they run it (the
    repo-server's kustomize): ``up`` builds it on a running cluster too."""


def components() -> list[Component]:
    redis_version = debian.redis_version_label()
    return [
        Component("etcd", version_of("etcd"), _etcd, ("etcd",)),
        Component(
            "kubernetes",
            version_of("kubernetes"),
            _kubernetes,
            ("kube-apiserver", "kube-controller-manager", "kube-scheduler", "kubectl"),
        ),
        Component("kwok", version_of("kwok"), _kwok, ("kwok",)),
        Component("argocd", version_of("argocd"), _argocd, ("argocd",)),
        Component("kustomize", version_of("kustomize"), _kustomize, ("kustomize",), hot=True),
        Component(
            "argo-workflows",
            version_of("argo_workflows"),
            _argo_workflows,
            ("argo", "workflow-controller"),
        ),
        Component("redis", redis_version, _redis, ()),
    ] + ([
        Component("kubelet", version_of("kubernetes"), _kubelet, ("kubelet", "kube-proxy")),
        Component("argoexec", version_of("argo_workflows"), _argoexec, ("argoexec",)),
        Component("node", debian.node_version_label(), _node, ()),
    ] if REAL_PODS else [])  # fmt: skip


_timings: dict[str, float] = {}


def is_built(comp: Component) -> bool:
    stamp = STAMPS / comp.name
    return (
        stamp.is_file()
        and stamp.read_text().strip() == comp.version
        and all((PATHS.bin / b).exists() for b in comp.binaries)
    )


def du_bytes(path: Path) -> int:
    if not path.exists():
        return 0
    out = subprocess.run(["du", "-sb", str(path)], capture_output=True, text=True, check=False)
    return int(out.stdout.split()[0]) if out.returncode == 0 and out.stdout else 0


def human(n: float) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if n < 1024 or unit == "GiB":
            return f"{n:.0f} {unit}" if unit == "B" else f"{n:.1f} {unit}"
        n /= 1024
    return f"{n:.1f} GiB"


def _go_caches() -> dict[str, int]:
    return {"go_build_cache": du_bytes(GO_BUILD_CACHE), "go_mod_cache": du_bytes(GO_MOD_CACHE)}


def build(only: list[str] | None = None, force: bool = False) -> int:
    """Build what is missing; print (and record) what each cold build cost."""
    for d in (PATHS.bin, PATHS.src, PATHS.logs, STAMPS):
        d.mkdir(parents=True, exist_ok=True)
    report = _load_report()
    before: dict[str, int] | None = None  # measured only once something is to be built
    failed = []
    with Board() as board:
        for comp in components():
            if only and comp.name not in only:
                continue
            with board.step(comp.name, "checking") as step:
                if is_built(comp) and not force:
                    step.done(f"{comp.version} already built")
                    continue
                if before is None:
                    step.say("measuring the Go caches")
                    before = _go_caches()
                _timings.clear()
                step.say(f"building {comp.version}")
                started = time.monotonic()
                try:
                    built = comp.builder(step)
                except Exception as e:  # report and go on with the other components
                    failed.append(comp.name)
                    console.print(f"[red]{comp.name}: {e}[/]")
                    step.done("[red]failed[/] (see log)")
                    continue
                seconds = time.monotonic() - started
                (STAMPS / comp.name).write_text(comp.version + "\n")
                report["components"][comp.name] = {
                    "version": comp.version,
                    "seconds": round(seconds, 1),
                    "steps": {k: round(v, 1) for k, v in _timings.items()},
                    "binaries": {
                        b: (PATHS.bin / b).stat().st_size
                        for b in built
                        if (PATHS.bin / b).is_file() and not (PATHS.bin / b).is_symlink()
                    },
                    "built_at": build_date(),
                }
                step.done(f"{comp.version} built in {fmt_seconds(seconds)}")
    if before is not None:  # something was built: record what it cost on disk
        after = _go_caches()
        disk = report["disk"]
        disk["cluster_home"] = du_bytes(PATHS.home)
        disk["bin"] = du_bytes(PATHS.bin)
        for key, size in after.items():
            disk[key] = size
            disk[f"{key}_growth"] = disk.get(f"{key}_growth", 0) + max(0, size - before[key])
        PATHS.build_report.write_text(json.dumps(report, indent=2) + "\n")
    print_report(report)
    if failed:
        console.print(f"[red]failed: {', '.join(failed)}[/] (logs in {PATHS.logs})")
        return 1
    return 0


def _load_report() -> dict[str, Any]:
    try:
        data: dict[str, Any] = json.loads(PATHS.build_report.read_text())
    except (OSError, ValueError):
        data = {}
    data.setdefault("components", {})
    data.setdefault("disk", {})
    return data


def print_report(report: dict[str, Any]) -> None:
    table = Table(title="cold builds (as measured when each was last built)")
    for col in ("component", "version", "build time", "binaries"):
        table.add_column(col)
    for name, c in report["components"].items():
        steps = ", ".join(f"{k.split('/')[-1]} {fmt_seconds(v)}" for k, v in c["steps"].items())
        sizes = ", ".join(f"{b} {human(s)}" for b, s in c["binaries"].items())
        table.add_row(
            name,
            c["version"],
            fmt_seconds(c["seconds"]) + (f" ({steps})" if steps else ""),
            sizes,
        )
    console.print(table)
    d = report["disk"]
    console.print(
        f"disk: {PATHS.home} {human(d.get('cluster_home', 0))} (bin {human(d.get('bin', 0))}); "
        f"Go build cache {human(d.get('go_build_cache', 0))} "
        f"(+{human(d.get('go_build_cache_growth', 0))} by these builds); "
        f"Go module cache {human(d.get('go_mod_cache', 0))} "
        f"(+{human(d.get('go_mod_cache_growth', 0))})"
    )
