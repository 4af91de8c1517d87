"""deploy/Dockerfile is structurally right (no builder is needed to check this).

`make image-test` builds the image and runs it (test_image.py); these checks say at once, and
where no image can be built, what most often breaks an image unnoticed: a COPY of a path that
moved or that .dockerignore leaves out, running as root, a HEALTHCHECK fighting the
orchestrator's probes, a shell-form ENTRYPOINT that keeps SIGTERM from the server, a `python`
that a Debian base lacks, pip in the runtime venv, no way to reach a package mirror.
"""

from __future__ import annotations

import fnmatch
import json
import re
import shlex
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
DOCKERFILE = REPO / "deploy" / "Dockerfile"
DOCKERIGNORE = REPO / ".dockerignore"


@dataclass(frozen=True)
class Instruction:
    keyword: str
    args: str
    line: int


def parse_dockerfile(text: str) -> list[Instruction]:
    """Split a Dockerfile into instructions, joining continuation lines, dropping comments."""
    instructions: list[Instruction] = []
    pending = ""
    start = 0
    for number, raw in enumerate(text.splitlines(), start=1):
        stripped = raw.strip()
        if not pending and (not stripped or stripped.startswith("#")):
            continue
        if pending and stripped.startswith("#"):
            continue  # comment lines inside a continued instruction are dropped by Docker
        if not pending:
            start = number
        if stripped.endswith("\\"):
            pending += stripped[:-1].rstrip() + " "
            continue
        pending += stripped
        keyword, _, args = pending.partition(" ")
        instructions.append(Instruction(keyword.upper(), args.strip(), start))
        pending = ""
    assert not pending, "the Dockerfile ends inside a continued line"
    return instructions


def stages(instructions: list[Instruction]) -> list[list[Instruction]]:
    result: list[list[Instruction]] = []
    for instruction in instructions:
        if instruction.keyword == "FROM":
            result.append([])
        if result:
            result[-1].append(instruction)
    return result


def instructions() -> list[Instruction]:
    return parse_dockerfile(DOCKERFILE.read_text(encoding="utf-8"))


def global_args() -> dict[str, str]:
    """ARGs declared before the first FROM, with their defaults (usable in FROM lines)."""
    values: dict[str, str] = {}
    for instruction in instructions():
        if instruction.keyword == "FROM":
            break
        if instruction.keyword == "ARG":
            name, _, default = instruction.args.partition("=")
            values[name] = default
    return values


def expand(text: str, values: dict[str, str]) -> str:
    return re.sub(r"\$\{?(\w+)\}?", lambda m: values.get(m.group(1), m.group(0)), text)


def copy_sources(instruction: Instruction) -> list[str]:
    """The context paths a COPY/ADD reads (none for COPY --from=stage)."""
    words = (
        json.loads(instruction.args)
        if instruction.args.startswith("[")
        else shlex.split(instruction.args)
    )
    if any(w.startswith("--from") for w in words):
        return []
    paths = [w for w in words if not w.startswith("--")]
    assert len(paths) >= 2, f"line {instruction.line}: COPY needs a source and a destination"
    return paths[:-1]


def dockerignore_patterns() -> list[str]:
    lines = DOCKERIGNORE.read_text(encoding="utf-8").splitlines()
    return [line.strip() for line in lines if line.strip() and not line.strip().startswith("#")]


def ignored(path: str, patterns: list[str]) -> bool:
    """Docker's rule: the last matching pattern wins; `!` re-includes; a match on a parent
    directory excludes everything under it; `**/` matches any depth, including none."""
    parts = path.strip("/").split("/")
    candidates = ["/".join(parts[: i + 1]) for i in range(len(parts))]
    result = False
    for pattern in patterns:
        negate = pattern.startswith("!")
        body = pattern[1:] if negate else pattern
        body = body.strip("/")
        forms = [body]
        while forms[-1].startswith("**/"):
            forms.append(forms[-1][3:])
        if any(fnmatch.fnmatchcase(c, f) for c in candidates for f in forms) or any(
            fnmatch.fnmatchcase(c.rsplit("/", 1)[-1], f[3:])
            for c in candidates
            for f in forms
            if f.startswith("**/")
        ):
            result = not negate
    return result


# ---------------------------------------------------------------------------------------------


def test_parser_reads_continuations_and_exec_forms() -> None:
    parsed = parse_dockerfile('FROM a AS b\n# c\nRUN x \\\n  # inner\n  && y\nCMD ["z"]\n')
    assert [(i.keyword, i.args) for i in parsed] == [
        ("FROM", "a AS b"),
        ("RUN", "x && y"),
        ("CMD", '["z"]'),
    ]


def test_ignore_matcher_follows_docker_rules() -> None:
    patterns = ["tests", "**/*.pyc", "*.md", "!README.md"]
    assert ignored("tests/deploy/x.py", patterns)
    assert ignored("a/b/c.pyc", patterns)
    assert ignored("c.pyc", patterns)
    assert ignored("NOTES.md", patterns)
    assert not ignored("README.md", patterns)
    assert not ignored("tienlen_service/server.py", patterns)


def test_image_is_multi_stage_on_slim_python_311() -> None:
    froms = [i for i in instructions() if i.keyword == "FROM"]
    assert len(froms) >= 2, "build and runtime stages"
    for instruction in froms:
        image = expand(instruction.args.split()[0], global_args())
        assert re.fullmatch(r"python:3\.11(\.\d+)?-slim(-\w+)?(@sha256:[0-9a-f]{64})?", image), (
            f"line {instruction.line}: base image {image} is not a slim Python 3.11"
        )
    assert " AS " in froms[0].args.upper(), "the build stage is named, for COPY --from"


def test_base_image_is_pinned_to_an_exact_release_and_overridable_with_a_digest() -> None:
    # A moving tag (3.11-slim) changes under the same Dockerfile; an exact Python release and
    # Debian suite do not. The digest needs a registry to look up, so it is a build argument.
    default = global_args()["PYTHON_IMAGE"]
    assert re.fullmatch(r"python:3\.11\.\d+-slim-[a-z]+(@sha256:[0-9a-f]{64})?", default), default
    for instruction in instructions():
        if instruction.keyword == "FROM":
            assert instruction.args.split()[0] == "${PYTHON_IMAGE}", (
                f"line {instruction.line}: every stage starts from the one pinned argument"
            )
    assert "@sha256:" in DOCKERFILE.read_text(encoding="utf-8"), "the header says how to pin it"


def test_runtime_stage_runs_as_a_non_root_numeric_user() -> None:
    final = stages(instructions())[-1]
    users = [i.args for i in final if i.keyword == "USER"]
    assert users, "the runtime stage sets a USER"
    user = users[-1].split(":")[0]
    assert user.isdigit(), "a numeric uid lets Kubernetes verify runAsNonRoot"
    assert int(user) != 0


def test_no_healthcheck_probes_belong_to_the_orchestrator() -> None:
    assert not [i for i in instructions() if i.keyword == "HEALTHCHECK"]


def test_entrypoint_is_exec_form_running_the_service() -> None:
    final = stages(instructions())[-1]
    (entry,) = [i for i in final if i.keyword == "ENTRYPOINT"]
    words = json.loads(entry.args)  # shell form would make /bin/sh PID 1, eating SIGTERM
    assert isinstance(words, list)
    assert words[0].endswith("tienlen-service") or words[-2:] == ["-m", "tienlen_service"]


def test_ports_are_exposed() -> None:
    exposed = {
        int(port.split("/")[0])
        for i in stages(instructions())[-1]
        if i.keyword == "EXPOSE"
        for port in i.args.split()
    }
    assert {50051, 8080, 9464} <= exposed


def test_protobuf_code_is_generated_during_the_build() -> None:
    build = stages(instructions())[0]
    runs = [i.args for i in build if i.keyword == "RUN"]
    assert any("scripts/gen_protos.py" in run for run in runs)
    final = stages(instructions())[-1]
    assert not [i for i in final if i.keyword == "RUN" and "pip install" in i.args], (
        "the runtime stage installs nothing: it copies the built venv"
    )


def test_every_copy_source_exists_and_is_in_the_build_context() -> None:
    patterns = dockerignore_patterns()
    sources = [s for i in instructions() if i.keyword in {"COPY", "ADD"} for s in copy_sources(i)]
    assert sources
    for source in sources:
        assert not source.startswith(("/", "..")), f"{source} is outside the build context"
        assert (REPO / source).exists(), f"COPY source {source} does not exist in the repository"
        assert not ignored(source, patterns), f"COPY source {source} is excluded by .dockerignore"


def test_dockerignore_keeps_local_state_and_secrets_out() -> None:
    patterns = dockerignore_patterns()
    for path in (".git/config", ".venv/bin/python", "tests/x.py", "server.key"):
        assert ignored(path, patterns), f"{path} would be sent to the build"
    for path in ("tienlen/v1/engine_pb2.py", "tienlen/v1/engine_pb2_grpc.pyi"):
        assert ignored(path, patterns), f"stale generated code {path} would reach the image"


def test_image_environment_is_settings_the_server_reads() -> None:
    from tienlen_service.config import OPTIONS

    known = {option.env for option in OPTIONS}
    names: set[str] = set()
    for instruction in stages(instructions())[-1]:
        if instruction.keyword == "ENV":
            names |= {word.split("=", 1)[0] for word in shlex.split(instruction.args)}
    tienlen = {name for name in names if name.startswith("TIENLEN_")}
    assert tienlen, "the image sets the ports it EXPOSEs"
    assert tienlen <= known, f"the server ignores {sorted(tienlen - known)}"


def test_the_image_ships_no_developer_tools() -> None:
    # The self-play simulator and the benchmarks are tools of the repository, not the service.
    patterns = dockerignore_patterns()
    for path in ("tools/simulate.py", "bench/load.py"):
        assert ignored(path, patterns), f"{path} would be sent to the build"
    sources = [s for i in instructions() if i.keyword in {"COPY", "ADD"} for s in copy_sources(i)]
    assert not [s for s in sources if s.strip("/").split("/")[0] in {"tools", "bench", "."}]


def test_the_build_calls_python3_which_every_python_base_has() -> None:
    # A Debian base (made with debootstrap where no registry answers) has python3 and no
    # `python` unless python-is-python3 is installed.
    for instruction in instructions():
        if instruction.keyword == "RUN":
            assert not re.search(r"(^|[;&|]\s*)python\s", instruction.args), (
                f"line {instruction.line}: call python3, not python"
            )


def test_the_runtime_venv_gets_no_pip_or_setuptools() -> None:
    # ensurepip's pip and setuptools are in neither the lock nor the SBOM; the build's pip
    # installs into the runtime venv from outside it (--python).
    runs = [i.args for i in stages(instructions())[0] if i.keyword == "RUN"]
    assert any("-m venv --without-pip /opt/venv" in run for run in runs)
    assert not any("/opt/venv/bin/pip" in run for run in runs)
    installs = [p for run in runs for p in run.split("&&") if re.search(r"pip .*install", p)]
    assert all("/opt/build/bin/pip" in p for p in installs), installs
    assert all(
        "--python /opt/venv/bin/python" in p for p in installs if "requirements-build" not in p
    )


def test_a_package_index_and_a_ca_can_be_given_to_the_build_stage_only() -> None:
    build, runtime = stages(instructions())[0], stages(instructions())[-1]
    args = {i.args.partition("=")[0] for i in build if i.keyword == "ARG"}
    assert "PIP_INDEX_URL" in args, "a mirror or proxy of the package index"
    mounts = [i.args for i in build if i.keyword == "RUN" and "--mount=type=secret" in i.args]
    assert any("id=pip-ca" in m and "PIP_CERT" in m for m in mounts), "a CA for pip, as a secret"
    assert not [i for i in runtime if "PIP_INDEX_URL" in i.args or "pip-ca" in i.args]
